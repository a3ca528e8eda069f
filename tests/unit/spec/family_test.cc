// The family [run] confidence is split across, counted from a spec: gated workloads' sequential
// thresholds (rows sharing one sequence count once), noisy counter checks and sweep checks;
// never point checks, ungated workloads or the startup workload. Each check's level is then
// 1 - (1 - confidence) / checks, unless per_check_confidence overrides it.
#include "engine/spec/family.h"

#include <gtest/gtest.h>

#include "engine/spec/spec.h"

namespace pe::spec {
namespace {

constexpr const char* kFamilySpec = R"(
[run]
rounds = 10
max_rounds = 60

[contenders.baseline]
argv = ["true"]

[contenders.candidate]
argv = ["true"]

[workloads.a]
args = ["a"]

[workloads.b]
args = ["b"]

[workloads.b.thresholds]
min_speedup = 1.0
min_speedup_ci = 1.0   # reads the same sequence as min_speedup: one member of the family

[workloads.c]
args = ["c"]
gate = false

[workloads.d]
args = ["d", "{threads}"]

[workloads.d.sweep]
threads = [1, 2]
scale = [1, 2]

[workloads.d.sweep.thresholds]
min_scaling_efficiency = 0.5
efficiency_threads = 2

[thresholds]
max_slowdown = 1.05
max_rss_ratio = 1.2    # a point check: no interval, not in the family
)";

const Workload& Named(const Spec& spec, std::string_view name) {
  const Workload* w = spec.FindWorkload(name);
  EXPECT_NE(w, nullptr) << name;
  return *w;
}

TEST(Family, CountsEveryCheckThatReadsAnInterval) {
  const Spec spec = ParseSpecText(kFamilySpec, "x.toml");
  EXPECT_EQ(FamilyChecks(spec, Named(spec, "startup")), 0);
  EXPECT_EQ(FamilyChecks(spec, Named(spec, "a")), 1);  // max_slowdown
  EXPECT_EQ(FamilyChecks(spec, Named(spec, "b")), 2);  // max_slowdown, min_speedup(_ci)
  EXPECT_EQ(FamilyChecks(spec, Named(spec, "c")), 0);  // not gated
  // a 1 + b 2 + four sweep points' max_slowdown 4 + one efficiency per scale 2.
  const Family f = FamilyOf(spec);
  EXPECT_EQ(f.checks, 9);
  EXPECT_DOUBLE_EQ(f.check_confidence, 1 - 0.05 / 9);
  EXPECT_DOUBLE_EQ(f.family_confidence, 0.95);
}

// Each further candidate is judged against the baseline by the same rows (gate/candidates.h):
// its checks are members of the family too. Sweep checks stay the run's candidate's.
TEST(Family, AThirdContenderAddsItsOwnChecks) {
  std::string text = kFamilySpec;
  text.replace(text.find("[workloads.a]"), 13, "[contenders.third]\nargv = [\"true\"]\n\n[workloads.a]");
  const Spec spec = ParseSpecText(text, "x.toml");
  EXPECT_EQ(FamilyChecks(spec, Named(spec, "a")), 2);
  EXPECT_EQ(FamilyChecks(spec, Named(spec, "b")), 4);
  // a 2 + b 4 + four sweep points 8 + two efficiencies 2.
  EXPECT_EQ(FamilyOf(spec).checks, 16);
}

TEST(Family, EveryWorkloadChecksAtTheSplitLevel) {
  const Spec spec = ParseSpecText(kFamilySpec, "x.toml");
  for (const Workload& w : spec.workloads) {
    EXPECT_DOUBLE_EQ(EffectiveThresholds(spec, w).confidence, 1 - 0.05 / 9) << w.name;
  }
}

TEST(Family, TheRunConfidenceIsTheWholeVerdicts) {
  std::string text = kFamilySpec;
  text.replace(text.find("[run]\n"), 6, "[run]\nconfidence = 0.99\n");
  const Family f = FamilyOf(ParseSpecText(text, "x.toml"));
  EXPECT_EQ(f.checks, 9);
  EXPECT_DOUBLE_EQ(f.check_confidence, 1 - 0.01 / 9);
  EXPECT_DOUBLE_EQ(f.family_confidence, 0.99);
}

TEST(Family, AnOverrideKeepsItsOwnLevelAndTheFamilyBoundSaysWhatItCosts) {
  std::string text = kFamilySpec;
  text.replace(text.find("min_speedup = 1.0\n"), 18, "min_speedup = 1.0\nper_check_confidence = 0.9\n");
  const Spec spec = ParseSpecText(text, "x.toml");
  EXPECT_DOUBLE_EQ(EffectiveThresholds(spec, Named(spec, "b")).confidence, 0.9);
  EXPECT_DOUBLE_EQ(EffectiveThresholds(spec, Named(spec, "a")).confidence, 1 - 0.05 / 9);
  const Family f = FamilyOf(spec);
  // b's two checks at 10% each, the other seven at 0.05 / 9 each.
  EXPECT_NEAR(f.family_confidence, 1 - (2 * 0.1 + 7 * 0.05 / 9), 1e-12);
}

TEST(Family, NoisyCountersAreMembersAndExactOnesAreNot) {
  const Spec spec = ParseSpecText(R"(
[contenders.baseline]
argv = ["true"]

[contenders.candidate]
argv = ["true"]

[workloads.w]
args = ["w"]

[counters.objects]
unit = "objects"
exact = true

[counters.gcs]
unit = "runs"
exact = false

[thresholds.counters]
objects = 1.0
gcs = 1.2
)",
                                  "x.toml");
  const Family f = FamilyOf(spec);
  EXPECT_EQ(f.checks, 1);
  EXPECT_DOUBLE_EQ(f.check_confidence, 0.95);  // one check: the whole level
}

}  // namespace
}  // namespace pe::spec
