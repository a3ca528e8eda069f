#include "engine/gate/gate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/gate/unresolved.h"
#include "engine/model/count_ratio.h"
#include "stats/detectable.h"

namespace pe::gate {

using model::Check;
using model::Comparison;
using model::ContenderSummary;
using model::ExitCode;
using model::Failure;
using model::Interval;
using model::RunResult;
using model::SweepResult;
using model::Verdict;
using model::WorkloadResult;
namespace {

WorkloadResult Workload(const std::string& name, double speedup, int wins, int rounds) {
  WorkloadResult w;
  w.name = name;
  Comparison c;
  c.speedup = speedup;
  c.wins = wins;
  c.rounds = rounds;
  c.win_rate = static_cast<double>(wins) / rounds;
  w.comparison = c;
  return w;
}

// A comparison whose confidence sequences the test sets: the gate reads only these.
WorkloadResult Sequenced(const std::string& name, Interval speedup, Interval wins, int rounds) {
  WorkloadResult w = Workload(name, speedup.estimate, static_cast<int>(wins.estimate * rounds), rounds);
  w.comparison->speedup_cs = speedup;
  w.comparison->win_rate_cs = wins;
  return w;
}

TEST(Gate, PassesWhenEveryClaimIsShown) {
  RunResult r;
  WorkloadResult w = Sequenced("hash", {1.8, 1.5, 2.1, 0.95, ""}, {1.0, 0.62, 1.0, 0.95, ""}, 8);
  w.comparison->sign_test_p = 0.0078125;
  w.thresholds.min_speedup = 1.0;
  w.thresholds.min_win_rate = 0.5;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kPass);
  EXPECT_TRUE(v.lines.empty());
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_EQ(v.checks[0].state, Check::State::kPass);
  EXPECT_EQ(CheckLine(v.checks[0]),
            "hash: median speedup 1.80x (95% confidence sequence 1.50x to 2.10x, 8 rounds) is shown to meet the "
            "required 1.00x");
  EXPECT_EQ(CheckLine(v.checks[1]),
            "hash: win rate 100% (95% confidence sequence 62% to 100%, 8 rounds; 8 of 8 rounds, sign test p = "
            "0.00781) is shown to meet the required 50%");
}

TEST(Gate, AMissShownNamesWorkloadValueBarAndMargin) {
  RunResult r;
  WorkloadResult w = Sequenced("generate-hashes-large", {0.94, 0.9, 0.97, 0.95, ""}, {0.1, 0.0, 0.45, 0.95, ""}, 10);
  w.thresholds.min_speedup = 1.0;
  w.thresholds.min_win_rate = 0.5;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.lines.size(), 2u);
  EXPECT_EQ(v.lines[0],
            "generate-hashes-large: median speedup 0.94x (95% confidence sequence 0.90x to 0.97x, 10 rounds) is "
            "shown below the required 1.00x (short by 6%)");
  EXPECT_EQ(v.lines[1],
            "generate-hashes-large: win rate 10% (95% confidence sequence 0% to 45%, 10 rounds; 1 of 10 rounds) is "
            "shown below the required 50% (short by 40 points)");
}

TEST(Gate, AnUnresolvedSpeedupClaimIsExitThreeAndSaysWhatWouldResolveIt) {
  RunResult r;
  WorkloadResult w = Sequenced("w", {1.04, 0.97, 1.09, 0.95, ""}, {0.6, 0.3, 0.85, 0.95, ""}, 10);
  w.comparison->speedup_rounds_needed = 41;
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  r.settings.rounds = 10;
  r.settings.max_rounds = 30;
  r.machine.cores = 2;
  r.load = {{3, 3.24, 0.41, std::nullopt, std::nullopt}, {4, 1.0, 0.2, std::nullopt, std::nullopt}};
  const Verdict v = Judge(r);
  // Unresolved is its own exit code, 3, not 1: "could not show it here" is not "slower".
  EXPECT_EQ(v.exit, ExitCode::kUnresolved);
  ASSERT_EQ(v.checks.size(), 1u);
  EXPECT_EQ(v.checks[0].state, Check::State::kUnresolved);
  EXPECT_EQ(v.checks[0].rounds_needed, 41);
  ASSERT_EQ(v.lines.size(), 2u);
  EXPECT_EQ(v.lines.at(0),
            "w: median speedup 1.04x (95% confidence sequence 0.97x to 1.09x, 10 rounds) is not shown to meet the "
            "required 1.00x: unresolved; about 41 rounds would resolve it");
  EXPECT_EQ(v.lines.at(1),
            "w: min_speedup unresolved: about 41 rounds would resolve it and [run] max_rounds is 30: raise "
            "max_rounds; the machine was busy (load average up to 3.2 on 2 cores, other processes up to 41% of CPU "
            "time): a quieter runner narrows the spread; or loosen min_speedup (now 1.00x)");
}

