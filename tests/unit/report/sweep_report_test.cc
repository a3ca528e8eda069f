#include "engine/report/sweep_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "engine/report/markdown_reporter.h"
#include "engine/report/terminal_reporter.h"
#include "tests/unit/report/golden.h"
#include "tests/unit/report/sweep_result.h"

namespace pe::report {

using model::RunResult;
using model::ScalingFit;
using model::WorkloadResult;
namespace {

std::string Terminal(const RunResult& result) {
  std::ostringstream out;
  WriteTerminalReport(result, out, false);
  return out.str();
}

TEST(SweepReportTest, TerminalReportMatchesGolden) {
  testing::ExpectGolden("terminal_sweeps.txt", Terminal(testing::SweepSampleResult()));
}

TEST(SweepReportTest, MarkdownReportMatchesGolden) {
  testing::ExpectGolden("report_sweeps.md", MarkdownReport(testing::SweepSampleResult()));
}

TEST(SweepReportTest, RunWithoutSweepsHasNoSection) {
  EXPECT_TRUE(SweepSections(testing::SampleResult()).empty());
  EXPECT_EQ(SweepTerminalText({}), "");
  EXPECT_EQ(SweepMarkdown({}), "");
}

TEST(SweepReportTest, GroupsThreadsByAllocator) {
  std::vector<SweepSection> sections = SweepSections(testing::SweepSampleResult());
  ASSERT_EQ(sections.size(), 2u);
  const SweepSection& dense = sections[0];
  EXPECT_EQ(dense.name, "dense");
  ASSERT_EQ(dense.tables.size(), 2u);
  const SweepTable& mimalloc = dense.tables[1];
  EXPECT_EQ(mimalloc.configuration, "allocator=mimalloc");
  EXPECT_EQ(mimalloc.axis, "threads");
  EXPECT_TRUE(mimalloc.has_throughput);
  EXPECT_TRUE(mimalloc.has_efficiency);
  ASSERT_EQ(mimalloc.rows.size(), 3u);
  const SweepRow& four = mimalloc.rows[2];
  EXPECT_EQ(four.value, "4");
  EXPECT_EQ(four.workload, "dense[threads=4,allocator=mimalloc]");
  ASSERT_EQ(four.figures.size(), 2u);
  // The candidate: 0.18 s / (4 x 0.90) = 0.05 s for 192k elements.
  EXPECT_DOUBLE_EQ(*four.figures[1].median_wall_s, 0.05);
  EXPECT_DOUBLE_EQ(*four.figures[1].elements_per_s, 192000 / 0.05);
  EXPECT_DOUBLE_EQ(*four.figures[1].efficiency, 0.90);
  EXPECT_DOUBLE_EQ(*four.figures[0].efficiency, 0.75);
}

TEST(SweepReportTest, ScaleSweepHasNoEfficiencyAndListsFits) {
  const SweepSection growth = SweepSections(testing::SweepSampleResult())[1];
  ASSERT_EQ(growth.tables.size(), 1u);
  EXPECT_EQ(growth.tables[0].configuration, "");
  EXPECT_EQ(growth.tables[0].axis, "scale");
  EXPECT_FALSE(growth.tables[0].has_efficiency);
  EXPECT_EQ(SweepHeadings(growth.tables[0]), (std::vector<std::string>{"scale", "bazel-diff time", "bazel-diff Kelem/s",
                                                                       "bazel-diff-rs time", "bazel-diff-rs Kelem/s"}));
  EXPECT_EQ(growth.fit_lines,
            (std::vector<std::string>{"bazel-diff: time grows as n^1.98 over scale (95% interval 1.91 to 2.05)",
                                      "bazel-diff-rs: time grows as n^1.02 over scale (95% interval 0.97 to 1.08); "
                                      "weak: 4 points"}));
  EXPECT_EQ(growth.threshold_lines, (std::vector<std::string>{"bazel-diff-rs cost exponent at most 1.20"}));
}

TEST(SweepReportTest, RowsFollowNumbersNotSpecOrder) {
  RunResult result = testing::SweepSampleResult();
  // Move the 1-thread glibc point after the 4-thread one.
  auto first = std::find_if(result.workloads.begin(), result.workloads.end(),
                            [](const WorkloadResult& w) { return w.sweep == "dense"; });
  std::rotate(first, first + 1, first + 3);
  const SweepTable glibc = SweepSections(result)[0].tables[0];
  ASSERT_EQ(glibc.rows.size(), 3u);
  EXPECT_EQ(glibc.rows[0].value, "1");
  EXPECT_EQ(glibc.rows[1].value, "2");
  EXPECT_EQ(glibc.rows[2].value, "4");
}

TEST(SweepReportTest, WordsKeepTheSpecOrder) {
  RunResult result = testing::SweepSampleResult();
  result.sweeps[0].efficiencies.clear();
  for (auto& workload : result.workloads) {
    for (auto& value : workload.point) {
      if (value.axis == "threads") value.axis = "depth";  // no threads axis now
    }
  }
  result.sweeps[0].axes = {"depth", "allocator"};
  const SweepSection dense = SweepSections(result)[0];
  // Neither threads nor scale: the last axis gives the rows, in spec order.
  ASSERT_EQ(dense.tables.size(), 3u);
  EXPECT_EQ(dense.tables[0].axis, "allocator");
  EXPECT_EQ(dense.tables[0].configuration, "depth=1");
  EXPECT_FALSE(dense.tables[0].has_efficiency);
  ASSERT_EQ(dense.tables[0].rows.size(), 2u);
  EXPECT_EQ(dense.tables[0].rows[0].value, "glibc");
  EXPECT_EQ(dense.tables[0].rows[1].value, "mimalloc");
}

TEST(SweepReportTest, MissingFiguresShowAsDashes) {
  RunResult result = testing::SweepSampleResult();
  result.sweeps[0].efficiencies.clear();
  for (auto& workload : result.workloads) {
    if (workload.sweep == "dense") workload.elements = 0;
    if (workload.name == "dense[threads=2,allocator=glibc]") workload.summaries.pop_back();
  }
  const SweepTable glibc = SweepSections(result)[0].tables[0];
  EXPECT_FALSE(glibc.has_throughput);
  std::vector<std::vector<std::string>> cells = SweepCells(glibc);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[1], (std::vector<std::string>{"2", "1.33 s", "-", "-", "-"}));
}

TEST(SweepReportTest, SweepNamedOnlyByItsPointsStillGetsATable) {
  RunResult result = testing::SweepSampleResult();
  result.sweeps.erase(result.sweeps.begin());
  std::vector<SweepSection> sections = SweepSections(result);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].name, "growth");
  EXPECT_EQ(sections[1].name, "dense");
  EXPECT_EQ(sections[1].axes, (std::vector<std::string>{"threads", "allocator"}));
  EXPECT_EQ(sections[1].tables.size(), 2u);
  EXPECT_TRUE(sections[1].fit_lines.empty());
}

