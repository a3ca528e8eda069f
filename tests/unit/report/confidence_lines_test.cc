// The family line and the power lines, formatted once for every reporter and explain.
#include "engine/report/confidence_lines.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "engine/report/reporter.h"
#include "stats/distributions.h"
#include "stats/sequential.h"

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

// The rule (docs/statistics.md, "Power in every report"): a figure that asks for a doubling
// beyond the bar, one not finite, or no shift of any size in these rounds is said plainly, with
// the noise and the rounds that would show 5% beyond the bar. The rounds are computed here the
// way the doc defines them: the median sequence's rounds at the share of rounds a 5% shift
// leaves on the bar's wrong side.
int RoundsFor5Percent(double sigma, double level) {
  return *stats::TrialsToExclude(stats::NormalCdf(-std::log(1.05) / sigma), 0.5, level);
}

Check Noisy(Check::Burden burden, std::optional<double> detectable, int rounds, double noise) {
  Check c = Open(burden, 0);
  c.bar = 1.01;
  c.detectable = detectable;
  c.rounds = rounds;
  c.noise = noise;
  return c;
}

TEST(ConfidenceLines, NoShiftOfAnySizeInTooFewRoundsIsSaidPlainly) {
  const double level = 1 - 0.05 / 19;
  const double sigma = std::log(1.41);  // 41% per round
  const Check c = Noisy(Check::Burden::kShowMissed, std::nullopt, 8, sigma);
  EXPECT_EQ(PowerLine(c), fmt::format("w: paired CPU-time ratio: could not have shown a regression of any size in "
                                      "these 8 rounds at 99.74% confidence (a unanimous series first resolves after "
                                      "12 rounds; noise 41% per round; about {} rounds would show a regression of "
                                      "6.0%)",
                                      RoundsFor5Percent(sigma, level)));
  EXPECT_EQ(*stats::MinTrialsToExclude(0.5, level), 12);  // what the line says
}

TEST(ConfidenceLines, AFigureOfADoublingOrMoreBeyondTheBarIsSaidPlainly) {
  const double level = 1 - 0.05 / 19;
  const double sigma = std::log(1.41);
  const std::string plain = fmt::format(
      "w: paired CPU-time ratio: could not have shown a regression smaller than 2.02x in these 30 rounds at 99.74% "
      "confidence (noise 41% per round; about {} rounds would show a regression of 6.0%)",
      RoundsFor5Percent(sigma, level));
  // The edge: 2x the bar is beyond meaning, just below it is still a figure.
  EXPECT_EQ(PowerLine(Noisy(Check::Burden::kShowMissed, 2 * 1.01, 30, sigma)), plain);
  EXPECT_EQ(PowerLine(Noisy(Check::Burden::kShowMissed, 1.99 * 1.01, 30, sigma)),
            "w: paired CPU-time ratio: would have shown a regression of 101% or more with 80% power at 99.74% "
            "confidence in these 30 rounds");
  EXPECT_EQ(PowerLine(Noisy(Check::Burden::kShowMissed, std::numeric_limits<double>::infinity(), 30, sigma)), plain);
  // The case: "a regression of 110907% or more" at 8 rounds.
  EXPECT_EQ(PowerLine(Noisy(Check::Burden::kShowMissed, 1110.07, 30, sigma)), plain);
  // A speed-up claim says the same for speed-ups.
  Check claim = Noisy(Check::Burden::kShowMet, 5.0, 30, sigma);
  claim.bar = 1.0;
  EXPECT_EQ(PowerLine(claim), fmt::format("w: median speedup: unresolved; could not have shown a speed-up smaller "
                                          "than 2.00x in these 30 rounds at 99.74% confidence (noise 41% per round; "
                                          "about {} rounds would show a speed-up of 1.05x)",
                                          RoundsFor5Percent(sigma, level)));
}