// A count printed with its noun agrees with it: "after 1 round", "on 1 core", not "1 rounds".
TEST(Gate, OneRoundAndOneCoreAreSingularInTheNotes) {
  RunResult r;
  WorkloadResult w = Sequenced("w", {1.04, 0.97, 1.09, 0.95, ""}, {0.6, 0.3, 0.85, 0.95, ""}, 1);
  w.comparison->speedup_rounds_needed = 41;
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  r.workloads.push_back(Workload("resolved", 1.0, 1, 1));
  r.settings.rounds = 1;
  r.settings.max_rounds = 30;
  r.machine.cores = 1;
  r.load = {{0, 3.24, 0.41, std::nullopt, std::nullopt}};
  const Verdict v = Judge(r);
  ASSERT_EQ(v.lines.size(), 2u);
  EXPECT_NE(v.lines.at(1).find("the machine was busy (load average up to 3.2 on 1 core, other"), std::string::npos)
      << v.lines.at(1);
  EXPECT_NE(
      std::find(v.notes.begin(), v.notes.end(), "w: still unresolved after 1 round, the most [run] max_rounds allows"),
      v.notes.end());
  EXPECT_NE(std::find(v.notes.begin(), v.notes.end(),
                      "resolved: every check resolved after 1 round (between 1 and 30 allowed)"),
            v.notes.end());
}

// Rounds stopped once a settled miss fixed the exit code (RunResult::rounds_stopped): the open
// workload's note does not claim max_rounds was reached, and the run's note says why it stopped.
TEST(Gate, RoundsStoppedByASettledMissSayWhyInsteadOfNamingTheCap) {
  RunResult r;
  WorkloadResult w = Sequenced("w", {1.04, 0.97, 1.09, 0.95, ""}, {0.6, 0.3, 0.85, 0.95, ""}, 7);
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  r.settings.rounds = 7;
  r.settings.max_rounds = 30;
  r.rounds_stopped = "rounds stopped after 7 of up to 30, as a miss no round can undo fixes the exit code at 1";
  const Verdict v = Judge(r);
  EXPECT_NE(std::find(v.notes.begin(), v.notes.end(),
                      "w: still unresolved after 7 rounds of up to 30; more could not change the exit code"),
            v.notes.end());
  ASSERT_FALSE(v.notes.empty());
  EXPECT_EQ(v.notes.back(), r.rounds_stopped);
  EXPECT_EQ(std::count_if(v.notes.begin(), v.notes.end(),
                          [](const std::string& n) { return n.find("max_rounds allows") != std::string::npos; }),
            0);
}

// Which misses fix the exit code whatever more rounds show: one a confidence sequence shows, an
// exact counter's, a count's; not a peak RSS or p99 the rounds so far gave.
TEST(Gate, AMissIsSettledWhenNoRoundCanUndoIt) {
  auto miss = [](std::string threshold, Check::Burden burden) {
    Check c;
    c.threshold = std::move(threshold);
    c.burden = burden;
    c.state = Check::State::kFail;
    c.passed = false;
    return c;
  };
  EXPECT_TRUE(MissIsSettled(miss("min_speedup", Check::Burden::kShowMet)));
  EXPECT_TRUE(MissIsSettled(miss("max_slowdown", Check::Burden::kShowMissed)));
  EXPECT_TRUE(MissIsSettled(miss("counters.objects", Check::Burden::kPoint)));
  EXPECT_TRUE(MissIsSettled(miss("max_instructions_ratio", Check::Burden::kPoint)));
  EXPECT_TRUE(MissIsSettled(miss("max_allocations_ratio", Check::Burden::kPoint)));
  EXPECT_FALSE(MissIsSettled(miss("max_rss_ratio", Check::Burden::kPoint)));
  EXPECT_FALSE(MissIsSettled(miss("max_p99_ratio", Check::Burden::kPoint)));
  Check open = miss("min_speedup", Check::Burden::kShowMet);
  open.state = Check::State::kUnresolved;
  EXPECT_FALSE(MissIsSettled(open));
  Check passed = miss("counters.objects", Check::Burden::kPoint);
  passed.passed = true;
  passed.state = Check::State::kPass;
  EXPECT_FALSE(MissIsSettled(passed));
}

// Precedence 2 > 1 > 3 > 0: a claim shown worse beside one unresolved is a miss.
TEST(Gate, AMissOutranksAnUnresolvedClaim) {
  RunResult r;
  WorkloadResult open = Sequenced("open", {1.04, 0.97, 1.09, 0.95, ""}, {0.6, 0.3, 0.85, 0.95, ""}, 10);
  open.thresholds.min_speedup = 1.0;
  WorkloadResult slow = Sequenced("slow", {0.9, 0.85, 0.95, 0.95, ""}, {0.1, 0.0, 0.45, 0.95, ""}, 10);
  slow.thresholds.min_speedup = 1.0;
  r.workloads = {open, slow};
  EXPECT_EQ(Judge(r).exit, ExitCode::kThresholdMissed);
  r.workloads = {open};
  EXPECT_EQ(Judge(r).exit, ExitCode::kUnresolved);
  r.failures.push_back({Failure::Kind::kExit, "open", "new", "exited with status 1", ""});
  EXPECT_EQ(Judge(r).exit, ExitCode::kRunFailed);
}