TEST(SweepReportTest, FitTextWithoutIntervalOrExponent) {
  ScalingFit fit{"c", "scale", {}, 1.5, 0, 0, 0.9, ""};
  EXPECT_EQ(FitText(fit), "time grows as n^1.50 over scale (90% interval 0.00 to 0.00)");
  fit.low = fit.high = std::numeric_limits<double>::quiet_NaN();
  fit.note = "3 points fit exactly: no interval for k";
  EXPECT_EQ(FitText(fit), "no scaling law fits these points over scale (3 points fit exactly: no interval for k)");
  fit.exponent = std::numeric_limits<double>::quiet_NaN();
  fit.note = "all times tied";
  EXPECT_EQ(FitText(fit), "no fit over scale: all times tied");
}

// Issue 42, item 7: a fit whose interval is wider than model::kMaxExponentIntervalWidth (1.0)
// printed its exponent as a law: "time grows as n^4.08 over scale (95% interval -16.69 to
// 24.86)". It now says no law fits and why, in the terminal and Markdown reports alike; an
// interval of exactly 1.0 still prints its exponent.
TEST(SweepReportTest, AFitWhoseIntervalIsWiderThanTheBoundIsNoScalingLaw) {
  EXPECT_EQ(FitText({"c", "scale", {}, 4.08, -16.69, 24.86, 0.95, ""}),
            "no scaling law fits these points over scale (its 95% interval for k, -16.69 to 24.86, is wider than 1.0: "
            "more rounds or more points on the axis would narrow it)");
  EXPECT_EQ(FitText({"c", "scale", {}, -0.4, -1.2, 0.4, 0.95, ""}),
            "no scaling law fits these points over scale (its 95% interval for k, -1.20 to 0.40, is wider than 1.0: "
            "more rounds or more points on the axis would narrow it)");
  EXPECT_EQ(FitText({"c", "scale", {}, 1.0, 0.5, 1.5, 0.95, ""}),
            "time grows as n^1.00 over scale (95% interval 0.50 to 1.50)");
  RunResult result = testing::SweepSampleResult();
  result.sweeps[1].fits[0] = {"bazel-diff", "scale", {}, 4.08, -16.69, 24.86, 0.95, ""};
  const std::string law =
      "bazel-diff: no scaling law fits these points over scale (its 95% interval for k, -16.69 "
      "to 24.86, is wider than 1.0: more rounds or more points on the axis would narrow it)";
  const std::string terminal = Terminal(result);
  EXPECT_NE(terminal.find("  " + law + "\n"), std::string::npos) << terminal;
  EXPECT_EQ(terminal.find("n^4.08"), std::string::npos) << terminal;
  const std::string markdown = MarkdownReport(result);
  EXPECT_NE(markdown.find("- " + law + "\n"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("n^4.08"), std::string::npos) << markdown;
}

TEST(SweepReportTest, KelemPerSecondKeepsThreeDigits) {
  EXPECT_EQ(FormatKelemPerSecond(812345), "812");
  EXPECT_EQ(FormatKelemPerSecond(41234), "41.2");
  EXPECT_EQ(FormatKelemPerSecond(1234), "1.23");
  EXPECT_EQ(FormatKelemPerSecond(50), "0.050");
  EXPECT_EQ(FormatKelemPerSecond(12345678), "12346");
  EXPECT_EQ(FormatKelemPerSecond(std::nan("")), "n/a");
}

TEST(SweepReportTest, ThroughputTakesTheWorkloadsUnit) {
  EXPECT_EQ(ThroughputUnit(""), "Kelem/s");
  EXPECT_EQ(ThroughputUnit("B"), "MB/s");
  EXPECT_EQ(ThroughputUnit("lines"), "Klines/s");
  EXPECT_EQ(FormatThroughput(812345678, "B"), "812");  // decimal megabytes
  EXPECT_EQ(FormatThroughput(41234, "B"), "0.041");
  EXPECT_EQ(FormatThroughput(41234, "lines"), "41.2");
  RunResult result = testing::SweepSampleResult();
  for (WorkloadResult& w : result.workloads) {
    if (w.sweep == "growth") w.unit = "B";
  }
  const SweepSection growth = SweepSections(result)[1];
  EXPECT_EQ(SweepHeadings(growth.tables[0]), (std::vector<std::string>{"scale", "bazel-diff time", "bazel-diff MB/s",
                                                                       "bazel-diff-rs time", "bazel-diff-rs MB/s"}));
  const std::vector<std::vector<std::string>> cells = SweepCells(growth.tables[0]);
  const SweepRow& row = growth.tables[0].rows[0];
  EXPECT_EQ(cells[0][2], FormatKelemPerSecond(*row.figures[0].elements_per_s / 1000));
}

TEST(SweepReportTest, HostileAxisValuesAreEscaped) {
  RunResult result = testing::SweepSampleResult();
  for (auto& workload : result.workloads) {
    for (auto& value : workload.point) {
      if (value.value == "mimalloc") value.value = "|<b>x</b>\x1b[2J";
    }
  }
  std::string markdown = SweepMarkdown(SweepSections(result));
  EXPECT_EQ(markdown.find("<b>"), std::string::npos);
  EXPECT_NE(markdown.find("allocator=\\|\\<b\\>x\\</b\\>?\\[2J:"), std::string::npos) << markdown;
  std::string terminal = SweepTerminalText(SweepSections(result));
  EXPECT_EQ(terminal.find('\x1b'), std::string::npos);
  EXPECT_NE(terminal.find("  allocator=|<b>x</b>?[2J\n"), std::string::npos) << terminal;
}

}  // namespace
}  // namespace pe::report
