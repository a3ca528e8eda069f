#include "engine/history/trend.h"

#include <gtest/gtest.h>

#include "engine/base/error.h"
#include "engine/history/trend_html.h"

namespace pe::history {
namespace {

constexpr const char* kByDefault =
    "figures: by default those the recorded runs' gates checked on each workload, else the speed-up (--figure traces "
    "another)\n\n";

WorkloadSeries Series(const std::string& workload, const std::vector<double>& speedups) {
  WorkloadSeries s;
  s.workload = workload;
  std::vector<Point> points;
  for (size_t i = 0; i < speedups.size(); ++i) {
    Point p;
    p.run = static_cast<std::int64_t>(i + 1);
    p.started_at = "2026-12-0" + std::to_string(i + 1) + "T00:00:00Z";
    p.commit = std::string(12, static_cast<char>('a' + i)) + "ffff";
    p.hostname = "ci";
    p.spec_digest = i < 5 ? "one" : "two";
    p.value = speedups[i];
    points.push_back(p);
  }
  s.figures.push_back({"speedup", points});
  s.runs = static_cast<int>(speedups.size());
  return s;
}

TEST(TrendTest, AStepInSpeedupIsOneChangePointWithTheMediansEitherSide) {
  const std::string text = TrendText({Series("work", {1.50, 1.52, 1.49, 1.51, 1.50, 1.20, 1.21, 1.19, 1.20})}, {});
  EXPECT_EQ(text, std::string(kByDefault) +
                      "work: speedup over 9 runs\n"
                      "  figure: ratio of median wall times, baseline / candidate (descriptive: min_speedup reads "
                      "median_round_speedup); higher is better\n"
                      "  not gated: no recorded run checked a threshold on this workload\n"
                      "  1  2026-12-01T00:00:00Z  aaaaaaaaaaaa  ci  1.500x\n"
                      "  2  2026-12-02T00:00:00Z  bbbbbbbbbbbb  ci  1.520x\n"
                      "  3  2026-12-03T00:00:00Z  cccccccccccc  ci  1.490x\n"
                      "  4  2026-12-04T00:00:00Z  dddddddddddd  ci  1.510x\n"
                      "  5  2026-12-05T00:00:00Z  eeeeeeeeeeee  ci  1.500x\n"
                      "  6  2026-12-06T00:00:00Z  ffffffffffff  ci  1.200x  (spec changed)\n"
                      "  7  2026-12-07T00:00:00Z  gggggggggggg  ci  1.210x\n"
                      "  8  2026-12-08T00:00:00Z  hhhhhhhhhhhh  ci  1.190x\n"
                      "  9  2026-12-09T00:00:00Z  iiiiiiiiiiii  ci  1.200x\n"
                      "  change point at run 6 (2026-12-06T00:00:00Z, commit ffffffffffff): median 1.500x -> 1.200x "
                      "(-20.0%, worse)\n"
                      "\n");
}

// Columns are as wide as their widest cell (report::FormatTable): a host name longer than the
// old fixed 16 columns no longer pushes its value out of line.
TEST(TrendTest, ALongHostNameKeepsTheValuesAligned) {
  WorkloadSeries s = Series("work", {1.5, 12.0});
  s.figures[0].second[1].hostname = "a-runner-with-a-long-name.example.org";
  const std::string text = TrendText({s}, {});
  EXPECT_NE(text.find("  1  2026-12-01T00:00:00Z  aaaaaaaaaaaa  ci                                      1.500x\n"
                      "  2  2026-12-02T00:00:00Z  bbbbbbbbbbbb  a-runner-with-a-long-name.example.org  12.000x\n"),
            std::string::npos)
      << text;
}

TEST(TrendTest, OneOutlyingRunIsNotAChange) {
  EXPECT_TRUE(TrendChangePoints({2.65, 2.72, 1.10, 2.40}).empty());  // four noisy runs: nothing to say
  EXPECT_TRUE(TrendChangePoints({1.5, 1.51, 1.49, 1.5, 0.7, 1.5, 1.51, 1.49, 1.5}).empty());
  EXPECT_EQ(TrendChangePoints({1.5, 1.51, 1.49, 1.5, 0.7, 0.71, 0.69, 0.7, 0.7}), (std::vector<std::size_t>{4}));
}

TEST(TrendTest, SelectsWorkloadsAndSaysWhatWasRecordedInstead) {
  const std::vector<WorkloadSeries> all = {Series("alpha", {1, 1}), Series("bravo", {2, 2})};
  TrendOptions only_bravo;
  only_bravo.workloads = {"bravo"};
  const std::string text = TrendText(all, only_bravo);
  EXPECT_EQ(text.find("alpha"), std::string::npos);
  EXPECT_NE(text.find("bravo: speedup over 2 runs\n"), std::string::npos);
  EXPECT_NE(
      text.find("  no change point sought: 2 runs recorded, and a change point needs at least 4 (2 either side)\n"),
      std::string::npos);
  TrendOptions cpu;
  cpu.figure = "cpu_ratio";
  WorkloadSeries bravo_cpu = all[1];
  bravo_cpu.figures.push_back({"cpu_ratio", bravo_cpu.figures[0].second});
  EXPECT_EQ(TrendText({all[0], bravo_cpu}, cpu)
                .rfind("alpha: no cpu_ratio recorded (recorded: speedup)\n\nbravo: cpu_ratio over 2 runs\n", 0),
            0u);
  TrendOptions typo;
  typo.workloads = {"brav"};
  try {
    TrendText(all, typo);
    FAIL();
  } catch (const base::UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--workload: no run recorded 'brav' (did you mean 'bravo'?)");
  }
}

// A figure no run recorded once printed a line per workload and exited 0.
TEST(TrendTest, AFigureNoRunRecordedIsRefusedWithASuggestion) {
  TrendOptions typo;
  typo.figure = "speedpu";
  try {
    TrendText({Series("alpha", {1, 1}), Series("bravo", {2, 2})}, typo);
    FAIL();
  } catch (const base::UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--figure: no run recorded 'speedpu' (did you mean 'speedup'?); recorded: speedup");
  }
}

// Figures print through engine/units, as every report prints them.
TEST(TrendTest, FiguresPrintInTheirUnits) {
  auto first_value = [](const std::string& figure, double value) {
    WorkloadSeries s = Series("work", {value});
    s.figures[0].first = figure;
    TrendOptions options;
    options.figure = figure;
    const std::string text = TrendText({s}, options);
    // The one run's line ends "... ci    <figure>".
    const std::size_t start = text.find_first_not_of(' ', text.find(" ci ") + 4);
    return text.substr(start, text.find('\n', start) - start);
  };
  EXPECT_EQ(first_value("candidate.median_wall_s", 0.0412), "41.2 ms");
  EXPECT_EQ(first_value("candidate.median_max_rss_kib", 12595), "12.3 MiB");
  EXPECT_EQ(first_value("win_rate", 0.75), "75%");
  EXPECT_EQ(first_value("rss_ratio", 1.2049), "1.205x");
  EXPECT_EQ(first_value("candidate.instructions", 1234567.4), "1234567");
}

TEST(TrendTest, OneRunIsNotRuns) {
  EXPECT_EQ(TrendText({Series("work", {1.5})}, {}).rfind(std::string(kByDefault) + "work: speedup over 1 run\n", 0),
            0u);
}

TEST(TrendHtmlTest, OneChartPerWorkloadWithItsChangePointMarked) {
  const std::string html =
      TrendHtml({Series("work", {1.50, 1.52, 1.49, 1.51, 1.50, 1.20, 1.21, 1.19, 1.20}), Series("<b>", {1, 1})}, {},
                "history of a&b");
  EXPECT_NE(html.find("<title>history of a&amp;b</title>"), std::string::npos);
  size_t charts = 0;
  for (size_t at = html.find("<svg class=\"trend\""); at != std::string::npos;
       at = html.find("<svg class=\"trend\"", at + 1)) {
    ++charts;
  }
  EXPECT_EQ(charts, 2u);
  EXPECT_NE(html.find("<h2>&lt;b&gt;</h2>"), std::string::npos);
  EXPECT_NE(html.find("<title>change point at run 6</title>"), std::string::npos);
  EXPECT_EQ(html.find("change point at run 2<"), std::string::npos);
  EXPECT_NE(html.find("<title>run 9: 1.2, 2026-12-09T00:00:00Z, iiiiiiiiiiii, ci</title>"), std::string::npos);
  EXPECT_NE(html.find("<pre>figures: by default"), std::string::npos);
  EXPECT_NE(html.find("\nwork: speedup over 9 runs\n"), std::string::npos);
}

// Issue 25: the startup workload's time follows the machine more than the code; its steps were
// reported as change points. They are sought there only when asked.
TEST(TrendTest, TheStartupWorkloadHasNoChangePointsUnlessAsked) {
  WorkloadSeries startup = Series("startup", {1.50, 1.52, 1.49, 1.51, 1.50, 1.20, 1.21, 1.19, 1.20});
  startup.startup = true;
  const std::string text = TrendText({startup}, {});
  EXPECT_EQ(text.find("change point at"), std::string::npos) << text;
  EXPECT_NE(text.find("  change points not sought: start-up time follows the machine more than the code "
                      "(--startup-change-points seeks them)\n"),
            std::string::npos)
      << text;
  TrendOptions asked;
  asked.startup_change_points = true;
  EXPECT_NE(TrendText({startup}, asked).find("  change point at run 6 "), std::string::npos);
  const std::string html = TrendHtml({startup}, {}, "t");
  EXPECT_EQ(html.find("class=\"change\""), std::string::npos);
  EXPECT_NE(TrendHtml({startup}, asked, "t").find("class=\"change\""), std::string::npos);
}

// The gate's figure is the default, and each figure says which way is better: a step up in a
// CPU-time ratio is worse, a step up in a speed-up better.
TEST(TrendTest, TheDefaultIsTheGatesFigureAndEachDirectionIsNamed) {
  WorkloadSeries s = Series("work", {1.0, 1.0, 1.01, 0.99, 1.0, 1.3, 1.31, 1.29, 1.3});
  s.figures.push_back({"median_round_cpu_ratio", s.figures[0].second});
  s.figures.push_back({"median_round_speedup", s.figures[0].second});
  const std::string text = TrendText({s}, {});
  EXPECT_EQ(
      text.rfind(std::string(kByDefault) +
                     "work: median_round_speedup over 9 runs\n"
                     "  figure: median per-round speed-up, baseline / candidate wall time: what min_speedup reads; "
                     "higher is better\n",
                 0),
      0u)
      << text;
  EXPECT_NE(text.find("median 1.000x -> 1.300x (+30.0%, better)\n"), std::string::npos) << text;
  TrendOptions cpu;
  cpu.figure = "median_round_cpu_ratio";
  const std::string cpu_text = TrendText({s}, cpu);
  EXPECT_NE(cpu_text.find("  figure: median per-round CPU-time ratio, candidate / baseline: what max_slowdown reads; "
                          "higher is worse\n"),
            std::string::npos)
      << cpu_text;
  EXPECT_NE(cpu_text.find("median 1.000x -> 1.300x (+30.0%, worse)\n"), std::string::npos) << cpu_text;
  EXPECT_FALSE(DescribeFigure("candidate.median_wall_s").higher_is_better);
  EXPECT_TRUE(DescribeFigure("win_rate").higher_is_better);
}

TEST(TrendHtmlTest, ChartsLabelBothAxesAndTheDirection) {
  WorkloadSeries s = Series("work", {1.5, 1.4, 1.6});
  s.figures.push_back({"median_round_cpu_ratio", s.figures[0].second});
  TrendOptions cpu;
  cpu.figure = "median_round_cpu_ratio";
  const std::string html = TrendHtml({s}, cpu, "t");
  EXPECT_NE(html.find(">run (oldest first, 1 to 3)</text>"), std::string::npos) << html;
  EXPECT_NE(html.find(">median_round_cpu_ratio (lower is better)</text>"), std::string::npos) << html;
  EXPECT_NE(TrendHtml({s}, {}, "t").find(">speedup (higher is better)</text>"), std::string::npos);
}

// Issue 42, item 6: history defaulted to the wall-time speed-up, a figure the recorded gate may
// not check (ruby/json gates CPU time and instructions). The default is now each figure a
// threshold the recorded runs checked, in the threshold table's order, each saying which
// threshold checked it in how many runs; a checked counter, which the history has no trend
// of, is named under the first.
TEST(TrendTest, TheDefaultIsEachFigureTheRecordedGatesChecked) {
  WorkloadSeries s = Series("work", {1.0, 1.0, 1.0, 1.0});
  const auto points = s.figures[0].second;
  s.figures = {{"speedup", points},
               {"median_round_speedup", points},
               {"median_round_cpu_ratio", points},
               {"instructions_ratio", points}};
  s.checked = {{"max_instructions_ratio", 4}, {"counters.objects", 4}, {"max_slowdown", 3}};
  const std::string text = TrendText({s}, {});
  const std::string rows =
      "  1  2026-12-01T00:00:00Z  aaaaaaaaaaaa  ci  1.000x\n"
      "  2  2026-12-02T00:00:00Z  bbbbbbbbbbbb  ci  1.000x\n"
      "  3  2026-12-03T00:00:00Z  cccccccccccc  ci  1.000x\n"
      "  4  2026-12-04T00:00:00Z  dddddddddddd  ci  1.000x\n"
      "  no change point\n\n";
  EXPECT_EQ(text, std::string(kByDefault) +
                      "work: median_round_cpu_ratio over 4 runs\n"
                      "  figure: median per-round CPU-time ratio, candidate / baseline: what max_slowdown reads; "
                      "higher is worse\n"
                      "  gated: max_slowdown checked it in 3 of 4 runs\n"
                      "  also gated, no trend recorded: counters.objects (4 of 4 runs)\n" +
                      rows +
                      "work: instructions_ratio over 4 runs\n"
                      "  figure: instruction count ratio, exact: what max_instructions_ratio reads; higher is worse\n"
                      "  gated: max_instructions_ratio checked it in 4 of 4 runs\n" +
                      rows);
  // --figure still picks one, and says when no recorded gate read it.
  TrendOptions wall;
  wall.figure = "speedup";
  const std::string wall_text = TrendText({s}, wall);
  EXPECT_EQ(wall_text.rfind("work: speedup over 4 runs\n", 0), 0u) << wall_text;
  EXPECT_NE(wall_text.find("  not gated: no recorded run checked a threshold that reads it\n"), std::string::npos)
      << wall_text;
  // The HTML page draws the same figures: a chart for each.
  const std::string html = TrendHtml({s}, {}, "t");
  EXPECT_NE(html.find("aria-label=\"median_round_cpu_ratio of work over 4 runs\""), std::string::npos) << html;
  EXPECT_NE(html.find("aria-label=\"instructions_ratio of work over 4 runs\""), std::string::npos) << html;
  EXPECT_EQ(html.find("aria-label=\"median_round_speedup of work"), std::string::npos) << html;
  EXPECT_NE(html.find("gated: max_slowdown checked it in 3 of 4 runs.</p>"), std::string::npos) << html;
}

// Issue 42, item 6: a 1.000x to 1.197x jump in instructions over three runs printed "no change
// point", with no word on how many runs one needs: two on each side (kMinRunsPerSegment).
TEST(TrendTest, TooFewRunsForAChangePointSaysHowManyItNeeds) {
  WorkloadSeries s = Series("work", {1.0, 1.0, 1.197});
  s.figures[0].first = "instructions_ratio";
  s.checked = {{"max_instructions_ratio", 3}};
  const std::string text = TrendText({s}, {});
  EXPECT_NE(text.find("  3  2026-12-03T00:00:00Z  cccccccccccc  ci  1.197x\n"
                      "  no change point sought: 3 runs recorded, and a change point needs at least 4 (2 either "
                      "side)\n\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("  no change point\n"), std::string::npos) << text;
  EXPECT_NE(TrendText({Series("work", {1.5})}, {})
                .find("  no change point sought: 1 run recorded, and a change "
                      "point needs at least 4 (2 either side)\n"),
            std::string::npos);
  // With the fourth run the exact step is found.
  WorkloadSeries four = Series("work", {1.0, 1.0, 1.197, 1.197});
  four.figures[0].first = "instructions_ratio";
  four.checked = {{"max_instructions_ratio", 4}};
  EXPECT_NE(TrendText({four}, {})
                .find("  change point at run 3 (2026-12-03T00:00:00Z, commit cccccccccccc): median "
                      "1.000x -> 1.197x (+19.7%, worse)\n"),
            std::string::npos)
      << TrendText({four}, {});
  EXPECT_EQ(kMinRunsForChangePoint, 4u);
  EXPECT_TRUE(TrendChangePoints({1.0, 1.0, 1.197}).empty());
}

}  // namespace
}  // namespace pe::history