TEST(UnresolvedPolicy, MapsExitThreeOnlyAndSaysSo) {
  EXPECT_EQ(ParseUnresolvedPolicy("exit3"), UnresolvedPolicy::kExit3);
  EXPECT_EQ(ParseUnresolvedPolicy("fail"), UnresolvedPolicy::kFail);
  EXPECT_EQ(ParseUnresolvedPolicy("pass"), UnresolvedPolicy::kPass);
  EXPECT_EQ(ParseUnresolvedPolicy("Pass"), std::nullopt);
  RunResult r;
  WorkloadResult w = Sequenced("w", {1.04, 0.97, 1.09, 0.95, ""}, {0.6, 0.3, 0.85, 0.95, ""}, 10);
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  const Verdict open = Judge(r);
  EXPECT_EQ(UnresolvedSummary(open, 0.95),
            "UNRESOLVED: 1 check could not be shown either way at 95% confidence (exit 3; --unresolved=fail or pass "
            "to count it otherwise)");
  Verdict v = open;
  ApplyUnresolvedPolicy(v, UnresolvedPolicy::kExit3, "--unresolved=exit3");
  EXPECT_EQ(v.exit, ExitCode::kUnresolved);
  v = open;
  ApplyUnresolvedPolicy(v, UnresolvedPolicy::kFail, "--unresolved=fail");
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  EXPECT_EQ(v.notes.back(), "--unresolved=fail: 1 unresolved check counted against the run (exit 1)");
  v = open;
  ApplyUnresolvedPolicy(v, UnresolvedPolicy::kPass, "PERFENGINE_UNRESOLVED=pass");
  EXPECT_EQ(v.exit, ExitCode::kPass);
  EXPECT_EQ(v.notes.back(), "PERFENGINE_UNRESOLVED=pass: 1 unresolved check counted as passed");
  // A miss is never turned into a pass.
  Verdict missed;
  missed.exit = ExitCode::kThresholdMissed;
  ApplyUnresolvedPolicy(missed, UnresolvedPolicy::kPass, "--unresolved=pass");
  EXPECT_EQ(missed.exit, ExitCode::kThresholdMissed);
}

TEST(Gate, AnUnresolvedRegressionCheckPassesAndSaysSoInTheNotes) {
  RunResult r;
  WorkloadResult w = Workload("w", 1.0, 5, 10);
  w.comparison->cpu_ratio_cs = Interval{1.012, 0.99, 1.04, 0.95, ""};
  w.thresholds.max_slowdown = 1.02;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kPass);
  ASSERT_EQ(v.checks.size(), 1u);
  EXPECT_EQ(v.checks[0].state, Check::State::kUnresolved);
  EXPECT_TRUE(v.checks[0].passed);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_EQ(v.notes[0],
            "w: paired CPU-time ratio 1.01x (95% confidence sequence 0.99x to 1.04x, 10 rounds) is unresolved "
            "against the allowed 1.02x: a regression is not shown, so it passes; no number of rounds would "
            "resolve it at this spread");
}

// [run] final_look: the sequence ran at half the check's alpha, and at the final round the
// Hodges-Lehmann interval at the other half adds what it can see (model/final_look.h).
TEST(Gate, AFinalLookSaysWhatItsBetterHalfCouldHaveSeen) {
  auto judged = [](int rounds) {
    RunResult r;
    r.settings.rounds = 5;
    r.settings.max_rounds = 16;
    r.settings.final_look = "signed-rank";
    WorkloadResult w = Workload("w", 1.0, 5, rounds);
    w.comparison->cpu_ratio_cs = Interval{1.0, 0.98, 1.015, 0.9986, ""};
    w.comparison->cpu_noise = 0.02;
    w.thresholds.max_slowdown = 1.01;
    r.workloads.push_back(w);
    return Judge(r).checks.at(0);
  };
  const double half = 1 - 0.0014 / 2;
  const Check last = judged(16), before = judged(14);
  ASSERT_TRUE(last.detectable && before.detectable);
  EXPECT_DOUBLE_EQ(*last.detectable, *stats::SignedRankDetectableRatioAbove(0.02, 16, 1.01, half));
  EXPECT_LT(*last.detectable, *stats::DetectableRatioAbove(0.02, 16, 1.01, half));
  EXPECT_DOUBLE_EQ(*before.detectable, *stats::DetectableRatioAbove(0.02, 14, 1.01, half));
}

TEST(Gate, ARegressionShownFails) {
  RunResult r;
  WorkloadResult w = Workload("w", 1.0, 5, 12);
  w.comparison->cpu_ratio_cs = Interval{1.05, 1.03, 1.08, 0.99, ""};
  w.thresholds.max_slowdown = 1.02;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  EXPECT_EQ(v.lines.at(0),
            "w: paired CPU-time ratio 1.05x (99% confidence sequence 1.03x to 1.08x, 12 rounds) is shown above the "
            "allowed 1.02x (over by 3%)");
}

