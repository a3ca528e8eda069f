// compare over the crafted results files: a pass, a regression with its lines, different
// specs, a failed run, and the unpaired figures themselves.
#include "engine/explain/compare.h"

#include <gtest/gtest.h>

#include "engine/explain/compare_text.h"
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

TEST(Compare, AFasterNewRunPasses) {
  ExitCode exit{};
  const std::string text = Text("pass.json", "improved.json", &exit);
  EXPECT_EQ(exit, ExitCode::kPass);
  ExpectGolden("compare_pass.txt", text);
  EXPECT_EQ(text.substr(text.size() - 6), "\nPASS\n");
}

TEST(Compare, ASlowerNewRunFailsWithTheGatesLines) {
  ExitCode exit{};
  const std::string text = Text("pass.json", "regressed.json", &exit);
  EXPECT_EQ(exit, ExitCode::kThresholdMissed);
  ExpectGolden("compare_regressed.txt", text);
  const RunComparison c = CompareRuns(LoadResults("pass.json"), LoadResults("regressed.json"));
  ASSERT_FALSE(c.verdict.lines.empty());
  EXPECT_EQ(c.verdict.lines[0], "work: median speedup over OLD 0.67x is below the required 2.00x (short by 67%)");
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
  EXPECT_EQ(exit, ExitCode::kPass);
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
  EXPECT_EQ(c.verdict.exit, ExitCode::kPass);
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

TEST(Compare, FiguresAreTheCandidatesUnpairedTimes) {
  const RunResult old_run = LoadResults("pass.json");
  const RunResult new_run = LoadResults("improved.json");
  const RunComparison c = CompareRuns(old_run, new_run);
  const WorkloadComparison& work = c.workloads.at(1);
  ASSERT_EQ(work.workload, "work");
  std::vector<double> old_wall, new_wall;
  for (const Sample& s : old_run.workloads[1].samples) {
    if (!s.warmup && s.contender == "rewrite") old_wall.push_back(s.wall_s);
  }
  for (const Sample& s : new_run.workloads[1].samples) {
    if (!s.warmup && s.contender == "rewrite") new_wall.push_back(s.wall_s);
  }
  EXPECT_EQ(work.old_wall, old_wall);
  EXPECT_EQ(work.raw_speedup, stats::Median(old_wall) / stats::Median(new_wall));
  // The baseline ran in both files: the speed-up is the ratio of the candidate's and the
  // baseline's own OLD/NEW ratios, so a machine that got faster is not a speed-up.
  std::vector<double> old_base, new_base;
  for (const Sample& s : old_run.workloads[1].samples) {
    if (!s.warmup && s.contender == "original") old_base.push_back(s.wall_s);
  }
  for (const Sample& s : new_run.workloads[1].samples) {
    if (!s.warmup && s.contender == "original") new_base.push_back(s.wall_s);
  }
  ASSERT_TRUE(work.control.has_value());
  EXPECT_EQ(*work.control, stats::Median(old_base) / stats::Median(new_base));
  EXPECT_EQ(work.speedup, work.raw_speedup / *work.control);
  const stats::MannWhitneyResult m = stats::MannWhitneyU(old_wall, new_wall);
  EXPECT_EQ(work.mann_whitney.p_value, m.p_value);
  EXPECT_EQ(work.superiority, 1.0);  // every NEW run beat every OLD run
  ASSERT_TRUE(work.speedup_ci);
  EXPECT_LT(work.speedup_ci->low, work.speedup);
  EXPECT_GT(work.speedup_ci->high, work.speedup);
  EXPECT_EQ(work.speedup_ci->method, "unpaired bootstrap BCa, 2000 resamples, seed 42");
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
