// compare over the crafted results files: a pass, a regression with its lines, different
// specs, a failed run, and the unpaired figures themselves.
#include "engine/explain/compare.h"

#include <gtest/gtest.h>

#include <map>

#include "engine/analysis/analyze.h"
#include "engine/explain/compare_text.h"
#include "engine/explain/rounds.h"
#include "engine/gate/gate.h"
#include "engine/model/threshold_table.h"
#include "stats/descriptive.h"
#include "stats/mann_whitney.h"
#include "tests/unit/explain/golden.h"

namespace pe::explain {

using model::ExitCode;
using model::RunResult;
using model::Sample;
namespace {

using testing::ExpectGolden;
using testing::LoadResults;

std::string Text(const char* old_file, const char* new_file, ExitCode* exit) {
  const RunResult old_run = LoadResults(old_file);
  const RunResult new_run = LoadResults(new_file);
  const RunComparison c = CompareRuns(old_run, new_run);
  *exit = c.verdict.exit;
  return CompareText(old_run, old_file, new_run, new_file, c);
}

// Every check of the faster `work` is shown met; `tiny` did not change, so its min_speedup = 1.0
// (a speed-up to show) is unresolved, exit 3, as run says of a claim its sequence cannot show.
TEST(Compare, AFasterNewRunPassesAndAnUnchangedClaimIsUnresolved) {
  ExitCode exit{};
  const std::string text = Text("pass.json", "improved.json", &exit);
  EXPECT_EQ(exit, ExitCode::kUnresolved);
  ExpectGolden("compare_pass.txt", text);
  const RunComparison c = CompareRuns(LoadResults("pass.json"), LoadResults("improved.json"));
  for (const model::Check& check : c.verdict.checks) {
    if (check.workload == "work") EXPECT_TRUE(check.passed) << gate::CheckLine(check);
  }
  EXPECT_EQ(c.verdict.lines,
            std::vector<std::string>{
                "tiny: median speed-up over OLD (per-round ratios to the baseline) 1.00x (95% paired-ratio interval "
                "0.99x to 1.02x, unpaired bootstrap BCa, 2000 resamples, seed 42) is not shown to meet the required "
                "1.00x: unresolved; more rounds in each run would narrow the interval"});
  RunResult improved = LoadResults("improved.json");
  improved.workloads[2].thresholds.min_speedup.reset();
  EXPECT_EQ(CompareRuns(LoadResults("pass.json"), improved).verdict.exit, ExitCode::kPass);
}

// A count printed with its noun agrees with it: "1 round + 1 warm-up", not "1 rounds".
TEST(Compare, ARunOfOneRoundSaysRoundNotRounds) {
  RunResult old_run = LoadResults("pass.json");
  old_run.settings.rounds = 1;
  for (model::WorkloadResult& w : old_run.workloads) {
    if (w.comparison) w.comparison->rounds = 1;  // the header states the rounds the rows ran
  }
  const RunResult new_run = LoadResults("improved.json");
  const std::string text = CompareText(old_run, "pass.json", new_run, "improved.json", CompareRuns(old_run, new_run));
  EXPECT_NE(text.find("\nOLD pass.json: started 2024-05-01T12:00:00Z, 1 round + 1 warm-up, seed 42, bootstrap 2000 "
                      "resamples\n"),
            std::string::npos)
      << text;
}

TEST(Compare, ASlowerNewRunFailsWithTheGatesLines) {
  ExitCode exit{};
  const std::string text = Text("pass.json", "regressed.json", &exit);
  EXPECT_EQ(exit, ExitCode::kThresholdMissed);
  ExpectGolden("compare_regressed.txt", text);
  const RunComparison c = CompareRuns(LoadResults("pass.json"), LoadResults("regressed.json"));
  ASSERT_FALSE(c.verdict.lines.empty());
  EXPECT_EQ(c.verdict.lines[0],
            "work: median speed-up over OLD (per-round ratios to the baseline) 0.67x (95% paired-ratio interval 0.66x "
            "to 0.68x, unpaired bootstrap BCa, 2000 resamples, seed 42) is shown below the required 2.00x (short by "
            "67%)");
  EXPECT_EQ(c.verdict.lines[5], "work: peak RSS ratio NEW/OLD 1.75x is above the allowed 1.50x (over by 17%)");
  EXPECT_NE(text.find("\nFAIL: 6 thresholds missed\n"), std::string::npos) << text;
}

TEST(Compare, DifferentSpecsAreNamed) {
  EXPECT_EQ(SpecMismatch(LoadResults("pass.json"), LoadResults("improved.json")), "");
  EXPECT_EQ(SpecMismatch(LoadResults("pass.json"), LoadResults("other_spec.json")),
            "OLD and NEW are results of different specs: OLD ran specs/demo.toml (sha256 5f1c0a6e3b9d), NEW ran "
            "specs/other.toml (sha256 0d3e9b7a1c5f)");
  // Allowed anyway, the header says so and the figures are those of improved.json.
  ExitCode exit{};
  const std::string text = Text("pass.json", "other_spec.json", &exit);
  EXPECT_EQ(exit, ExitCode::kUnresolved);  // as pass.json against improved.json: tiny's claim is not shown
  EXPECT_NE(text.find("specs differ (--allow-different-spec): OLD specs/demo.toml"), std::string::npos) << text;
}

TEST(Compare, AFailedRunIsExitTwo) {
  const RunComparison c = CompareRuns(LoadResults("pass.json"), LoadResults("failed.json"));
  EXPECT_EQ(c.verdict.exit, ExitCode::kRunFailed);
  ASSERT_EQ(c.verdict.lines.size(), 1u);
  EXPECT_EQ(c.verdict.lines[0],
            "NEW: work: contender 'rewrite' was killed by signal 11 (Segmentation fault) in round 3");
  for (const WorkloadComparison& w : c.workloads) EXPECT_NE(w.workload, "work");
}

TEST(Compare, AnIncompleteRunIsExitTwo) {
  RunResult old_run = LoadResults("pass.json");
  old_run.complete = false;
  const RunComparison c = CompareRuns(old_run, LoadResults("improved.json"));
  EXPECT_EQ(c.verdict.exit, ExitCode::kRunFailed);
  EXPECT_EQ(c.verdict.lines.at(0), "OLD: the results are incomplete (the run stopped before its last round)");
}

TEST(Compare, WorkloadsInOnlyOneFileAreListedNotCompared) {
  RunResult old_run = LoadResults("pass.json");
  ASSERT_EQ(old_run.workloads.back().name, "cold");
  old_run.workloads.back().gate = false;  // listed, skipped; a gated one fails (next test)
  RunResult new_run = LoadResults("improved.json");
  new_run.workloads.pop_back();  // cold
  const RunComparison c = CompareRuns(old_run, new_run);
  EXPECT_EQ(c.only_in_old, std::vector<std::string>{"cold"});
  EXPECT_EQ(c.workloads.size(), 3u);
  EXPECT_EQ(c.verdict.exit, ExitCode::kUnresolved);  // tiny's claim alone, as in the full files
}

// NEW run with --workload (or a spec that dropped a workload) once passed compare while a gated
// workload went unmeasured.
TEST(Compare, AGatedWorkloadMissingFromNewIsExitTwo) {
  RunResult old_run = LoadResults("pass.json");
  ASSERT_EQ(old_run.workloads.back().name, "cold");
  old_run.workloads.back().gate = true;
  RunResult new_run = LoadResults("improved.json");
  new_run.workloads.pop_back();  // cold
  const RunComparison c = CompareRuns(old_run, new_run);
  EXPECT_EQ(c.verdict.exit, ExitCode::kRunFailed);
  EXPECT_EQ(c.verdict.lines, std::vector<std::string>{"NEW: cold: gated in OLD but missing from NEW; run it in NEW or "
                                                      "compare results of the same workloads"});
}

TEST(Compare, WhereTheBaselineRanInBothItComparesTheGatesPerRoundRatios) {
  const RunResult old_run = LoadResults("pass.json");
  const RunResult new_run = LoadResults("improved.json");
  const RunComparison c = CompareRuns(old_run, new_run);
  const WorkloadComparison& work = c.workloads.at(1);
  ASSERT_EQ(work.workload, "work");
  ASSERT_TRUE(work.paired);
  // OLD's candidate in the baseline's role, NEW's in the candidate's.
  EXPECT_EQ(work.figures.baseline, "rewrite");
  EXPECT_EQ(work.figures.candidate, "rewrite");
  // Each file's measured rounds, candidate / baseline, as the gate's sequences pair them.
  auto ratios = [](const RunResult& run, bool cpu) {
    std::map<int, double> original, rewrite;
    for (const Sample& s : run.workloads[1].samples) {
      if (s.warmup) continue;
      (s.contender == "original" ? original : rewrite)[s.round] = cpu ? s.user_s + s.sys_s : s.wall_s;
    }
    std::vector<double> out;
    for (const auto& [round, t] : rewrite) out.push_back(t / original.at(round));
    return out;
  };
  EXPECT_EQ(work.old_wall, ratios(old_run, false));
  EXPECT_EQ(work.new_wall, ratios(new_run, false));
  EXPECT_EQ(work.figures.speedup, stats::Median(ratios(old_run, false)) / stats::Median(ratios(new_run, false)));
  ASSERT_TRUE(work.figures.cpu_ratio);
  EXPECT_EQ(*work.figures.cpu_ratio, stats::Median(ratios(new_run, true)) / stats::Median(ratios(old_run, true)));
  std::vector<double> old_own;
  for (const Sample& s : old_run.workloads[1].samples) {
    if (!s.warmup && s.contender == "rewrite") old_own.push_back(s.wall_s);
  }
  EXPECT_EQ(work.raw_speedup, stats::Median(old_own) / stats::Median(MeasuredWalls(new_run.workloads[1], "rewrite")));
  const stats::MannWhitneyResult m = stats::MannWhitneyU(work.old_wall, work.new_wall);
  EXPECT_EQ(work.mann_whitney.p_value, m.p_value);
  ASSERT_TRUE(work.figures.speedup_ci);
  EXPECT_LT(work.figures.speedup_ci->low, work.figures.speedup);
  EXPECT_GT(work.figures.speedup_ci->high, work.figures.speedup);
  EXPECT_EQ(work.figures.speedup_ci->method, "unpaired bootstrap BCa, 2000 resamples, seed 42");
  EXPECT_TRUE(work.changed);  // improved.json is faster: its interval lies above 1
}

// Two contenders over `rounds` measured rounds (and a warm-up): the baseline takes 1 s of wall
// and 0.9 s of CPU, the candidate the same wall time and `cpu_factor` times the CPU (a parallel
// rewrite), each with its own noise; `machine` scales every time (a slower runner).
RunResult TwoContenderRun(double cpu_factor, double machine, int shift) {
  constexpr double kNoise[] = {0.02, -0.015, 0.01, -0.02, 0.005, 0.015, -0.01, 0.0, 0.012, -0.005, 0.018, -0.012};
  constexpr int kRounds = 15;
  RunResult r;
  r.spec_path = "same.toml";
  r.spec_digest = "d";
  r.baseline = "base";
  r.candidate = "cand";
  r.contenders = {{"base", "", {"base"}, {}}, {"cand", "", {"cand"}, {}}};
  r.settings.rounds = kRounds;
  r.settings.bootstrap_resamples = 2000;
  r.settings.seed = 7;
  r.complete = true;
  model::WorkloadResult w;
  w.name = "work";
  w.thresholds.max_slowdown = 1.05;
  for (int round = 0; round <= kRounds; ++round) {
    const double b = machine * (1 + kNoise[(round + shift) % 12]);
    const double k = machine * (1 + kNoise[(round + shift + 5) % 12]);
    w.samples.push_back({"base", round, round == 0, false, round % 2, b, 0.8 * b, 0.1 * b});
    w.samples.push_back(
        {"cand", round, round == 0, false, 1 - round % 2, k, 0.8 * k * cpu_factor, 0.1 * k * cpu_factor});
  }
  r.workloads.push_back(w);
  analysis::Analyze(r);
  r.verdict = gate::Judge(r);
  return r;
}

// OLD: the same run with the candidate's samples replaced by the baseline's own, round by
// round (baseline against itself); NEW: the run. compare must then judge what run judged.
RunResult BaselineAgainstItself(RunResult run) {
  model::WorkloadResult& w = run.workloads[0];
  std::map<int, Sample> base;
  for (const Sample& s : w.samples) {
    if (s.contender == "base") base[s.round] = s;
  }
  for (Sample& s : w.samples) {
    if (s.contender != "cand") continue;
    s.wall_s = base.at(s.round).wall_s;
    s.user_s = base.at(s.round).user_s;
    s.sys_s = base.at(s.round).sys_s;
  }
  return run;
}

// Issue 25: compare read wall time only, and passed a regression that run failed: a candidate
// using 30% more CPU in the same wall time. On the same data compare and run now agree, both
// ways.
TEST(Compare, GivesTheRunsVerdictOnTheSameData) {
  for (const double cpu_factor : {1.3, 1.0}) {
    SCOPED_TRACE(cpu_factor);
    const RunResult run = TwoContenderRun(cpu_factor, 1.0, 0);
    const RunComparison c = CompareRuns(BaselineAgainstItself(run), run);
    EXPECT_EQ(c.verdict.exit, run.verdict.exit);
    EXPECT_EQ(run.verdict.exit, cpu_factor > 1 ? ExitCode::kThresholdMissed : ExitCode::kPass);
    ASSERT_EQ(c.verdict.checks.size(), 1u);
    ASSERT_EQ(run.verdict.checks.size(), 1u);
    EXPECT_EQ(c.verdict.checks[0].threshold, "max_slowdown");
    EXPECT_EQ(c.verdict.checks[0].passed, run.verdict.checks[0].passed);
    // The wall time alone shows nothing: a reading of it would have passed the regression.
    const WorkloadComparison& w = c.workloads.at(0);
    ASSERT_TRUE(w.figures.speedup_ci);
    EXPECT_LT(w.figures.speedup_ci->low, 1.0);
    EXPECT_GT(w.figures.speedup_ci->high, 1.0);
  }
}

// Two runs of one commit on a runner that got 25% slower between them: the candidate's own
// times moved by a factor a Mann-Whitney test calls a change at any level, but the per-round
// ratios to the baseline did not, and compare claims no change and passes.
TEST(Compare, TwoRunsOfOneCommitOnADriftingMachineAreNoChange) {
  const RunResult old_run = TwoContenderRun(1.0, 1.0, 0);
  const RunResult new_run = TwoContenderRun(1.0, 1.25, 3);
  const RunComparison c = CompareRuns(old_run, new_run);
  EXPECT_EQ(c.verdict.exit, ExitCode::kPass);
  const WorkloadComparison& w = c.workloads.at(0);
  EXPECT_TRUE(w.paired);
  EXPECT_LT(w.raw_speedup, 0.85);  // the candidate's own wall time did move
  EXPECT_LT(
      stats::MannWhitneyU(MeasuredWalls(old_run.workloads[0], "cand"), MeasuredWalls(new_run.workloads[0], "cand"))
          .p_value,
      0.002);
  EXPECT_FALSE(w.changed);
  const std::string text = CompareText(old_run, "old.json", new_run, "new.json", c);
  EXPECT_NE(text.find("  change: none shown: every interval above holds 1.00x\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("a change"), std::string::npos) << text;
}

model::ContenderSummary& Summary(RunResult& run, const std::string& workload, const std::string& contender) {
  for (model::WorkloadResult& w : run.workloads) {
    if (w.name != workload) continue;
    for (model::ContenderSummary& s : w.summaries) {
      if (s.contender == contender) return s;
    }
  }
  throw std::runtime_error("no summary of " + contender + " on " + workload);
}

// `work` gated by `row` alone, at `bar`; the other workloads by nothing.
void OnlyThreshold(RunResult& run, const model::ThresholdRow& row, double bar) {
  for (model::WorkloadResult& w : run.workloads) {
    const double confidence = w.thresholds.confidence;
    w.thresholds = model::Thresholds{};
    w.thresholds.confidence = confidence;
    if (w.name == "work") w.thresholds.*row.bar = bar;
  }
}

// A serve workload: each measured round of the candidate carries its latencies.
void MakeServe(RunResult& run, double p99_s) {
  for (model::WorkloadResult& w : run.workloads) {
    if (w.name != "work") continue;
    w.kind = model::WorkloadResult::Kind::kServe;
    for (Sample& s : w.samples) s.serve = model::ServeFigures{.requests = 10, .p99_s = p99_s};
  }
}

const model::Check* CheckOf(const RunComparison& c, std::string_view threshold) {
  for (const model::Check& check : c.verdict.checks) {
    if (check.workload == "work" && check.threshold == threshold) return &check;
  }
  return nullptr;
}

TEST(Compare, EveryThresholdAloneIsJudgedOnTheSavedResults) {
  // Issue 24: compare once ignored max_instructions_ratio, max_allocations_ratio and
  // max_p99_ratio, and passed with each set to 0.001. Each threshold in turn, out of reach.
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    SCOPED_TRACE(std::string(row.key));
    RunResult old_run = LoadResults("pass.json");
    RunResult new_run = LoadResults("regressed.json");
    Summary(old_run, "work", "rewrite").instructions = 1000;
    Summary(new_run, "work", "rewrite").instructions = 1200;
    Summary(old_run, "work", "rewrite").own_instructions = 400;
    Summary(new_run, "work", "rewrite").own_instructions = 600;
    Summary(old_run, "work", "rewrite").allocation_calls = 50;
    Summary(new_run, "work", "rewrite").allocation_calls = 60;
    if (row.bar == &model::Thresholds::max_p99_ratio) {
      MakeServe(old_run, 0.010);
      MakeServe(new_run, 0.013);
    }
    OnlyThreshold(new_run, row, row.higher_is_better ? row.max == 1 ? 0.5 : 1000 : 0.001);
    const RunComparison c = CompareRuns(old_run, new_run);
    EXPECT_EQ(c.verdict.exit, ExitCode::kThresholdMissed);
    const model::Check* check = CheckOf(c, row.key);
    ASSERT_NE(check, nullptr);
    EXPECT_FALSE(check->skipped) << check->note;
    EXPECT_FALSE(check->passed);
    // A point row reads its own member of compare's model::Comparison, as the gate reads a run's.
    if (row.point != nullptr) {
      const WorkloadComparison& work = c.workloads.at(1);
      ASSERT_EQ(work.workload, "work");
      ASSERT_TRUE(work.figures.*row.point);
      EXPECT_EQ(check->measured, *(work.figures.*row.point));
    }
  }
}

TEST(Compare, ThresholdsWithoutTheirFiguresAreNamedAsSkippedInEveryOutput) {
  RunResult old_run = LoadResults("pass.json");
  RunResult new_run = LoadResults("regressed.json");
  for (model::WorkloadResult& w : new_run.workloads) {
    w.thresholds = model::Thresholds{};
    if (w.name != "work") continue;
    w.thresholds.max_instructions_ratio = w.thresholds.max_allocations_ratio = w.thresholds.max_p99_ratio = 0.001;
  }
  Summary(old_run, "work", "rewrite").measure_note = "not measurable: statically linked";
  const RunComparison c = CompareRuns(old_run, new_run);
  EXPECT_EQ(c.verdict.exit, ExitCode::kPass);
  const std::vector<std::string> expected = {
      "work: p99 latency ratio NEW/OLD not checked against 0.001x: not a serve workload",
      "work: instruction count ratio NEW/OLD not checked against 0.001x: OLD has no instruction count of 'rewrite' "
      "(not measurable: statically linked)",
      "work: allocation count ratio NEW/OLD not checked against 0.001x: OLD has no allocation count of 'rewrite' "
      "(not measurable: statically linked)",
  };
  std::vector<std::string> lines;
  for (const model::Check& check : c.verdict.checks) {
    EXPECT_TRUE(check.skipped);
    lines.push_back(gate::CheckLine(check));
  }
  EXPECT_EQ(lines, expected);
  const std::string text = CompareText(old_run, "pass.json", new_run, "regressed.json", c);
  for (const std::string& line : expected) EXPECT_NE(text.find("  " + line + "\n"), std::string::npos) << line;
}

TEST(Compare, JudgesACountAsTheRunGateDoesOnTheSameCounts) {
  // The run's gate reads candidate / baseline counts in one file; compare reads NEW / OLD of
  // the candidate's. Given the same two counts both must print the same figure and verdict.
  for (const double bar : {1.2, 2.0}) {
    SCOPED_TRACE(bar);
    RunResult run = LoadResults("pass.json");
    run.workloads[1].comparison->instructions_ratio = 1500.0 / 1000.0;
    run.workloads[1].comparison->allocations_ratio = 75.0 / 50.0;
    RunResult old_run = LoadResults("pass.json");
    RunResult new_run = LoadResults("pass.json");
    Summary(old_run, "work", "rewrite").instructions = 1000;
    Summary(new_run, "work", "rewrite").instructions = 1500;
    Summary(old_run, "work", "rewrite").allocation_calls = 50;
    Summary(new_run, "work", "rewrite").allocation_calls = 75;
    for (RunResult* r : {&run, &new_run}) {
      OnlyThreshold(*r, *model::FindThresholdRow("max_instructions_ratio"), bar);
      r->workloads[1].thresholds.max_allocations_ratio = bar;
    }
    const model::Verdict gated = gate::Judge(run);
    const RunComparison compared = CompareRuns(old_run, new_run);
    EXPECT_EQ(gated.exit, compared.verdict.exit);
    ASSERT_EQ(gated.checks.size(), 2u);
    ASSERT_EQ(compared.verdict.checks.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(gated.checks[i].threshold, compared.verdict.checks[i].threshold);
      EXPECT_EQ(gated.checks[i].measured, compared.verdict.checks[i].measured);
      EXPECT_EQ(gated.checks[i].passed, compared.verdict.checks[i].passed);
      EXPECT_EQ(gated.checks[i].state, compared.verdict.checks[i].state);
    }
  }
}

TEST(Compare, TheSameFilesGiveTheSameBytes) {
  ExitCode exit{};
  EXPECT_EQ(Text("pass.json", "regressed.json", &exit), Text("pass.json", "regressed.json", &exit));
}

}  // namespace
}  // namespace pe::explain
