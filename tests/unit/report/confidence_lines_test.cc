// The family line and the power lines, formatted once for every reporter and explain.
#include "engine/report/confidence_lines.h"

#include <gtest/gtest.h>

namespace pe::report {
namespace {

using model::Check;
using model::RunResult;
using model::WorkloadResult;

RunResult Family(int checks, double check_level) {
  RunResult r;
  r.settings.confidence = 0.95;
  r.settings.family_checks = checks;
  r.settings.check_confidence = check_level;
  r.settings.family_confidence = 0.95;
  WorkloadResult a, b;
  a.name = "a";
  b.name = "b";
  a.thresholds.max_slowdown = b.thresholds.max_slowdown = 1.01;
  a.thresholds.confidence = b.thresholds.confidence = check_level;
  r.workloads = {a, b};
  return r;
}

TEST(ConfidenceLines, TheFamilyLineNamesTheWholeLevelTheChecksAndEachLevel) {
  EXPECT_EQ(FamilyLine(Family(19, 1 - 0.05 / 19)),
            "confidence: 95% for the whole verdict ([run] confidence), split across 19 checks that read an interval: "
            "each at 99.74% (union bound, docs/statistics.md)");
}

TEST(ConfidenceLines, AnOverrideIsNamedWithWhatTheChecksHoldTogether) {
  RunResult r = Family(2, 0.975);
  r.workloads[1].thresholds.confidence = 0.9;
  r.settings.family_confidence = 1 - 0.025 - 0.1;
  EXPECT_EQ(FamilyLine(r),
            "confidence: 95% for the whole verdict ([run] confidence), split across 2 checks that read an interval: "
            "each at 97.5% (union bound, docs/statistics.md); per-check override (per_check_confidence) on b: 90%; "
            "with the overrides the checks hold together at 88%");
}

TEST(ConfidenceLines, NoFamilyLineForAFileFromBeforeTheSplit) {
  RunResult r = Family(0, 0);
  EXPECT_EQ(FamilyLine(r), "");
}

Check Open(Check::Burden burden, double detectable) {
  Check c;
  c.workload = "w";
  c.label = burden == Check::Burden::kShowMissed ? "paired CPU-time ratio" : "median speedup";
  c.burden = burden;
  c.state = Check::State::kUnresolved;
  c.interval = model::Interval{1, 0.9, 1.1, 1 - 0.05 / 19, ""};
  c.rounds = 12;
  c.detectable = detectable;
  return c;
}

TEST(ConfidenceLines, PowerLinesSayWhatTheCheckCouldHaveSeen) {
  EXPECT_EQ(PowerLine(Open(Check::Burden::kShowMissed, 1.0342)),
            "w: paired CPU-time ratio: would have shown a regression of 3.4% or more with 80% power at 99.74% "
            "confidence in these 12 rounds");
  EXPECT_EQ(PowerLine(Open(Check::Burden::kShowMissed, 1.25)),
            "w: paired CPU-time ratio: would have shown a regression of 25% or more with 80% power at 99.74% "
            "confidence in these 12 rounds");
  EXPECT_EQ(PowerLine(Open(Check::Burden::kShowMet, 1.0712)),
            "w: median speedup: unresolved; would have shown a speed-up of 1.07x or more with 80% power at 99.74% "
            "confidence in these 12 rounds");
  Check none = Open(Check::Burden::kShowMissed, 1.03);
  none.detectable.reset();
  EXPECT_EQ(PowerLine(none), "");
}

TEST(ConfidenceLines, ReportNotesPutTheFamilyAndPowerLinesBeforeTheVerdictsNotes) {
  RunResult r = Family(19, 1 - 0.05 / 19);
  r.verdict.checks = {Open(Check::Burden::kShowMissed, 1.0342)};
  r.verdict.notes = {"a: every check resolved after 12 rounds"};
  const std::vector<std::string> notes = ReportNotes(r);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0], FamilyLine(r));
  EXPECT_EQ(notes[1], PowerLine(r.verdict.checks[0]));
  EXPECT_EQ(notes[2], "a: every check resolved after 12 rounds");
}

}  // namespace
}  // namespace pe::report