// What a check could have seen (stats/detectable.h, at the check's own level and rounds): on a
// no-regression check that passed or stayed unresolved, and on an open speed-up claim; never on
// a miss shown, a speed-up shown, or a figure without its noise.
TEST(Gate, ChecksThatPassOrStayOpenSayWhatTheyCouldHaveSeen) {
  RunResult r;
  WorkloadResult w = Sequenced("w", {1.01, 0.97, 1.05, 0.9974, ""}, {0.5, 0.2, 0.8, 0.9974, ""}, 20);
  w.comparison->cpu_ratio_cs = Interval{1.0, 0.98, 1.015, 0.9974, ""};
  w.comparison->cpu_noise = 0.02;
  w.comparison->speedup_noise = 0.03;
  w.thresholds.max_slowdown = 1.02;
  w.thresholds.min_speedup = 1.0;
  w.thresholds.min_win_rate = 0.5;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  ASSERT_EQ(v.checks.size(), 3u);
  const Check& speedup = v.checks[0];
  const Check& wins = v.checks[1];
  const Check& slowdown = v.checks[2];
  ASSERT_EQ(slowdown.threshold, "max_slowdown");
  EXPECT_EQ(slowdown.state, Check::State::kPass);
  ASSERT_TRUE(slowdown.detectable.has_value());
  EXPECT_DOUBLE_EQ(*slowdown.detectable, *stats::DetectableRatioAbove(0.02, 20, 1.02, 0.9974));
  EXPECT_EQ(speedup.state, Check::State::kUnresolved);
  ASSERT_TRUE(speedup.detectable.has_value());
  EXPECT_DOUBLE_EQ(*speedup.detectable, *stats::DetectableRatioAbove(0.03, 20, 1.0, 0.9974));
  // An open win-rate claim: the speed-up (at the wall-time noise) whose win rate it would have shown.
  EXPECT_EQ(wins.state, Check::State::kUnresolved);
  ASSERT_TRUE(wins.detectable.has_value());
  EXPECT_DOUBLE_EQ(*wins.detectable, *stats::DetectableWinSpeedup(0.03, 20, 0.5, 0.9974));
  EXPECT_EQ(wins.noise.value_or(-1), 0.03);
  EXPECT_EQ(slowdown.noise.value_or(-1), 0.02);

  RunResult shown;
  WorkloadResult fast = Sequenced("w", {1.5, 1.3, 1.7, 0.95, ""}, {1, 0.8, 1, 0.95, ""}, 20);
  fast.comparison->cpu_ratio_cs = Interval{1.1, 1.05, 1.2, 0.95, ""};
  fast.comparison->cpu_noise = 0.02;
  fast.comparison->speedup_noise = 0.03;
  fast.thresholds.min_speedup = 1.0;
  fast.thresholds.max_slowdown = 1.02;
  shown.workloads.push_back(fast);
  for (const Check& c : Judge(shown).checks) EXPECT_FALSE(c.detectable.has_value()) << c.threshold;
}

// The run loop asks between rounds only which checks are open (JudgeOptions::power = false):
// every check, state, line and note is the full verdict's; only the power figures are left out.
TEST(Gate, WithoutPowerFiguresTheVerdictIsTheSame) {
  RunResult r;
  WorkloadResult open = Sequenced("open", {1.01, 0.97, 1.05, 0.9974, ""}, {0.5, 0.2, 0.8, 0.9974, ""}, 20);
  open.comparison->cpu_ratio_cs = Interval{1.0, 0.98, 1.015, 0.9974, ""};
  open.comparison->cpu_noise = 0.02;
  open.comparison->speedup_noise = 0.03;
  open.thresholds.max_slowdown = 1.02;
  open.thresholds.min_speedup = 1.0;
  open.thresholds.min_win_rate = 0.5;
  WorkloadResult slower = Sequenced("slower", {0.9, 0.85, 0.95, 0.9974, ""}, {0.1, 0.0, 0.3, 0.9974, ""}, 20);
  slower.comparison->cpu_ratio_cs = Interval{1.1, 1.05, 1.2, 0.9974, ""};
  slower.comparison->cpu_noise = 0.02;
  slower.thresholds.max_slowdown = 1.02;
  slower.counters = {{.name = "loop_us", .unit = "us", .exact = false, .max_ratio = 1.01}};
  model::CounterComparison loop;
  loop.name = "loop_us";
  loop.ratio_cs = Interval{1.0, 0.99, 1.005, 0.9974, ""};
  loop.noise = 0.004;
  slower.comparison->counters = {loop};
  r.workloads = {open, slower};
  const Verdict full = Judge(r);
  const Verdict states = Judge(r, {.power = false});
  EXPECT_EQ(states.exit, full.exit);
  EXPECT_EQ(states.lines, full.lines);
  EXPECT_EQ(states.notes, full.notes);
  ASSERT_EQ(states.checks.size(), full.checks.size());
  int with_power = 0;
  for (size_t i = 0; i < full.checks.size(); ++i) {
    EXPECT_EQ(states.checks[i].threshold, full.checks[i].threshold);
    EXPECT_EQ(states.checks[i].state, full.checks[i].state) << full.checks[i].threshold;
    EXPECT_EQ(states.checks[i].passed, full.checks[i].passed) << full.checks[i].threshold;
    EXPECT_EQ(states.checks[i].rounds_needed, full.checks[i].rounds_needed) << full.checks[i].threshold;
    EXPECT_FALSE(states.checks[i].detectable.has_value()) << full.checks[i].threshold;
    with_power += full.checks[i].detectable.has_value();
  }
  EXPECT_GE(with_power, 3);  // the full verdict has figures there to leave out (counter check included)
}

