// compare over the crafted results files: a pass, a regression with its lines, different
// specs, a failed run, and the unpaired figures themselves.
#include "engine/explain/compare.h"

#include <gtest/gtest.h>

#include "engine/explain/compare_text.h"
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
  EXPECT_EQ(c.verdict.lines[3], "work: peak RSS ratio NEW/OLD 1.75x is above the allowed 1.50x (over by 17%)");
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

TEST(Compare, TheSameFilesGiveTheSameBytes) {
  ExitCode exit{};
  EXPECT_EQ(Text("pass.json", "regressed.json", &exit), Text("pass.json", "regressed.json", &exit));
}

}  // namespace
}  // namespace pe::explain
