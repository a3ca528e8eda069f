#include "engine/gate/gate.h"

#include <gtest/gtest.h>

namespace pe::gate {
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

TEST(Gate, PassesWhenEveryThresholdIsMet) {
  RunResult r;
  WorkloadResult w = Workload("hash", 1.8, 5, 5);
  w.thresholds.min_speedup = 1.0;
  w.thresholds.min_win_rate = 1.0;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kPass);
  EXPECT_TRUE(v.lines.empty());
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_EQ(CheckLine(v.checks[0]), "hash: median speedup 1.80x meets the required 1.00x");
  EXPECT_EQ(CheckLine(v.checks[1]), "hash: win rate 100% (5 of 5 rounds) meets the required 100%");
}

TEST(Gate, MissedThresholdNamesWorkloadValueBarAndMargin) {
  RunResult r;
  WorkloadResult w = Workload("generate-hashes-large", 0.94, 3, 5);
  w.thresholds.min_speedup = 1.0;
  w.thresholds.min_win_rate = 1.0;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.lines.size(), 2u);
  EXPECT_EQ(v.lines[0], "generate-hashes-large: median speedup 0.94x is below the required 1.00x (short by 6%)");
  EXPECT_EQ(v.lines[1],
            "generate-hashes-large: win rate 60% (3 of 5 rounds) is below the required 100% (short by 40 points)");
}

TEST(Gate, ANarrowMissNeverPrintsAsEqualToItsBar) {
  RunResult r;
  WorkloadResult w = Workload("w", 0.9973, 5, 5);
  w.thresholds.min_speedup = 1.0;
  r.workloads.push_back(w);
  EXPECT_EQ(Judge(r).lines.at(0), "w: median speedup 0.997x is below the required 1.000x (short by 0.3%)");
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

TEST(Gate, IntervalThresholds) {
  RunResult r;
  WorkloadResult w = Workload("w", 1.3, 5, 5);
  w.comparison->speedup_ci = Interval{1.3, 0.97, 1.6, 0.95, "bootstrap BCa"};
  w.comparison->cpu_ratio_ci = Interval{1.05, 1.03, 1.08, 0.99, "Hodges-Lehmann"};
  w.thresholds.min_speedup_ci = 1.0;
  w.thresholds.max_slowdown = 1.02;
  r.workloads.push_back(w);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.lines.size(), 2u);
  EXPECT_EQ(v.lines[0],
            "w: lower end of the 95% speedup interval 0.97x (bootstrap BCa, 0.97x to 1.60x) is below the required "
            "1.00x (short by 3%)");
  EXPECT_EQ(v.lines[1],
            "w: lower end of the 99% paired CPU-time ratio interval 1.03x (Hodges-Lehmann, 1.03x to 1.08x) is above the "
            "allowed 1.02x (over by 1.0%)");
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
            {"new", "scale", {{"threads", "2"}}, 1.31, 1.2, 1.42, 0.95, ""}};
  s.efficiencies = {{"new", {{"allocator", "system"}}, 2, 0.55}, {"new", {{"allocator", "mimalloc"}}, 2, 0.9},
                    {"new", {{"allocator", "system"}}, 4, 0.1}};
  r.sweeps.push_back(s);
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.checks.size(), 3u);
  ASSERT_EQ(v.lines.size(), 2u);
  EXPECT_EQ(v.lines[0],
            "dense: cost exponent of new (threads=2) 1.31 (95% interval 1.20 to 1.42) is above the allowed 1.20 "
            "(over by 9%)");
  EXPECT_EQ(v.lines[1],
            "dense: scaling efficiency of new at 2 threads (allocator=system) 55% is below the required 60% "
            "(short by 5 points)");
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

TEST(Gate, AcceptTurnsAMissIntoAPassThatSaysSo) {
  RunResult r;
  WorkloadResult w = Workload("w", 0.9, 0, 5);
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