TEST(Gate, LevelsSplitAcrossChecksPrintWithTheirDigits) {
  RunResult r;
  WorkloadResult w = Workload("w", 1.0, 5, 12);
  w.comparison->cpu_ratio_cs = Interval{1.05, 1.03, 1.08, 1 - 0.05 / 19, ""};
  w.thresholds.max_slowdown = 1.02;
  r.workloads.push_back(w);
  EXPECT_EQ(Judge(r).lines.at(0),
            "w: paired CPU-time ratio 1.05x (99.74% confidence sequence 1.03x to 1.08x, 12 rounds) is shown above the "
            "allowed 1.02x (over by 3%)");
}

TEST(Gate, ANarrowMissNeverPrintsAsEqualToItsBar) {
  RunResult r;
  WorkloadResult w = Sequenced("w", {0.9973, 0.99, 0.998, 0.95, ""}, {0.0, 0.0, 0.3, 0.95, ""}, 20);
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  EXPECT_EQ(Judge(r).lines.at(0),
            "w: median speedup 0.997x (95% confidence sequence 0.990x to 0.998x, 20 rounds) is shown below the "
            "required 1.000x (short by 0.3%)");
}

TEST(Gate, AGatedWorkloadWithNothingMeasuredFailsTheRun) {
  RunResult r;
  WorkloadResult w;
  w.name = "w";
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kRunFailed);
  EXPECT_EQ(v.lines.at(0), "w: no measured rounds to check its thresholds against");
}

TEST(Gate, RssRatioIsAnUpperBound) {
  RunResult r;
  WorkloadResult w = Workload("w", 1.0, 5, 5);
  w.comparison->rss_ratio = 1.32;
  w.thresholds.max_rss_ratio = 1.2;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.lines.size(), 1u);
  EXPECT_EQ(v.lines[0], "w: peak RSS ratio 1.32x is above the allowed 1.20x (over by 10%)");
}

TEST(Gate, StartupBoundLogicIsReportedNotInvented) {
  RunResult r;
  WorkloadResult w = Workload("w", 1.1, 5, 5);
  w.comparison->logic_note = "startup-bound: too little work after start-up";
  w.thresholds.min_logic_speedup = 1.0;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kPass);
  ASSERT_EQ(v.checks.size(), 1u);
  EXPECT_TRUE(v.checks[0].skipped);
  EXPECT_EQ(CheckLine(v.checks[0]),
            "w: startup-adjusted speedup not checked against 1.00x: startup-bound: too little work after start-up");
}

TEST(Gate, UngatedWorkloadsAreNotChecked) {
  RunResult r;
  WorkloadResult w = Workload("w", 0.5, 0, 5);
  w.gate = false;
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  EXPECT_EQ(Judge(r).exit, ExitCode::kPass);
}

TEST(Gate, FailureIsExitTwoWhateverTheFigures) {
  RunResult r;
  WorkloadResult w = Workload("w", 2.0, 5, 5);
  w.thresholds.min_speedup = 1.0;
  w.failures.push_back({Failure::Kind::kExit, "w", "candidate", "exited with status 3", "boom"});
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kRunFailed);
  ASSERT_EQ(v.lines.size(), 1u);
  EXPECT_EQ(v.lines[0], "w: contender 'candidate' exited with status 3");
}

TEST(Gate, InterruptWinsOverFailure) {
  RunResult r;
  r.failures.push_back({Failure::Kind::kInterrupted, "", "", "interrupted by signal 2 (Interrupt)", ""});
  EXPECT_EQ(Judge(r).exit, ExitCode::kInterrupted);
}

}  // namespace
}  // namespace pe::gate

