// prepare/cleanup hooks, `parameters` (hyperfine's -L in a spec) and specs of fixtures alone
// (perfengine generate): parsed, and refused with a position and a suggestion.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/spec/spec.h"

namespace pe::spec {
namespace {

std::string ErrorOf(const std::string& text, SpecUse use = SpecUse::kRun) {
  try {
    ParseSpecText(text, "s.toml", use);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::string> Values(const std::vector<Located>& argv) {
  std::vector<std::string> out;
  for (const Located& a : argv) out.push_back(a.value);
  return out;
}

constexpr const char* kContenders = R"([contenders.a]
argv = ["gzip", "-c"]
prepare = ["sh", "-c", "sync"]

[contenders.b]
argv = ["zstd", "-c", "-{level}"]
cleanup = ["rm", "-f", "{workdir}/state"]

)";

TEST(HooksTest, ContendersAndWorkloadsHavePrepareAndCleanup) {
  const Spec spec = ParseSpecText(std::string(kContenders) + R"([workloads.compress]
args = ["{workdir}/in"]
parameters = { level = ["1", "3", "9"] }
prepare = ["cp", "{spec_dir}/in", "{workdir}/in"]
cleanup = ["rm", "{workdir}/in.{level}"]
)",
                                  "s.toml");
  EXPECT_EQ(Values(spec.FindContender("a")->hooks.prepare), (std::vector<std::string>{"sh", "-c", "sync"}));
  EXPECT_TRUE(spec.FindContender("a")->hooks.cleanup.empty());
  EXPECT_EQ(Values(spec.FindContender("b")->hooks.cleanup), (std::vector<std::string>{"rm", "-f", "{workdir}/state"}));
  const Workload* w = spec.FindWorkload("compress[level=3]");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(Values(w->hooks.prepare), (std::vector<std::string>{"cp", "{spec_dir}/in", "{workdir}/in"}));
  EXPECT_EQ(Values(w->hooks.cleanup), (std::vector<std::string>{"rm", "{workdir}/in.{level}"}));
  EXPECT_EQ(spec.FindContender("a")->hooks.prepare[0].pos.line, 3);
}

TEST(HooksTest, AHookIsANonEmptyArgvWithKnownPlaceholders) {
  const std::string base = "[contenders.a]\nargv = [\"true\"]\n\n[contenders.b]\nargv = [\"true\"]\n\n[workloads.w]\n";
  EXPECT_EQ(ErrorOf(base + "prepare = []\n"), "s.toml:8:11: 'prepare' must not be empty");
  EXPECT_EQ(ErrorOf(base + "cleanup = \"rm -rf x\"\n"),
            "s.toml:8:11: 'cleanup' must be an array of strings, not a string");
  EXPECT_EQ(ErrorOf(base + "prepare = [\"cp\", \"{workdri}/x\"]\n"),
            "s.toml:8:18: unknown placeholder '{workdri}' (did you mean '{workdir}'?)");
  EXPECT_EQ(ErrorOf(base + "prepair = [\"true\"]\n").substr(0, 60),
            "s.toml:8:1: unknown key 'prepair' in [workloads.w] (did you ");
  EXPECT_NE(ErrorOf(base + "prepair = [\"true\"]\n").find("(did you mean 'prepare'?)"), std::string::npos);
  // A contender's hooks run on every workload, the startup one too: no parameter there.
  EXPECT_EQ(ErrorOf("[contenders.a]\nargv = [\"true\"]\ncleanup = [\"rm\", \"{level}\"]\n\n[contenders.b]\nargv = "
                    "[\"true\"]\n\n[workloads.w]\nparameters = { level = [1, 2] }\n"),
            "s.toml:3:18: '{level}' is a sweep axis; an axis placeholder may be used only in the args, output, sweep "
            "env and hooks of the workload that sweeps it, or after the program in a contender's argv when every "
            "workload declares it");
}

TEST(ParametersTest, OneWorkloadPerValueWithThePlaceholderFilled) {
  const Spec spec = ParseSpecText(std::string(kContenders) + R"([workloads.compress]
args = ["{workdir}/in"]
parameters = { level = [1, 3, "best"] }
)",
                                  "s.toml");
  std::vector<std::string> names;
  for (const Workload& w : spec.workloads) names.push_back(w.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"startup", "compress[level=1]", "compress[level=3]", "compress[level=best]"}));
  const Workload& best = *spec.FindWorkload("compress[level=best]");
  ASSERT_EQ(best.point.size(), 1u);
  EXPECT_EQ(best.point[0], (std::pair<std::string, std::string>{"level", "best"}));
  EXPECT_EQ(best.sweep, "compress");
}

TEST(ParametersTest, TwoParametersMakeTheirMatrix) {
  const Spec spec = ParseSpecText(std::string(kContenders) + R"([workloads.compress]
parameters = { level = ["1", "9"], block = ["4k", "1m"] }
args = ["-B{block}"]
)",
                                  "s.toml");
  EXPECT_NE(spec.FindWorkload("compress[level=9,block=1m]"), nullptr);
  EXPECT_EQ(spec.workloads.size(), 5u);
}

