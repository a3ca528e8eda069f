#include "engine/report/html_reporter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/report/html_escape.h"
#include "engine/report/reporter.h"
#include "tests/unit/report/golden.h"
#include "tests/unit/report/sweep_result.h"

namespace pe::report {

using model::Interval;
using model::RunResult;
using model::Sample;
using model::WorkloadResult;
namespace {

WorkloadResult& Named(RunResult& result, const std::string& name) {
  for (WorkloadResult& w : result.workloads) {
    if (w.name == name) return w;
  }
  throw std::runtime_error("no workload " + name);
}

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The markup of the chart whose id is `id`, from its <svg to its </svg>.
std::string Chart(const std::string& html, const std::string& id) {
  std::size_t at = html.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  std::size_t open = html.rfind("<svg", at);
  std::size_t close = html.find("</svg>", at);
  return html.substr(open, close - open);
}

TEST(HtmlReporterTest, MatchesGolden) {
  testing::ExpectGolden("report.html", HtmlReport(testing::SweepSampleResult()));
}

TEST(HtmlReporterTest, HoldsTheChartsEachWorkloadAndSweepNeeds) {
  std::string html = HtmlReport(testing::SweepSampleResult());
  // 16 workloads have samples; huge_graph's candidate has none, so 15 have paired rounds.
  EXPECT_EQ(Count(html, "<svg class=\"chart box-plot\""), 16);
  EXPECT_EQ(Count(html, "<svg class=\"chart ratio-over-rounds\""), 15);
  EXPECT_EQ(Count(html, "<svg class=\"chart throughput-vs-threads\""), 1);
  EXPECT_EQ(Count(html, "<svg class=\"chart time-vs-scale\""), 1);
  EXPECT_EQ(Count(html, "<svg "), 33);
  EXPECT_EQ(Count(html, "role=\"img\">\n<title>"), 33);  // every chart opens with its title
  EXPECT_NE(html.find("id=\"box-dense-threads-2-allocator-mimalloc\""), std::string::npos);
  EXPECT_NE(html.find("id=\"ratio-large_graph\""), std::string::npos);
  EXPECT_NE(html.find("id=\"throughput-dense\""), std::string::npos);
  EXPECT_NE(html.find("id=\"scale-growth\""), std::string::npos);
}

TEST(HtmlReporterTest, PlotsMeasuredSamplesOnlyNeverWarmUps) {
  RunResult result = testing::SweepSampleResult();
  Sample rss_only = result.workloads[2].samples.back();
  rss_only.rss_only = true;
  rss_only.round = 11;
  result.workloads[2].samples.push_back(rss_only);
  std::string html = HtmlReport(result);
  std::string box = Chart(html, "box-medium_graph");
  EXPECT_EQ(Count(box, "<circle class=\"sample\""), 20);
  EXPECT_EQ(box.find("<title>round 0:"), std::string::npos);
  EXPECT_EQ(box.find("<title>round 11:"), std::string::npos);
  std::string ratio = Chart(html, "ratio-medium_graph");
  EXPECT_EQ(Count(ratio, "<circle class=\"sample\""), 10);
  EXPECT_NE(ratio.find("<title>round 1: "), std::string::npos);
  EXPECT_EQ(ratio.find("<title>round 0:"), std::string::npos);
}

TEST(HtmlReporterTest, TheRatioChartReadsBaselineOverCandidateAsTheTableDoes) {
  RunResult result = testing::SweepSampleResult();
  std::string html = HtmlReport(result);
  std::string ratio = Chart(html, "ratio-large_graph");
  EXPECT_NE(ratio.find("Speed-up (baseline / candidate) by round: large_graph"), std::string::npos);
  EXPECT_NE(ratio.find(">baseline / candidate (log scale)</text>"), std::string::npos);
  EXPECT_EQ(ratio.find("candidate / baseline"), std::string::npos);
  // large_graph's candidate is about 8x faster: every round is above 1, as the table's 8.42x.
  const WorkloadResult& large = Named(result, "large_graph");
  ASSERT_TRUE(large.comparison);
  EXPECT_GT(large.comparison->speedup, 1);
  EXPECT_NE(ratio.find("1.0 = equal is below this chart"), std::string::npos);
}

TEST(HtmlReporterTest, TheRatioChartDrawsTheIntervalTheGateRead) {
  RunResult result = testing::SweepSampleResult();
  Named(result, "large_graph").comparison->speedup_cs.reset();
  std::string plain = Chart(HtmlReport(result), "ratio-large_graph");
  EXPECT_EQ(plain.find("class=\"interval\""), std::string::npos);  // none without one
  Named(result, "large_graph").comparison->speedup_cs = Interval{8.4, 7.9, 9.1, 0.95, "confidence sequence"};
  std::string drawn = Chart(HtmlReport(result), "ratio-large_graph");
  EXPECT_EQ(Count(drawn, "<rect class=\"interval\""), 1);
  EXPECT_NE(drawn.find(">95% confidence sequence of the median: 7.90x to 9.10x</text>"), std::string::npos);
  // An unbounded end runs to the edge of the plot, and says so.
  Named(result, "large_graph").comparison->speedup_cs = Interval{8.4, 0, INFINITY, 0.95, "confidence sequence"};
  EXPECT_NE(Chart(HtmlReport(result), "ratio-large_graph").find("of the median: 0 to unbounded"), std::string::npos);
  // Without a sequence, the bootstrap interval.
  Named(result, "large_graph").comparison->speedup_cs.reset();
  Named(result, "large_graph").comparison->speedup_ci = Interval{8.4, 8.0, 8.8, 0.9, "bootstrap BCa"};
  EXPECT_NE(Chart(HtmlReport(result), "ratio-large_graph").find(">90% interval of the median: 8.00x to 8.80x</text>"),
            std::string::npos);
}

TEST(HtmlReporterTest, BoxPlotsShareAnAxisWhenContendersAreWithinThreeFold) {
  RunResult result = testing::SweepSampleResult();
  std::string html = HtmlReport(result);
  // large_graph: 12.8 s against 1.52 s, each on its own scale.
  EXPECT_NE(Chart(html, "box-large_graph").find("each contender on its own scale"), std::string::npos);
  // Bring the candidate within 3x of the baseline: one scale.
  for (Sample& s : Named(result, "large_graph").samples) {
    if (s.contender == result.candidate) s.wall_s *= 4;
  }
  std::string shared = Chart(HtmlReport(result), "box-large_graph");
  EXPECT_NE(shared.find("one scale for every contender"), std::string::npos);
  // Both bands then carry the same tick labels.
  std::regex tick(">([0-9.]+ (s|ms))</text>");
  std::vector<std::string> labels;
  for (auto it = std::sregex_iterator(shared.begin(), shared.end(), tick); it != std::sregex_iterator(); ++it) {
    labels.push_back((*it)[1]);
  }
  ASSERT_FALSE(labels.empty());
  ASSERT_EQ(labels.size() % 2, 0u);
  EXPECT_EQ(std::vector<std::string>(labels.begin(), labels.begin() + labels.size() / 2),
            std::vector<std::string>(labels.begin() + labels.size() / 2, labels.end()));
}

TEST(HtmlReporterTest, EachWorkloadShowsItsNotes) {
  RunResult result = testing::SweepSampleResult();
  Named(result, "large_graph").comparison->notes = {"bootstrap percentile, 2000 resamples, seed 7"};
  Named(result, "large_graph").comparison->logic_note = "startup-bound: <all> start-up";
  Named(result, "large_graph").comparison->logic_speedup.reset();
  std::string html = HtmlReport(result);
  EXPECT_NE(html.find("<ul class=\"notes\">\n<li>startup-bound: &lt;all&gt; start-up</li>\n"
                      "<li>bootstrap percentile, 2000 resamples, seed 7</li>\n</ul>\n</section>"),
            std::string::npos);
  // What measuring showed (WorkloadResult::notes), first, as the terminal and Markdown show it;
  // also on a workload that has no comparison.
  Named(result, "large_graph").notes = {
      "contender 'bazel-diff-rs': server ignored SIGTERM and was killed with SIGKILL"};
  Named(result, "huge_graph").notes = {"contender 'bazel-diff-rs': <killed>"};
  html = HtmlReport(result);
  EXPECT_NE(html.find("<ul class=\"notes\">\n<li>contender &#39;bazel-diff-rs&#39;: server ignored SIGTERM and was "
                      "killed with SIGKILL</li>\n<li>startup-bound: &lt;all&gt; start-up</li>\n"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<li>contender &#39;bazel-diff-rs&#39;: &lt;killed&gt;</li>"), std::string::npos);
}

TEST(HtmlReporterTest, SweepChartsHaveALinePerContenderAndConfiguration) {
  std::string html = HtmlReport(testing::SweepSampleResult());
  std::string threads = Chart(html, "throughput-dense");
  EXPECT_EQ(Count(threads, "<g class=\"series\""), 4);
  EXPECT_NE(threads.find("data-series=\"bazel-diff-rs, allocator=mimalloc\""), std::string::npos);
  EXPECT_NE(threads.find(">throughput (Kelem/s, log scale)</text>"), std::string::npos);
  // 0.18 s / (4 x 0.90) = 50 ms for 192k elements: 3840 Kelem/s.
  EXPECT_NE(threads.find("<title>bazel-diff-rs, allocator=mimalloc: 3840 at 4</title>"), std::string::npos);
  std::string scale = Chart(html, "scale-growth");
  EXPECT_EQ(Count(scale, "<g class=\"series\""), 2);
  EXPECT_NE(scale.find("data-series=\"bazel-diff-rs (k = 1.02)\""), std::string::npos);
  EXPECT_NE(scale.find(">scale (log scale)</text>"), std::string::npos);
  EXPECT_NE(scale.find(">median wall time (log scale)</text>"), std::string::npos);
}

// Issue 42, item 7: the HTML chart's legend named a fit that means nothing by its exponent.
TEST(HtmlReporterTest, AFitThatIsNoScalingLawIsNotNamedByItsExponent) {
  RunResult result = testing::SweepSampleResult();
  result.sweeps[1].fits[0] = {"bazel-diff", "scale", {}, 4.08, -16.69, 24.86, 0.95, ""};
  const std::string html = HtmlReport(result);
  const std::string scale = Chart(html, "scale-growth");
  EXPECT_NE(scale.find("data-series=\"bazel-diff (no scaling law)\""), std::string::npos) << scale;
  EXPECT_NE(scale.find("data-series=\"bazel-diff-rs (k = 1.02)\""), std::string::npos);
  EXPECT_EQ(html.find("4.08"), std::string::npos);
  EXPECT_NE(html.find("<li>bazel-diff: no scaling law fits these points over scale (its 95% interval for k, -16.69 "
                      "to 24.86, is wider than 1.0: more rounds or more points on the axis would narrow it)</li>"),
            std::string::npos);
}

// Issue 42, item 7: a `parameters` sweep (levels, no threads or scale axis) had a table and no
// chart. It gets a bar chart of each contender's median per level, in the spec's order of the
// levels, one per configuration of the other parameters.
TEST(HtmlReporterTest, AParametersSweepHasABarChartOfEachContendersMedianPerLevel) {
  RunResult result = testing::SampleResult();
  const std::vector<std::pair<std::string, double>> levels = {{"9", 0.30}, {"1", 0.10}, {"fast<", 0.05}};
  for (const auto& [level, seconds] : levels) {
    result.workloads.push_back(testing::SweepPoint("compress", {{"level", level}}, 0, 2 * seconds, seconds));
  }
  const std::string html = HtmlReport(result);
  const std::string chart = Chart(html, "levels-compress");
  ASSERT_NE(chart, "") << html;
  EXPECT_NE(chart.find("<svg class=\"chart time-per-level\""), std::string::npos) << chart;
  EXPECT_NE(chart.find("<title>Median time per level: compress</title>"), std::string::npos) << chart;
  EXPECT_EQ(Count(chart, "<g class=\"series\""), 2);
  EXPECT_EQ(Count(chart, "<rect class=\"bar\""), 6);
  EXPECT_NE(chart.find("data-series=\"bazel-diff\""), std::string::npos);
  EXPECT_NE(chart.find("<title>bazel-diff-rs: 100 ms at level=1</title>"), std::string::npos) << chart;
  EXPECT_NE(chart.find("<title>bazel-diff: 600 ms at level=9</title>"), std::string::npos) << chart;
  EXPECT_NE(chart.find("<title>bazel-diff-rs: 50.0 ms at level=fast&lt;</title>"), std::string::npos) << chart;
  // The levels along the bottom in the spec's order (not numeric: "fast<" is no number).
  const std::size_t nine = chart.find(">9</text>"), one = chart.find(">1</text>"),
                    fast = chart.find(">fast&lt;</text>");
  ASSERT_NE(nine, std::string::npos);
  ASSERT_NE(fast, std::string::npos);
  EXPECT_LT(nine, one);
  EXPECT_LT(one, fast);
  EXPECT_NE(chart.find(">level</text>"), std::string::npos);
  EXPECT_NE(chart.find(">median wall time</text>"), std::string::npos);
  // A threads or scale sweep keeps its own charts and gets no bars.
  EXPECT_EQ(Count(HtmlReport(testing::SweepSampleResult()), "time-per-level"), 0);
}

TEST(HtmlReporterTest, NamesNoUrlAndLoadsNothing) {
  std::string html = HtmlReport(testing::SweepSampleResult());
  EXPECT_EQ(html.find("http:"), std::string::npos);
  EXPECT_EQ(html.find("https:"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(Count(html, "href="), 1);
  EXPECT_NE(html.find("<link rel=\"icon\" href=\"data:,\">"), std::string::npos);
  EXPECT_NE(html.find("content=\"default-src 'none';"), std::string::npos);
}

TEST(HtmlReporterTest, IdsAreUniqueEvenWhenNamesCollide) {
  RunResult result = testing::SweepSampleResult();
  result.workloads[1].name = "a b";
  result.workloads[2].name = "a/b";
  std::string html = HtmlReport(result);
  std::regex id_pattern("id=\"([^\"]*)\"");
  std::set<std::string> ids;
  int total = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), id_pattern), end; it != end; ++it) {
    ids.insert((*it)[1]);
    ++total;
  }
  EXPECT_EQ(static_cast<int>(ids.size()), total);
  EXPECT_TRUE(ids.count("box-a-b"));
  EXPECT_TRUE(ids.count("box-a-b-2"));
}

TEST(HtmlReporterTest, HostileTextCannotInjectMarkup) {
  RunResult result = testing::SweepSampleResult();
  const std::string evil = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>&amp;";
  result.contenders[1].description = evil;
  result.workloads[2].name = evil;
  result.workloads[2].description = evil;
  result.workloads[4].failures[0].detail = evil + "\n" + evil + "\x1b[2J";
  result.verdict.lines.push_back(evil);
  for (auto& workload : result.workloads) {
    for (auto& value : workload.point) {
      if (value.value == "mimalloc") value.value = evil;
    }
  }
  result.sweeps[0].name = evil;
  for (auto& workload : result.workloads) {
    if (workload.sweep == "dense") workload.sweep = evil;
  }
  std::string html = HtmlReport(result);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find('\x1b'), std::string::npos);
  const std::string escaped =
      "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;"
      "&amp;amp;";
  EXPECT_GE(Count(html, escaped), 8);
  // The sweep still has its tables and charts under its hostile name.
  EXPECT_EQ(Count(html, "<svg class=\"chart throughput-vs-threads\""), 1);
}

TEST(HtmlReporterTest, WorkloadsWithoutSamplesSayWhy) {
  std::string html = HtmlReport(testing::SampleResult());
  EXPECT_EQ(Count(html, "<svg "), 0);
  EXPECT_EQ(Count(html, "No measured samples: nothing to plot."), 6);
}

TEST(HtmlReporterTest, SweepWithoutElementsHasNoThroughputChart) {
  RunResult result = testing::SweepSampleResult();
  for (auto& workload : result.workloads) workload.elements = 0;
  std::string html = HtmlReport(result);
  EXPECT_EQ(Count(html, "<svg class=\"chart throughput-vs-threads\""), 0);
  EXPECT_NE(html.find("No throughput against threads: no point declared its elements."), std::string::npos);
  EXPECT_EQ(Count(html, "<svg class=\"chart time-vs-scale\""), 1);
}

TEST(HtmlReporterTest, WritesThePageToAFile) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("html_reporter_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path path = dir / "report.html";
  RunResult result = testing::SweepSampleResult();
  WriteReport("html", result, path);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), HtmlReport(result));
  std::filesystem::remove_all(dir);
  EXPECT_THROW(WriteReport("html", result, dir / "missing" / "report.html"), std::runtime_error);
}

TEST(HtmlReporterTest, EscapeHtml) { EXPECT_EQ(EscapeHtml("a<b>&\"c'\x01\nd"), "a&lt;b&gt;&amp;&quot;c&#39;?\nd"); }

}  // namespace
}  // namespace pe::report