namespace pe::gate {
namespace {

TEST(Gate, SweepGatesReadTheCandidatesFitsAndEfficiencies) {
  RunResult r;
  r.baseline = "old";
  r.candidate = "new";
  SweepResult s;
  s.name = "dense";
  s.max_cost_exponent = 1.2;
  s.min_scaling_efficiency = 0.6;
  s.efficiency_threads = 2;
  s.fits = {{"old", "scale", {}, 1.5, 1.4, 1.6, 0.95, ""},  // the baseline is not gated
            {"new", "scale", {{"threads", "2"}}, 1.31, 1.22, 1.42, 0.95, ""}};
  s.efficiencies = {{"new", {{"allocator", "system"}}, 2, 0.55, Interval{0.55, 0.5, 0.58, 0.95, ""}},
                    {"new", {{"allocator", "mimalloc"}}, 2, 0.9, Interval{0.9, 0.8, 0.95, 0.95, ""}},
                    {"new", {{"allocator", "system"}}, 4, 0.1, Interval{0.1, 0.05, 0.15, 0.95, ""}}};
  r.sweeps.push_back(s);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.checks.size(), 3u);
  ASSERT_EQ(v.lines.size(), 2u) << ::testing::PrintToString(v.lines);
  EXPECT_EQ(v.lines[0],
            "dense: cost exponent of new (threads=2) 1.31 (95% interval 1.22 to 1.42) is shown above the allowed "
            "1.20 (over by 9%)");
  EXPECT_EQ(v.lines[1],
            "dense: median per-round scaling efficiency of new at 2 threads (allocator=system) 55% (95% interval "
            "50% to 58%) is shown below the required 60% (short by 5 points)");
  EXPECT_EQ(v.checks[2].state, Check::State::kPass);
}

// Burden of proof on sweeps: the whole interval within the bar passes, wholly beyond fails,
// straddling it (or no interval at all) is unresolved, exit 3.
TEST(Gate, SweepChecksHaveThreeStatesFromTheirIntervals) {
  auto judge = [](double low, double high) {
    RunResult r;
    r.candidate = "new";
    SweepResult s;
    s.name = "grow";
    s.max_cost_exponent = 1.2;
    const double k = std::isnan(low) ? 1.5 : (low + high) / 2;
    s.fits = {{"new", "scale", {}, k, low, high, 0.95, "3 points fit exactly: no interval for k"}};
    r.sweeps.push_back(s);
    return Judge(r);
  };
  EXPECT_EQ(judge(0.9, 1.1).exit, ExitCode::kPass);
  // What it could have seen: passed, the exponent that would have been shown above the bar.
  EXPECT_DOUBLE_EQ(judge(0.9, 1.1).checks.at(0).detectable.value(),
                   stats::DetectableBeyondInterval(1.0, 0.9, 1.1, 0.95, 1.2, true));
  EXPECT_EQ(judge(1.3, 1.5).exit, ExitCode::kThresholdMissed);
  EXPECT_FALSE(judge(1.3, 1.5).checks.at(0).detectable.has_value());  // a miss shown states none
  // The case: 2.01 with its own interval -1.17 to 5.19 is not shown either way.
  const Verdict open = judge(-1.17, 5.19);
  EXPECT_EQ(open.exit, ExitCode::kUnresolved);
  EXPECT_EQ(open.checks.at(0).state, Check::State::kUnresolved);
  // Unresolved: the exponent at or below which it would have been shown met.
  EXPECT_DOUBLE_EQ(judge(0.8, 1.4).checks.at(0).detectable.value(),
                   stats::DetectableBeyondInterval(1.1, 0.8, 1.4, 0.95, 1.2, false));
  // Its interval, 6.36 wide, is wider than any scaling law allows (scaling_bounds.h): it says so.
  EXPECT_EQ(open.lines.at(0),
            "grow: cost exponent of new: no scaling law fits these points (its 95% interval for k, -1.17 to 5.19, is "
            "wider than 1.0), so it cannot be judged against the allowed 1.20: unresolved; more rounds or more points "
            "on the axis would narrow its interval");
  const Verdict straddles = judge(0.8, 1.4);  // 0.6 wide: a law, not yet shown within the bar
  EXPECT_EQ(straddles.lines.at(0),
            "grow: cost exponent of new 1.10 (95% interval 0.80 to 1.40) is not shown to meet the allowed 1.20: "
            "unresolved; more rounds or more points on the axis would narrow its interval");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Verdict none = judge(nan, nan);
  EXPECT_EQ(none.exit, ExitCode::kUnresolved);
  EXPECT_EQ(none.checks.at(0).note, "no scaling law fits these points (3 points fit exactly: no interval for k)");

  RunResult r;
  r.candidate = "new";
  SweepResult s;
  s.name = "par";
  s.min_scaling_efficiency = 0.6;
  s.efficiency_threads = 4;
  s.efficiencies = {{"new", {}, 4, 0.7, Interval{0.7, 0.55, 0.8, 0.95, ""}}};
  r.sweeps.push_back(s);
  EXPECT_EQ(Judge(r).exit, ExitCode::kUnresolved);
  r.sweeps[0].efficiencies[0].interval = Interval{0.7, 0.65, 0.8, 0.95, ""};
  EXPECT_EQ(Judge(r).exit, ExitCode::kPass);
}

// Issue 42, item 7: a sweep threshold cannot judge a figure that means nothing. An exponent
// interval of -16.69 to 24.86 lies wholly under a bar of 30 and passed; a scaling efficiency
// of 10% to 95% passed a bar of 5%. Both are unresolved now, and their lines say why, in the
// words the sweep's reports use, instead of printing the figure.
TEST(Gate, SweepChecksCannotJudgeAFigureWhoseIntervalIsTooWide) {
  RunResult r;
  r.candidate = "new";
  SweepResult s;
  s.name = "grow";
  s.max_cost_exponent = 30;
  s.fits = {{"new", "scale", {}, 4.08, -16.69, 24.86, 0.95, ""}};
  r.sweeps.push_back(s);
  Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kUnresolved);
  ASSERT_EQ(v.checks.size(), 1u);
  EXPECT_EQ(v.checks[0].state, Check::State::kUnresolved);
  EXPECT_TRUE(TooWideToJudge(v.checks[0]));
  EXPECT_DOUBLE_EQ(v.checks[0].measured, 4.08);  // the results file keeps the numbers
  EXPECT_DOUBLE_EQ(v.checks[0].interval->low, -16.69);
  EXPECT_EQ(v.lines.at(0),
            "grow: cost exponent of new: no scaling law fits these points (its 95% interval for k, -16.69 to 24.86, "
            "is wider than 1.0), so it cannot be judged against the allowed 30.00: unresolved; more rounds or more "
            "points on the axis would narrow its interval");