TEST(ConfidenceLines, AnOpenWinRateSaysWhichSpeedUpWouldHaveShownIt) {
  Check c = Open(Check::Burden::kShowMet, 1.0712);
  c.threshold = "min_win_rate";
  c.label = "win rate";
  c.unit = Check::Unit::kRate;
  c.bar = 0.6;
  c.noise = 0.03;
  EXPECT_EQ(PowerLine(c),
            "w: win rate: unresolved; would have shown a win rate above 60% for a speed-up of 1.07x or more with 80% "
            "power at 99.74% confidence in these 12 rounds");
  c.detectable.reset();  // no count of wins in these rounds clears the bar
  c.rounds = 8;
  const std::string line = PowerLine(c);
  EXPECT_EQ(line.rfind("w: win rate: unresolved; could not have shown a win rate above 60% for a speed-up of any size "
                       "in these 8 rounds at 99.74% confidence (a unanimous series first resolves after 12 rounds; "
                       "noise 3.0% per round; about ",
                       0),
            0u)
      << line;
  c.noise.reset();  // a file from before the noise was kept: nothing to say
  EXPECT_EQ(PowerLine(c), "");
}

Check Sweep(std::string threshold, Check::State state, double detectable, double bar) {
  Check c;
  c.workload = "grow";
  c.threshold = std::move(threshold);
  c.label = c.threshold == "max_cost_exponent" ? "cost exponent of new" : "median per-round scaling efficiency";
  c.unit = c.threshold == "max_cost_exponent" ? Check::Unit::kNumber : Check::Unit::kRate;
  c.burden = Check::Burden::kShowMet;
  c.state = state;
  c.bar = bar;
  c.interval = model::Interval{1, 0.9, 1.1, 0.95, "the sweep figure's own interval"};
  c.detectable = detectable;
  c.note = "95% interval 0.90 to 1.10";
  return c;
}

TEST(ConfidenceLines, SweepChecksSayWhatTheirIntervalCouldHaveShown) {
  EXPECT_EQ(PowerLine(Sweep("max_cost_exponent", Check::State::kPass, 1.3423, 1.2)),
            "grow: cost exponent of new: would have shown a miss at an exponent of 1.34 or more with 80% power at 95% "
            "confidence");
  EXPECT_EQ(PowerLine(Sweep("max_cost_exponent", Check::State::kUnresolved, 0.81, 1.2)),
            "grow: cost exponent of new: unresolved; would have shown it met at an exponent of 0.81 or less with 80% "
            "power at 95% confidence");
  EXPECT_EQ(PowerLine(Sweep("min_scaling_efficiency", Check::State::kPass, 0.52, 0.6)),
            "grow: median per-round scaling efficiency: would have shown a miss at an efficiency of 52% or less with "
            "80% power at 95% confidence");
  // An exponent a whole power of n beyond the bar, or an efficiency outside (0, 100%], is no figure.
  EXPECT_EQ(PowerLine(Sweep("max_cost_exponent", Check::State::kUnresolved, -3.5, 1.2)),
            "grow: cost exponent of new: unresolved; could not have shown it met at any sensible exponent at 95% "
            "confidence: its interval (95% interval 0.90 to 1.10) is too wide; more rounds or more points on the axis "
            "would narrow it");
  EXPECT_EQ(
      PowerLine(Sweep("min_scaling_efficiency", Check::State::kPass, -0.2, 0.6)),
      "grow: median per-round scaling efficiency: could not have shown a miss at any sensible efficiency at "
      "95% confidence: its interval (95% interval 0.90 to 1.10) is too wide; more rounds or more points on the axis "
      "would narrow it");
}

// One helper, every human-readable report: a sweep check's and an open win rate's lines reach
// the terminal, Markdown and HTML reports as they are.
TEST(ConfidenceLines, EveryReportShowsTheSweepAndWinRateLines) {
  RunResult r = Family(19, 1 - 0.05 / 19);
  r.verdict.exit = model::ExitCode::kUnresolved;
  Check wins = Open(Check::Burden::kShowMet, 1.0712);
  wins.threshold = "min_win_rate";
  wins.label = "win rate";
  wins.unit = Check::Unit::kRate;
  wins.bar = 0.6;
  wins.noise = 0.03;
  r.verdict.checks = {Sweep("max_cost_exponent", Check::State::kPass, 1.3423, 1.2), wins};
  for (const char* format : {"terminal", "markdown", "html"}) {
    const std::string text = FindFormat(format)->reporter->Render(r, {});
    for (const Check& c : r.verdict.checks) EXPECT_NE(text.find(PowerLine(c)), std::string::npos) << format << text;
  }
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
