#include "engine/report/overview.h"

#include <gtest/gtest.h>

#include "tests/unit/report/sample_result.h"

namespace pe::report {

using model::Check;
using model::ExitCode;
using model::Failure;
using model::RunResult;
namespace {

TEST(OverviewTest, SummaryLineForEachExit) {
  RunResult result = testing::SampleResult();
  result.verdict.exit = ExitCode::kPass;
  EXPECT_EQ(SummaryLine(result), "PASS");
  result.verdict.exit = ExitCode::kThresholdMissed;
  EXPECT_EQ(SummaryLine(result), "FAIL: 1 threshold missed");
  result.verdict.checks.push_back(testing::CheckOf("tiny_graph", "min_win_rate", "w", 0.5, 0.9));
  Check skipped = testing::CheckOf("tiny_graph", "min_logic_speedup", "l", 0, 2);
  skipped.skipped = true;
  result.verdict.checks.push_back(skipped);
  EXPECT_EQ(SummaryLine(result), "FAIL: 2 thresholds missed");
  result.verdict.exit = ExitCode::kRunFailed;
  EXPECT_EQ(SummaryLine(result), "RUN FAILED");
  result.verdict.exit = ExitCode::kInterrupted;
  EXPECT_EQ(SummaryLine(result), "INTERRUPTED (results incomplete)");
  result.verdict.exit = ExitCode::kUnresolved;
  result.verdict.checks[0].state = Check::State::kUnresolved;  // the sample's missed check, now open
  result.verdict.checks[0].passed = false;
  EXPECT_EQ(SummaryLine(result),
            "UNRESOLVED: 1 check could not be shown either way at 95% confidence (exit 3; --unresolved=fail or pass "
            "to count it otherwise)");
}

TEST(OverviewTest, LogicNoteShortForm) {
  EXPECT_EQ(LogicNoteShortForm("startup-bound: startup is 96% of the median"), "n/a (startup-bound)");
  EXPECT_EQ(LogicNoteShortForm("no startup runs"), "n/a (no startup runs)");
  EXPECT_EQ(LogicNoteShortForm(""), "n/a");
}

TEST(OverviewTest, RowsFollowTheVerdict) {
  std::vector<WorkloadRow> rows = WorkloadRows(testing::SampleResult());
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].verdict, "(not gated)");
  EXPECT_EQ(rows[1].verdict, "pass");
  EXPECT_EQ(rows[1].logic_speedup, "n/a (startup-bound)");
  EXPECT_EQ(rows[3].verdict, "missed");
  EXPECT_EQ(rows[3].speedup, "8.42x");
  EXPECT_EQ(rows[3].rounds_won, "9/10");
  EXPECT_EQ(rows[4].verdict, "failed");
  EXPECT_EQ(rows[4].candidate_median, "-");
  EXPECT_EQ(rows[4].speedup, "-");
}

TEST(OverviewTest, WorkloadWithoutChecksHasNoVerdict) {
  RunResult result = testing::SampleResult();
  result.verdict.checks.clear();
  EXPECT_EQ(WorkloadRows(result)[2].verdict, "-");
}

TEST(OverviewTest, RunFailuresComeFirstAndNameTheirPlace) {
  RunResult result = testing::SampleResult();
  result.failures.push_back({Failure::Kind::kSpec, "", "", "bad spec", ""});
  result.failures.push_back({Failure::Kind::kSpawn, "", "bazel-diff-rs", "not found", ""});
  std::vector<const Failure*> failures = AllFailures(result);
  ASSERT_EQ(failures.size(), 3u);
  EXPECT_EQ(FailurePlace(*failures[0]), "run");
  EXPECT_EQ(FailurePlace(*failures[1]), "bazel-diff-rs");
  EXPECT_EQ(FailurePlace(*failures[2]), "huge_graph, bazel-diff-rs");
}

TEST(OverviewTest, RoundsLine) {
  EXPECT_EQ(RoundsLine(testing::SampleResult().settings), "10 rounds + 1 warm-up, alternate order, seed 42, scale 1");
}

}  // namespace
}  // namespace pe::report
