#include "engine/report/terminal_reporter.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "tests/unit/report/golden.h"
#include "tests/unit/report/sample_result.h"

namespace pe::report {

using model::ExitCode;
using model::RunResult;
namespace {

std::string Report(const RunResult& result, bool color) {
  std::ostringstream out;
  WriteTerminalReport(result, out, color);
  return out.str();
}

TEST(TerminalReporterTest, MatchesGolden) {
  testing::ExpectGolden("terminal.txt", Report(testing::SampleResult(), false));
}

TEST(TerminalReporterTest, PassingRunMatchesGolden) {
  RunResult result = testing::SampleResult();
  result.workloads.erase(result.workloads.begin() + 3, result.workloads.begin() + 5);
  result.verdict.checks.pop_back();
  result.verdict.lines.clear();
  result.verdict.exit = ExitCode::kPass;
  testing::ExpectGolden("terminal_pass.txt", Report(result, false));
}

// The header states the rounds the rows ran, not only the spec's `rounds` (issue 42: "7 rounds +
// 1 warm-up" above rows that ran 12 and 17).
TEST(TerminalReporterTest, TheHeaderStatesTheRoundsTheRowsRan) {
  RunResult result = testing::SampleResult();
  result.settings.rounds = 7;
  result.settings.max_rounds = 30;
  int i = 0;
  for (model::WorkloadResult& w : result.workloads) {
    if (w.comparison) w.comparison->rounds = i++ < 2 ? 17 : 12;
  }
  const std::string out = Report(result, false);
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "bazel-diff (baseline) against bazel-diff-rs (candidate): 12 to 17 rounds (min 7, cap 30) + 1 warm-up, "
            "alternate order, seed 42, scale 1");
  EXPECT_NE(out.find(" 17  "), std::string::npos) << out;  // the rows' rounds column, which it sums up
  EXPECT_NE(out.find(" 12  "), std::string::npos) << out;
}

TEST(TerminalReporterTest, NoEscapeCodesWithoutColor) {
  EXPECT_EQ(Report(testing::SampleResult(), false).find('\x1b'), std::string::npos);
}

TEST(TerminalReporterTest, ColorMarksVerdictsAndSummary) {
  std::string out = Report(testing::SampleResult(), true);
  EXPECT_NE(out.find("\x1b[32mpass\x1b[0m"), std::string::npos);
  EXPECT_NE(out.find("\x1b[31mmissed\x1b[0m"), std::string::npos);
  EXPECT_NE(out.find("\x1b[1;31mRUN FAILED\x1b[0m\n"), std::string::npos);
}

TEST(TerminalReporterTest, ContenderOutputCannotControlTheTerminal) {
  RunResult result = testing::SampleResult();
  result.workloads[4].failures[0].detail = "\x1b[2Jcleared\n";
  std::string out = Report(result, false);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_NE(out.find("      ?[2Jcleared\n"), std::string::npos);
}

TEST(TerminalReporterTest, InterruptedRunSaysResultsAreIncomplete) {
  RunResult result = testing::SampleResult();
  result.verdict.exit = ExitCode::kInterrupted;
  result.complete = false;
  std::string out = Report(result, false);
  EXPECT_EQ(out.substr(out.rfind('\n', out.size() - 2) + 1), "INTERRUPTED (results incomplete)\n");
}

}  // namespace
}  // namespace pe::report
