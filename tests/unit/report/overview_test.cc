#include "engine/report/overview.h"

#include <gtest/gtest.h>

#include <limits>

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

// Exit 0 with no check judged is not a plain PASS: a gate whose thresholds were dropped would
// otherwise read as green in the terminal, the Markdown comment and the HTML report alike.
TEST(OverviewTest, APassThatJudgedNothingSaysNothingWasGated) {
  RunResult result = testing::SampleResult();
  result.verdict.exit = ExitCode::kPass;
  for (Check& c : result.verdict.checks) c.skipped = true;
  EXPECT_EQ(SummaryLine(result), "PASS: every check was skipped, so nothing was gated");
  result.verdict.checks.clear();
  EXPECT_EQ(SummaryLine(result), "PASS: no threshold applies, so nothing was gated");
  result.verdict.checks.push_back(testing::CheckOf("tiny_graph", "min_speedup", "median speedup", 3, 2));
  EXPECT_EQ(SummaryLine(result), "PASS");
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
  ASSERT_EQ(rows[0].figures.size(), 1u);
  EXPECT_EQ(rows[0].figures[0].check, "median per-round speed-up (information)");
  EXPECT_EQ(rows[1].verdict, "pass");
  EXPECT_EQ(rows[3].verdict, "missed");
  ASSERT_EQ(rows[3].figures.size(), 1u);
  EXPECT_EQ(rows[3].figures[0].check, "median speedup (min_speedup)");
  EXPECT_EQ(rows[3].figures[0].verdict, "missed");
  EXPECT_EQ(rows[3].rounds, "10");
  EXPECT_EQ(rows[4].verdict, "failed");
  EXPECT_EQ(rows[4].candidate_median, "-");
  EXPECT_TRUE(rows[4].figures.empty());
}

// One figure per check (issue 42 item 1): each gated check's line shows the figure the check
// read, with its confidence sequence, never the ratio of medians; the workload's cells once.
TEST(OverviewTest, EachCheckIsALineWithTheFigureItRead) {
  RunResult result = testing::SampleResult();
  model::Comparison& c = *result.workloads[2].comparison;
  c.speedup = 8.42;
  for (model::Check& check : result.verdict.checks) {
    if (check.workload == "medium_graph" && check.threshold == "min_speedup") {
      check.measured = 19.7;
      check.interval = model::Interval{19.7, 18.1, 21.3, 0.9974, "confidence sequence"};
    }
  }
  const std::vector<TableLine> lines = Lines(WorkloadRows(result)[2]);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].cells,
            (std::vector<std::string>{"medium_graph", "2.15 s", "109 ms", "10", "median speedup (min_speedup)",
                                      "19.7x (18.1x-21.3x)", "at least 10.0x", "pass"}));
  EXPECT_EQ(lines[1].cells, (std::vector<std::string>{"", "", "", "", "startup-adjusted speedup (min_logic_speedup)",
                                                      "21.4x", "at least 10.0x", "pass"}));
  // A failed workload: one line, no figure.
  const std::vector<TableLine> failed = Lines(WorkloadRows(result)[4]);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].cells.back(), "failed");
  EXPECT_EQ(failed[0].status, RowStatus::kFailed);
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
  EXPECT_EQ(RoundsLine(testing::SampleResult()), "10 rounds + 1 warm-up, alternate order, seed 42, scale 1");
}

// The sample with the spec's rounds and max_rounds, each comparison having run `rounds[i]`.
RunResult WithRounds(int min, int cap, const std::vector<int>& rounds) {
  RunResult result = testing::SampleResult();
  result.settings.rounds = min;
  result.settings.max_rounds = cap;
  std::size_t i = 0;
  for (model::WorkloadResult& w : result.workloads) {
    if (!w.comparison) continue;
    w.comparison->rounds = i < rounds.size() ? rounds[i] : 0;
    ++i;
  }
  return result;
}

// Issue 42: the README's header said "7 rounds + 1 warm-up" above rows of 12 and 17 rounds.
TEST(OverviewTest, RoundsRunIsTheRangeTheRowsRanWithTheMinimumAndCap) {
  EXPECT_EQ(RoundsLine(WithRounds(7, 30, {17, 17, 12, 12, 12})),
            "12 to 17 rounds (min 7, cap 30) + 1 warm-up, alternate order, seed 42, scale 1");
  EXPECT_EQ(RoundsRun(WithRounds(7, 30, {12, 12, 12, 12, 12})), "12 rounds (min 7, cap 30)");
  EXPECT_EQ(RoundsRun(WithRounds(7, 30, {7, 7, 7, 7, 7})), "7 rounds (min 7, cap 30)");
}

TEST(OverviewTest, RoundsRunOfAFixedCountSaysWhatWasPlannedOnlyWhenFewerRan) {
  EXPECT_EQ(RoundsRun(WithRounds(10, 0, {10, 10, 10, 10, 10})), "10 rounds");
  EXPECT_EQ(RoundsRun(WithRounds(10, 10, {10, 10, 10, 10, 10})), "10 rounds");
  EXPECT_EQ(RoundsRun(WithRounds(10, 0, {3, 3, 3, 3, 3})), "3 rounds (10 planned)");
  EXPECT_EQ(RoundsRun(WithRounds(10, 0, {10, 10, 4, 0, 0})), "4 to 10 rounds (10 planned)");
  EXPECT_EQ(RoundsRun(WithRounds(1, 0, {1, 1, 1, 1, 1})), "1 round");
  EXPECT_EQ(RoundsRun(WithRounds(10, 0, {})), "no rounds compared (10 planned)");
}

TEST(OverviewTest, RoundsRunCountsEveryPairsComparison) {
  RunResult result = WithRounds(7, 30, {12, 12, 12, 12, 12});
  model::Comparison third;
  third.rounds = 20;
  result.workloads[1].other_comparisons.push_back(third);
  EXPECT_EQ(RoundsRun(result), "12 to 20 rounds (min 7, cap 30)");
}

}  // namespace
}  // namespace pe::report