  RunResult e;
  e.candidate = "new";
  SweepResult par;
  par.name = "par";
  par.min_scaling_efficiency = 0.05;
  par.efficiency_threads = 4;
  par.efficiencies = {{"new", {}, 4, 0.5, Interval{0.5, 0.1, 0.95, 0.95, ""}}};
  e.sweeps.push_back(par);
  v = Judge(e);
  EXPECT_EQ(v.exit, ExitCode::kUnresolved);
  EXPECT_EQ(v.lines.at(0),
            "par: median per-round scaling efficiency of new at 4 threads: no scaling efficiency can be read from "
            "these rounds (its 95% interval, 10% to 95%, is wider than 50 points), so it cannot be judged against the "
            "required 5%: unresolved; more rounds or more points on the axis would narrow its interval");
  // 50 points wide is within the bound: judged as before.
  e.sweeps[0].efficiencies[0].interval = Interval{0.5, 0.25, 0.75, 0.95, ""};
  EXPECT_EQ(Judge(e).exit, ExitCode::kPass);
}

}  // namespace
}  // namespace pe::gate

namespace pe::gate {
namespace {

TEST(Gate, CountRatiosAreUpperBoundsAndMissingCountsSayWhy) {
  RunResult r;
  WorkloadResult w = Workload("w", 1.0, 3, 5);
  w.comparison->instructions_ratio = 1.25;
  w.thresholds.max_instructions_ratio = 1.01;
  w.thresholds.max_allocations_ratio = 1.0;
  ContenderSummary s;
  s.contender = "candidate";
  s.measure_note = "not measurable: statically linked";
  w.summaries.push_back(s);
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_EQ(v.lines.at(0), "w: instruction count ratio 1.25x is above the allowed 1.01x (over by 24%)");
  EXPECT_TRUE(v.checks[1].skipped);
  EXPECT_EQ(CheckLine(v.checks[1]),
            "w: allocation count ratio not checked against 1.00x: candidate: not measurable: statically linked");
}

// An exact counter as analysis::CompareCounters leaves it: the ratio is model::CountRatio's.
WorkloadResult ExactCounter(double baseline, double candidate) {
  WorkloadResult w = Workload("w", 1.0, 3, 5);
  w.counters.push_back({"deopts", "deopts", true, 1.0});
  model::CounterComparison cc;
  cc.name = "deopts";
  cc.baseline = baseline;
  cc.candidate = candidate;
  cc.ratio = model::CountRatio(baseline, candidate);
  w.comparison->counters.push_back(cc);
  return w;
}

TEST(Gate, AnExactCounterThatStayedAtZeroPasses) {
  RunResult r;
  r.workloads.push_back(ExactCounter(0, 0));
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kPass);
  ASSERT_EQ(v.checks.size(), 1u);
  EXPECT_FALSE(v.checks[0].skipped);
  EXPECT_EQ(CheckLine(v.checks[0]),
            "w: deopts ratio 1.00x (candidate 0 deopts, baseline 0 deopts) meets the allowed 1.00x");
}

TEST(Gate, AnExactCounterThatGrewFromZeroFailsAnyBarSayingZeroToFive) {
  RunResult r;
  r.workloads.push_back(ExactCounter(0, 5));
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.lines.size(), 1u);
  EXPECT_EQ(v.lines[0],
            "w: deopts ratio unbounded (grew from 0 to 5 deopts, baseline to candidate) is above the allowed 1.00x "
            "(growth from 0 fails any ratio bar)");
  // No bar, however generous, holds growth from 0.
  r.workloads[0].counters[0].max_ratio = 1e9;
  EXPECT_EQ(Judge(r).exit, ExitCode::kThresholdMissed);
}

TEST(Gate, AnAllocationCountThatGrewFromZeroFailsAnyBar) {
  RunResult r;
  WorkloadResult w = Workload("w", 1.0, 3, 5);
  w.comparison->allocations_ratio = model::CountRatio(0, 3);
  w.thresholds.max_allocations_ratio = 100;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.lines.size(), 1u);
  EXPECT_EQ(v.lines[0],
            "w: allocation count ratio unbounded is above the allowed 100.0x (growth from 0 fails any ratio bar)");
}

