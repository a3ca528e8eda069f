// order = "duet" (engine/run/duet_round.h): what it refuses, with the exact text and the
// position of [run] order, so `validate` and `run` say it before anything runs.
#include "engine/run/duet_round.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/spec/spec.h"

namespace pe::run {
namespace {

spec::Spec Parse(const std::string& run, const std::string& rest = "") {
  return spec::ParseSpecText("[run]\n" + run +
                                 "\n[contenders.a]\nargv = [\"/bin/true\"]\n[contenders.b]\nargv = [\"/bin/true\"]\n"
                                 "[workloads.work]\n" +
                                 rest,
                             "duet.toml");
}

std::vector<std::string> Messages(const std::vector<spec::SpecError>& errors) {
  std::vector<std::string> out;
  for (const spec::SpecError& e : errors) out.push_back(e.what());
  return out;
}

TEST(DuetRefusals, NoneForOtherOrdersOrWhenNothingStandsInTheWay) {
  EXPECT_TRUE(DuetRefusals(Parse("order = \"alternate\""), 1).empty());
  EXPECT_TRUE(DuetRefusals(Parse("order = \"duet\""), 2).empty());
}

TEST(DuetRefusals, TooFewCoresPointAtTheOrderKey) {
  EXPECT_EQ(Messages(DuetRefusals(Parse("rounds = 7\norder = \"duet\""), 1)),
            std::vector<std::string>{
                "duet.toml:3:9: order = \"duet\" runs every contender at once, each on a core of its own, but "
                "perfengine may use 1 core on this machine (sched_getaffinity) for 2 contenders; use order = "
                "\"alternate\""});
}

TEST(DuetRefusals, AContenderThatDeclaresThreads) {
  const spec::Spec spec = spec::ParseSpecText(
      "[run]\norder = \"duet\"\n[contenders.a]\nargv = [\"/bin/true\"]\nthreads = 4\n"
      "[contenders.b]\nargv = [\"/bin/true\"]\n[workloads.work]\n",
      "duet.toml");
  EXPECT_EQ(Messages(DuetRefusals(spec, 2)),
            std::vector<std::string>{"duet.toml:2:9: order = \"duet\" runs every contender at once, each on a core of "
                                     "its own, but contender 'a' declares threads = 4; use order = \"alternate\""});
}

TEST(DuetRefusals, AThreadsAxisAboveOneAndAServeWorkload) {
  const spec::Spec spec = Parse("order = \"duet\"",
                                "args = [\"{threads}\"]\n[workloads.work.sweep]\nthreads = [1, 2]\n"
                                "[workloads.web]\nkind = \"serve\"\nargs = [\"--port\", \"{port}\"]\n"
                                "requests = [\"/\"]\n");
  const std::vector<std::string> got = Messages(DuetRefusals(spec, 2));
  ASSERT_EQ(got.size(), 2u) << ::testing::PrintToString(got);
  EXPECT_NE(std::find(got.begin(), got.end(),
                      "duet.toml:2:9: order = \"duet\" runs every contender at once, each on a core of its own, but "
                      "workload 'work[threads=2]' runs with threads = 2; use order = \"alternate\""),
            got.end())
      << ::testing::PrintToString(got);
  EXPECT_NE(std::find(got.begin(), got.end(),
                      "duet.toml:2:9: order = \"duet\" runs every contender at once, each on a core of its own, but "
                      "workload 'web' is a serve workload (a server and its load client); use order = \"alternate\""),
            got.end())
      << ::testing::PrintToString(got);
}

TEST(DuetRefusals, TheUnknownOrderNamesDuet) {
  try {
    Parse("order = \"duets\"");
    FAIL();
  } catch (const spec::SpecError& e) {
    EXPECT_STREQ(
        e.what(),
        "duet.toml:2:9: unknown order 'duets' (did you mean 'duet'?); expected 'alternate', 'random' or 'duet'");
  }
}

TEST(UsableCpus, AreTheAffinitySetInOrder) {
  const std::vector<int> cpus = UsableCpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
}

}  // namespace
}  // namespace pe::run
