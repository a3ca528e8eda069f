// order = "duet" end to end: the stub contender records when it started and ended and on which
// CPU (sched_getcpu). In a duet round the two contenders' intervals overlap and their CPUs
// differ; with order = "alternate" they never overlap (the control that shows the test can
// fail). Nothing here compares a duration with a bound.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

struct Interval {
  std::string contender;
  long long start = 0, end = 0;
  int start_cpu = -1, end_cpu = -1;
};

fs::path WriteDuetSpec(const TempDir& dir, const std::string& order, const fs::path& log) {
  const std::string argv = "[\"" STUB_CONTENDER "\", \"--cpu-log\", \"" + log.string() +
                           "\", \"{contender}\", \"--busy-ms\", \"150\", \"--cpu-log\", \"" + log.string() +
                           "\", \"{contender}\", \"--print\", \"same\"]";
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 7\nwarmup_rounds = 0\norder = \"" << order << "\"\n\n"
                      << "[contenders.baseline]\nwritable = [\".\"]\nargv = " << argv << "\n\n"
                      << "[contenders.candidate]\nwritable = [\".\"]\nargv = " << argv << "\n\n"
                      << "[workloads.work]\n\n[thresholds]\nmax_slowdown = 1.5\n";
  return spec;
}

// One interval per execution, in the order they started; the first two are parity's. Each
// execution logs a start and an end line; a contender's executions never overlap one another,
// so its lines pair up in order (pids do not tell them apart: in its sandbox each is pid 2).
std::vector<Interval> ReadIntervals(const fs::path& log) {
  std::map<std::string, Interval> open;
  std::vector<Interval> out;
  std::ifstream in(log);
  std::string tag;
  long long pid = 0, ns = 0;
  int cpu = 0;
  while (in >> tag >> pid >> ns >> cpu) {
    auto it = open.find(tag);
    if (it == open.end()) {
      Interval i;
      i.contender = tag;
      i.start = ns;
      i.start_cpu = cpu;
      open.emplace(tag, i);
    } else {
      it->second.end = ns;
      it->second.end_cpu = cpu;
      out.push_back(it->second);
      open.erase(it);
    }
  }
  std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  return out;
}

bool Overlap(const Interval& a, const Interval& b) { return a.start < b.end && b.start < a.end; }

TEST(DuetE2E, BothContendersOfADuetRoundRunAtOnceOnDifferentCpus) {
  TempDir dir;
  const fs::path log = dir.path() / "cpu.log";
  const fs::path json = dir.path() / "results.json";
  const Finished f =
      RunPerfengine({"run", WriteDuetSpec(dir, "duet", log).string(), "--json", json.string()}, dir.path());
  ASSERT_EQ(f.exit, 0) << f.out << f.err;
  const std::vector<Interval> runs = ReadIntervals(log);
  ASSERT_EQ(runs.size(), 2u + 7u * 2u) << ReadAll(log);  // parity, then 7 rounds of 2
  EXPECT_FALSE(Overlap(runs[0], runs[1]));               // parity runs one contender at a time
  for (size_t i = 2; i + 1 < runs.size(); i += 2) {
    const Interval& a = runs[i];
    const Interval& b = runs[i + 1];
    EXPECT_NE(a.contender, b.contender) << i;
    EXPECT_TRUE(Overlap(a, b)) << "round " << (i - 2) / 2;
    EXPECT_EQ(a.start_cpu, a.end_cpu) << "pinned: it stays on its core";
    EXPECT_EQ(b.start_cpu, b.end_cpu);
    EXPECT_NE(a.start_cpu, b.start_cpu) << "round " << (i - 2) / 2;
  }
  // Each contender's time is still its own: 150 ms of CPU is in its user time, not its pair's.
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["settings"]["order"], "duet");
  for (const auto& s : results["workloads"][1]["samples"]) EXPECT_GT(s["user_s"].get<double>(), 0.1) << s.dump();
}

TEST(DuetE2E, AlternateOrderNeverOverlaps) {
  TempDir dir;
  const fs::path log = dir.path() / "cpu.log";
  const Finished f = RunPerfengine({"run", WriteDuetSpec(dir, "alternate", log).string()}, dir.path());
  ASSERT_EQ(f.exit, 0) << f.out << f.err;
  const std::vector<Interval> runs = ReadIntervals(log);
  ASSERT_EQ(runs.size(), 16u) << ReadAll(log);
  for (size_t i = 0; i + 1 < runs.size(); ++i) EXPECT_FALSE(Overlap(runs[i], runs[i + 1])) << i;
}

// The candidate, after its own work, waits for the baseline's process to be gone and rewrites
// the baseline's counters file (…/c0/counters beside its own …/c1/counters) to 1000 objects, ten
// times the truth: read after both ended, the baseline looked 10x worse and the candidate's 1.5x
// passed a bar of 1.0 (issue 45). Each file is read as soon as its own contender has ended.
TEST(DuetE2E, ACandidateCannotRewriteTheBaselinesCountersAfterItExits) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  if (CPU_COUNT(&set) < 2) GTEST_SKIP() << "order = \"duet\" needs 2 usable cores";
  TempDir dir;
  const std::string stub = "\"" STUB_CONTENDER "\"";
  const std::string baseline = "[" + stub +
                               ", \"--pid-beside-env\", \"PERFENGINE_COUNTERS\", \"--print\", \"same\", "
                               "\"--write-env\", \"PERFENGINE_COUNTERS\", \"objects 100 objects\"]";
  const std::string candidate = "[" + stub +
                                ", \"--sleep-ms\", \"50\", \"--print\", \"same\", \"--write-env\", "
                                "\"PERFENGINE_COUNTERS\", \"objects 150 objects\", \"--rewrite-rival-env\", "
                                "\"PERFENGINE_COUNTERS\", \"/c1/\", \"/c0/\", \"objects 1000 objects\"]";
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 3\nwarmup_rounds = 0\norder = \"duet\"\n\n"
                      << "[contenders.baseline]\nwritable = [\".\"]\nargv = " << baseline << "\n\n"
                      << "[contenders.candidate]\nwritable = [\".\"]\nargv = " << candidate << "\n\n"
                      << "[workloads.work]\n\n"
                      << "[counters.objects]\nunit = \"objects\"\nexact = true\n\n"
                      << "[thresholds.counters]\nobjects = 1.0\n";
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("work: objects ratio 1.50x (candidate 150 objects, baseline 100 objects) is above the allowed "
                       "1.00x (over by 50%)"),
            std::string::npos)
      << f.out << f.err;
}

}  // namespace
}  // namespace pe::e2e