TEST(ParametersTest, MistakesArePositionedWithSuggestions) {
  const std::string c = "[contenders.a]\nargv = [\"true\"]\n\n[contenders.b]\nargv = [\"true\"]\n\n[workloads.w]\n";
  EXPECT_EQ(ErrorOf(c + "parameters = [\"1\", \"2\"]\n"),
            "s.toml:8:14: 'parameters' must be a table of lists of values, not an array; e.g. parameters = { level = "
            "[\"1\", \"3\", \"9\"] }");
  EXPECT_EQ(ErrorOf(c + "parameters = {}\n"),
            "s.toml:8:14: 'parameters' declares no parameter; e.g. parameters = { level = [\"1\", \"3\", \"9\"] }");
  EXPECT_EQ(ErrorOf(c + "parameters = { level = [\"1\", \"1\"] }\n"),
            "s.toml:8:30: sweep axis 'level' lists 1 twice (first at line 8, column 25)");
  EXPECT_EQ(ErrorOf(c + "parameters = { seed = [\"1\"] }\n"),
            "s.toml:8:16: sweep axis 'seed' would hide the {seed} placeholder; choose another name");
  EXPECT_EQ(ErrorOf(c + "parameters = { env = [\"1\"] }\n"),
            "s.toml:8:16: a parameter may not be named 'env' (a key of [workloads.w.sweep], where environments and "
            "gates per value are declared)");
  EXPECT_EQ(ErrorOf(c + "args = [\"{levl}\"]\nparameters = { level = [\"1\"] }\n"),
            "s.toml:8:9: unknown placeholder '{levl}' (did you mean '{level}'?)");
  EXPECT_EQ(ErrorOf(c + "parameters = { level = [\"1\"] }\n\n[workloads.w.sweep]\nthreads = [1]\n"),
            "s.toml:8:14: workload 'w' has both 'parameters' and a sweep; list the parameters as axes of "
            "[workloads.w.sweep]");
}

TEST(ParametersTest, AContenderArgvMayUseAParameterEveryWorkloadDeclares) {
  const std::string contenders =
      "[contenders.a]\nargv = [\"gzip\", \"-{level}\"]\n\n[contenders.b]\nargv = "
      "[\"zstd\", \"-{level}\"]\n\n";
  const Spec spec = ParseSpecText(
      contenders + "[workloads.x]\nparameters = { level = [1, 9] }\n\n[workloads.y]\nparameters = { level = [3] }\n",
      "s.toml");
  EXPECT_NE(spec.FindWorkload("y[level=3]"), nullptr);
  // One workload without it: the contender's argv would have no value there.
  const std::string why =
      "'{level}' is a sweep axis; an axis placeholder may be used only in the args, output, sweep env and hooks of "
      "the workload that sweeps it, or after the program in a contender's argv when every workload declares it";
  EXPECT_EQ(ErrorOf(contenders + "[workloads.x]\nparameters = { level = [1, 9] }\n\n[workloads.y]\n"),
            "s.toml:2:17: " + why + "\ns.toml:5:17: " + why);
  // Not the program: `startup` runs it with --version, where no parameter has a value.
  EXPECT_NE(ErrorOf("[contenders.a]\nargv = [\"{level}\"]\n\n[contenders.b]\nargv = [\"true\"]\n\n[workloads.x]\n"
                    "parameters = { level = [1] }\n")
                .find("s.toml:2:9: '{level}' is a sweep axis"),
            std::string::npos);
}

TEST(FixturesOnlyTest, GenerateReadsASpecWithoutContenders) {
  const std::string text =
      "[workloads.w]\nargs = [\"{fixture}\"]\nfixture = { generator = \"text_lines\", lines = 10 }\n";
  const Spec spec = ParseSpecText(text, "s.toml", SpecUse::kFixtures);
  EXPECT_TRUE(spec.contenders.empty());
  EXPECT_EQ(spec.baseline, "");
  ASSERT_NE(spec.FindWorkload("w"), nullptr);
  EXPECT_EQ(ErrorOf(text),
            "s.toml:1:1: the spec declares no contenders: add [contenders.NAME] tables (only perfengine generate reads "
            "a spec without them)");
  // Contenders it does declare are still checked, and so is everything else.
  EXPECT_EQ(ErrorOf("[contenders.a]\nargv = [\"true\"]\n\n" + text, SpecUse::kFixtures),
            "s.toml:1:13: the spec declares one contender; a comparison needs at least two");
  EXPECT_EQ(ErrorOf("[workloads.w]\nargz = []\n", SpecUse::kFixtures),
            "s.toml:2:1: unknown key 'argz' in [workloads.w] (did you mean 'args'?)");
}

}  // namespace
}  // namespace pe::spec
