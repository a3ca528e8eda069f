#include "engine/report/html_reporter.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/unit/report/golden.h"
#include "tests/unit/report/sweep_result.h"

namespace pe::report {
namespace {

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
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

TEST(HtmlReporterTest, SweepChartsHaveALinePerContenderAndConfiguration) {
  std::string html = HtmlReport(testing::SweepSampleResult());
  std::string threads = Chart(html, "throughput-dense");
  EXPECT_EQ(Count(threads, "<g class=\"series\""), 4);
  EXPECT_NE(threads.find("data-series=\"bazel-diff-rs, allocator=mimalloc\""), std::string::npos);
  EXPECT_NE(threads.find(">throughput (Kelem/s, log scale)</text>"), std::string::npos);
  // 0.18 s / (4 x 0.90) = 50 ms for 192k elements: 3840 Kelem/s.
  EXPECT_NE(threads.find("<title>bazel-diff-rs, allocator=mimalloc: 3840 at 4</title>"),
            std::string::npos);
  std::string scale = Chart(html, "scale-growth");
  EXPECT_EQ(Count(scale, "<g class=\"series\""), 2);
  EXPECT_NE(scale.find("data-series=\"bazel-diff-rs (k = 1.02)\""), std::string::npos);
  EXPECT_NE(scale.find(">scale (log scale)</text>"), std::string::npos);
  EXPECT_NE(scale.find(">median wall time (log scale)</text>"), std::string::npos);
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
  EXPECT_NE(html.find("No throughput against threads: no point declared its elements."),
            std::string::npos);
  EXPECT_EQ(Count(html, "<svg class=\"chart time-vs-scale\""), 1);
}

TEST(HtmlReporterTest, WritesThePageToAFile) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("html_reporter_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path path = dir / "report.html";
  RunResult result = testing::SweepSampleResult();
  WriteHtmlReport(result, path);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), HtmlReport(result));
  std::filesystem::remove_all(dir);
  EXPECT_THROW(WriteHtmlReport(result, dir / "missing" / "report.html"), std::runtime_error);
}

TEST(HtmlReporterTest, EscapeHtml) {
  EXPECT_EQ(EscapeHtml("a<b>&\"c'\x01\nd"), "a&lt;b&gt;&amp;&quot;c&#39;?\nd");
}

}  // namespace
}  // namespace pe::report