TEST(Gate, FiguresPrintInTheSharedUnitsAndABarWithTheDecimalsItWasWrittenWith) {
  // A passing ratio from 10 up prints with one decimal, as every report prints it.
  EXPECT_EQ(CheckLine(MakeCheck("w", "max_rss_ratio", "peak RSS ratio", 12.4, 20, false)),
            "w: peak RSS ratio 12.4x meets the allowed 20.0x");
  // A bar of 1.005 is not "1.00x".
  EXPECT_EQ(CheckLine(MakeCheck("w", "max_rss_ratio", "peak RSS ratio", 1.0, 1.005, false)),
            "w: peak RSS ratio 1.00x meets the allowed 1.005x");
  EXPECT_EQ(CheckLine(MakeCheck("w", "max_rss_ratio", "peak RSS ratio", 1.0051, 1.005, false)),
            "w: peak RSS ratio 1.0051x is above the allowed 1.0050x (over by 0.0%)");
  EXPECT_EQ(CheckLine(MakeCheck("w", "max_rss_ratio", "peak RSS ratio", 12.33, 12.4, true)),
            "w: peak RSS ratio 12.3x is below the required 12.4x (short by 0.6%)");
}

TEST(Gate, EachThresholdHasItsUnitAndOnlyCostRegressionsAreProfiled) {
  EXPECT_EQ(UnitOf("min_speedup"), Check::Unit::kRatio);
  EXPECT_EQ(UnitOf("min_win_rate"), Check::Unit::kRate);
  EXPECT_EQ(UnitOf("min_scaling_efficiency"), Check::Unit::kRate);
  EXPECT_EQ(UnitOf("max_cost_exponent"), Check::Unit::kNumber);
  EXPECT_EQ(MakeCheck("w", "min_win_rate", "win rate", 0.4, 0.5, true).unit, Check::Unit::kRate);
  for (const char* key : {"max_slowdown", "max_instructions_ratio", "max_allocations_ratio"}) {
    EXPECT_TRUE(ProfileExplains(MakeCheck("w", key, "x", 2, 1, false))) << key;
  }
  for (const char* key : {"min_speedup", "max_rss_ratio", "max_p99_ratio", "max_cost_exponent"}) {
    EXPECT_FALSE(ProfileExplains(MakeCheck("w", key, "x", 2, 1, false))) << key;
  }
}

// Accepting a miss accepts only the miss: a claim left unresolved beside it keeps exit 3.
TEST(Gate, AcceptLeavesAnUnresolvedClaimUnresolved) {
  RunResult r;
  WorkloadResult missed = Sequenced("a", {0.9, 0.85, 0.95, 0.95, ""}, {0.0, 0.0, 0.3, 0.95, ""}, 10);
  missed.thresholds.min_speedup = 1.0;
  WorkloadResult open = Sequenced("b", {1.04, 0.97, 1.09, 0.95, ""}, {0.6, 0.3, 0.85, 0.95, ""}, 10);
  open.thresholds.min_speedup = 1.0;
  r.workloads = {missed, open};
  Verdict v = Judge(r);
  ASSERT_EQ(v.exit, ExitCode::kThresholdMissed);
  Accept(v, "--accept-regression");
  EXPECT_EQ(v.exit, ExitCode::kUnresolved);
  EXPECT_TRUE(v.accepted);
}

TEST(Gate, AcceptTurnsAMissIntoAPassThatSaysSo) {
  RunResult r;
  WorkloadResult w = Sequenced("w", {0.9, 0.85, 0.95, 0.95, ""}, {0.0, 0.0, 0.3, 0.95, ""}, 10);
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  Verdict v = Judge(r);
  Accept(v, "--accept-regression");
  EXPECT_EQ(v.exit, ExitCode::kPass);
  EXPECT_TRUE(v.accepted);
  EXPECT_EQ(v.accepted_by, "--accept-regression");
  EXPECT_EQ(v.lines.size(), 1u);  // what was accepted is still there to report
  Verdict failed;
  failed.exit = ExitCode::kRunFailed;
  Accept(failed, "--accept-regression");
  EXPECT_EQ(failed.exit, ExitCode::kRunFailed);  // a broken run is never accepted
  EXPECT_FALSE(failed.accepted);
}

}  // namespace
}  // namespace pe::gate

namespace pe::gate {
namespace {

TEST(CheckThresholds, EveryThresholdSetGetsACheckInTheTablesOrderEvenWhenNothingCanReadIt) {
  // A reader that judges nothing (a results file without the figures) still yields one named,
  // skipped check per threshold in force, never silence.
  model::Thresholds t;
  t.max_allocations_ratio = 1.1;
  t.min_speedup = 1.2;
  t.max_p99_ratio = 1.3;
  const std::vector<Check> checks =
      CheckThresholds("w", t, [](const model::ThresholdRow&, double) { return std::optional<Check>(); });
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(CheckLine(checks[0]),
            "w: median speedup not checked against 1.20x: not evaluated here: nothing in these results can judge it");
  EXPECT_EQ(checks[1].threshold, "max_p99_ratio");
  EXPECT_EQ(checks[2].threshold, "max_allocations_ratio");
  for (const Check& c : checks) {
    EXPECT_TRUE(c.skipped);
    EXPECT_TRUE(c.passed);
  }
}

}  // namespace
}  // namespace pe::gate
