// The one rule for what a report's table shows (engine/report/gated_figures.h), tested against
// the threshold table: every row of model::kThresholdRows, judged by the real gate, shows its
// own figure with its interval (a sequence) or its exact values (a point), and its verdict;
// then each reporter shows those lines and not the figures no check read (issue 42 item 1).
#include "engine/report/gated_figures.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "engine/gate/gate.h"
#include "engine/model/threshold_table.h"
#include "engine/report/csv_reporter.h"
#include "engine/report/html_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "engine/report/overview.h"
#include "engine/report/terminal_reporter.h"
#include "engine/units/units.h"
#include "tests/unit/report/sample_result.h"

namespace pe::report {
namespace {

using model::Comparison;
using model::Interval;
using model::RunResult;
using model::ThresholdRow;
using model::WorkloadResult;

// One gated workload whose comparison holds every figure a threshold row can read, each
// distinct, so a row that showed another row's figure would be seen. `kind` kServe for p99.
RunResult EveryFigure(WorkloadResult::Kind kind) {
  RunResult r;
  r.settings.rounds = 12;
  r.baseline = "old";
  r.candidate = "new";
  r.contenders = {{"old", "", {"old"}, {}}, {"new", "", {"new"}, {}}};
  WorkloadResult w;
  w.name = "work";
  w.kind = kind;
  model::ContenderSummary b = testing::SummaryOf("old", 0.2), k = testing::SummaryOf("new", 0.1);
  b.instructions = 1000000;
  k.instructions = 1010000;
  b.own_instructions = 200000;
  k.own_instructions = 202000;
  b.allocation_calls = 400;
  k.allocation_calls = 404;
  b.median_max_rss_kib = 2048;
  k.median_max_rss_kib = 2150;
  b.serve = model::ServeFigures{100, 0.01, 0.02, 0.040, 0.05, 90, 0.02};
  k.serve = model::ServeFigures{100, 0.01, 0.02, 0.041, 0.05, 95, 0.02};
  w.summaries = {b, k};
  Comparison c;
  c.baseline = "old";
  c.candidate = "new";
  c.rounds = 12;
  c.wins = 11;
  c.win_rate = 11.0 / 12;
  c.speedup = 1.97;  // descriptive: no check reads it
  c.speedup_cs = Interval{2.11, 2.01, 2.21, 0.99, "confidence sequence"};
  c.win_rate_cs = Interval{0.92, 0.71, 0.99, 0.99, "confidence sequence"};
  c.logic_speedup = 2.5;
  c.logic_speedup_cs = Interval{2.31, 2.22, 2.44, 0.99, "confidence sequence"};
  c.cpu_ratio = 0.93;  // descriptive: max_slowdown reads the sequence
  c.cpu_ratio_cs = Interval{1.01, 0.97, 1.03, 0.99, "confidence sequence"};
  c.rss_ratio = 1.05;
  c.p99_ratio = 1.025;
  c.instructions_ratio = 1.01;
  c.own_instructions_ratio = 1.01;
  c.allocations_ratio = 1.01;
  w.comparison = c;
  r.workloads = {w};
  return r;
}

// The bar each row passes at: below a figure that must be high, above one that must be low.
double PassingBar(const ThresholdRow& row) {
  if (row.unit == model::Check::Unit::kRate) return 0.6;
  return row.higher_is_better ? 1.5 : 1.2;
}

TEST(GatedFiguresTest, EveryThresholdRowShowsItsOwnFigureWithItsIntervalOrExactValuesAndItsVerdict) {
  for (const ThresholdRow& row : model::kThresholdRows) {
    SCOPED_TRACE(std::string(row.key));
    RunResult r =
        EveryFigure(row.key == "max_p99_ratio" ? WorkloadResult::Kind::kServe : WorkloadResult::Kind::kProcess);
    r.workloads[0].thresholds.*row.bar = PassingBar(row);
    r.verdict = gate::Judge(r);
    const std::vector<GatedFigure> figures = GatedFigures(r, r.workloads[0], "new", &*r.workloads[0].comparison, "");
    ASSERT_EQ(figures.size(), 1u);
    const GatedFigure& f = figures[0];
    EXPECT_EQ(f.threshold, row.key);
    EXPECT_EQ(f.check, std::string(row.label) + " (" + std::string(row.key) + ")");
    EXPECT_EQ(f.verdict, "pass");
    EXPECT_EQ(f.status, RowStatus::kPass);
    EXPECT_EQ(f.bar.substr(0, f.bar.rfind(' ')), row.higher_is_better ? "at least" : "at most");
    const Comparison& c = *r.workloads[0].comparison;
    if (row.burden != model::Check::Burden::kPoint) {
      // The estimate of the row's own sequence, and its interval.
      const Interval& cs = *(c.*row.sequence);
      const bool rate = row.unit == model::Check::Unit::kRate;
      auto text = [&](double x) { return rate ? units::FormatPercent(x) : units::FormatRatio(x); };
      EXPECT_EQ(f.figure.substr(0, f.figure.find(' ')), text(cs.estimate)) << f.figure;
      EXPECT_NE(f.figure.find(text(cs.low) + "-" + text(cs.high)), std::string::npos) << f.figure;
      if (row.shows_wins) EXPECT_NE(f.figure.find("11/12 won"), std::string::npos) << f.figure;
    } else {
      // The row's point figure and the exact values it divides.
      EXPECT_EQ(f.figure.substr(0, f.figure.find(' ')), units::FormatRatio(*(c.*row.point), 2)) << f.figure;
      EXPECT_NE(f.figure.find(" -> "), std::string::npos) << "no exact values: " << f.figure;
    }
    // No other row's figure: the descriptive ratios of medians are not shown.
    EXPECT_EQ(f.figure.find("1.97x"), std::string::npos) << f.figure;
    EXPECT_EQ(f.figure.find("0.93x"), std::string::npos) << f.figure;
  }
}

TEST(GatedFiguresTest, EveryGatedRowIsShownInTheThresholdTablesOrderThenTheCounters) {
  RunResult r = EveryFigure(WorkloadResult::Kind::kProcess);
  std::vector<std::string> expected;
  for (const ThresholdRow& row : model::kThresholdRows) {
    if (row.key == "max_p99_ratio") continue;  // a serve workload's
    r.workloads[0].thresholds.*row.bar = PassingBar(row);
    expected.push_back(std::string(row.key));
  }
  r.workloads[0].counters = {{"objects", "objects", true, 1.10}, {"bytes", "B", false, std::nullopt}};
  r.workloads[0].comparison->counters = {{"objects", 1200, 1212, 1.01, std::nullopt, std::nullopt, "", std::nullopt},
                                         {"bytes", 10, 11, 1.1, std::nullopt, std::nullopt, "", std::nullopt}};
  expected.push_back("counters.objects");  // the one with a bar
  r.verdict = gate::Judge(r);
  std::vector<std::string> shown;
  for (const GatedFigure& f : GatedFigures(r, r.workloads[0], "new", &*r.workloads[0].comparison, "")) {
    shown.push_back(f.threshold);
  }
  EXPECT_EQ(shown, expected);
  const GatedFigure counter = GatedFigures(r, r.workloads[0], "new", &*r.workloads[0].comparison, "").back();
  EXPECT_EQ(counter.check, "objects ratio (counters.objects)");
  EXPECT_EQ(counter.figure, "1.01x (1200 -> 1212 objects)");
  EXPECT_EQ(counter.bar, "at most 1.10x");
}

TEST(GatedFiguresTest, AWorkloadNoCheckGatesShowsTheSpeedupLabelledAsInformation) {
  RunResult r = EveryFigure(WorkloadResult::Kind::kProcess);
  r.verdict = gate::Judge(r);  // no bar: nothing gated
  std::vector<GatedFigure> figures = GatedFigures(r, r.workloads[0], "new", &*r.workloads[0].comparison, "");
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_EQ(figures[0].check, "median per-round speed-up (information)");
  EXPECT_EQ(figures[0].figure, "2.11x (2.01x-2.21x)");
  EXPECT_EQ(figures[0].bar, "");
  EXPECT_EQ(figures[0].verdict, "-");
  r.workloads[0].gate = false;
  r.workloads[0].thresholds.max_slowdown = 1.05;
  r.verdict = gate::Judge(r);
  figures = GatedFigures(r, r.workloads[0], "new", &*r.workloads[0].comparison, "");
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_EQ(figures[0].verdict, "(not gated)");
}

TEST(GatedFiguresTest, EachCheckHasItsOwnVerdictAndAMissNeverPrintsAsItsBar) {
  RunResult r = EveryFigure(WorkloadResult::Kind::kProcess);
  r.workloads[0].thresholds.max_slowdown = 1.02;             // 0.97x-1.03x: passes, not shown either way
  r.workloads[0].thresholds.max_instructions_ratio = 1.005;  // 1.01x: missed
  r.workloads[0].thresholds.min_speedup = 2.1;               // 2.01x-2.21x: unresolved
  r.verdict = gate::Judge(r);
  const std::vector<GatedFigure> f = GatedFigures(r, r.workloads[0], "new", &*r.workloads[0].comparison, "");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(GatedFigureLine(f[0]), "median speedup (min_speedup) 2.11x (2.01x-2.21x), at least 2.10x: unresolved");
  EXPECT_EQ(f[0].status, RowStatus::kUnresolved);
  EXPECT_EQ(GatedFigureLine(f[1]),
            "paired CPU-time ratio (max_slowdown) 1.01x (0.97x-1.03x), at most 1.02x: pass (unresolved)");
  EXPECT_EQ(f[1].status, RowStatus::kPass);
  EXPECT_EQ(GatedFigureLine(f[2]),
            "instruction count ratio (max_instructions_ratio) 1.010x (1000000 -> 1010000 instructions), at most "
            "1.005x: missed");
  EXPECT_EQ(f[2].status, RowStatus::kMissed);
}

// The lz4 case of issue 42: a workload gated on CPU time only read `decompress ... 1.04x ...
// missed` (the wall-time speed-up beside a CPU-time miss). Every table now shows the CPU-time
// figure the check read beside its verdict, and not the wall-time speed-up.
RunResult CpuGatedMiss() {
  RunResult r = EveryFigure(WorkloadResult::Kind::kProcess);
  r.workloads[0].name = "decompress";
  Comparison& c = *r.workloads[0].comparison;
  c.speedup_cs = Interval{1.04, 0.98, 1.09, 0.99, "confidence sequence"};
  c.cpu_ratio = 0.96;
  c.cpu_ratio_cs = Interval{1.07, 1.06, 1.08, 0.99, "confidence sequence"};
  r.workloads[0].thresholds.max_slowdown = 1.05;
  r.verdict = gate::Judge(r);
  return r;
}

TEST(GatedFiguresTest, TheTerminalTableShowsTheFigureTheCheckReadBesideItsVerdict) {
  const RunResult r = CpuGatedMiss();
  std::ostringstream out;
  WriteTerminalReport(r, out, false);
  const std::string text = out.str();
  EXPECT_NE(text.find("paired CPU-time ratio (max_slowdown)  1.07x (1.06x-1.08x)  at most 1.05x  missed\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("1.04x"), std::string::npos) << text;  // the ungated wall-time speed-up
  EXPECT_EQ(text.find("0.96x"), std::string::npos) << text;  // the CPU ratio of medians
}

TEST(GatedFiguresTest, TheMarkdownTableShowsTheFigureTheCheckReadBesideItsVerdict) {
  const std::string md = MarkdownReport(CpuGatedMiss());
  EXPECT_NE(md.find("| decompress | 200 ms | 100 ms | 12 | paired CPU-time ratio (max\\_slowdown) | 1.07x "
                    "(1.06x-1.08x) | at most 1.05x | **missed** |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("1.04x"), std::string::npos) << md;
  EXPECT_EQ(md.find("0.96x"), std::string::npos) << md;
}

TEST(GatedFiguresTest, TheHtmlTableShowsTheFigureTheCheckReadBesideItsVerdict) {
  const std::string html = HtmlReport(CpuGatedMiss());
  EXPECT_NE(html.find("<tr><td>decompress</td><td>200 ms</td><td>100 ms</td><td>12</td><td>paired CPU-time ratio "
                      "(max_slowdown)</td><td>1.07x (1.06x-1.08x)</td><td>at most 1.05x</td><td class=\"verdict "
                      "missed\">missed</td></tr>"),
            std::string::npos)
      << html;
  // The workload's section lists the same figure; the ratio chart's band is information.
  EXPECT_NE(html.find("<li>paired CPU-time ratio (max_slowdown) 1.07x (1.06x-1.08x), at most 1.05x: <span "
                      "class=\"verdict missed\">missed</span></li>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("0.96x"), std::string::npos);
}

TEST(GatedFiguresTest, TheCsvRowCarriesEachCheckAndTheCpuRatioWithItsOwnInterval) {
  const std::string csv = CsvReport(CpuGatedMiss());
  EXPECT_NE(csv.find(",1.07,1.06,1.08,"), std::string::npos) << csv;  // cpu_ratio, its low and high
  EXPECT_NE(csv.find(",\"paired CPU-time ratio (max_slowdown) 1.07x (1.06x-1.08x), at most 1.05x: missed\"\n"),
            std::string::npos)
      << csv;
  EXPECT_EQ(csv.substr(0, csv.find('\n')).substr(csv.find(",notes,")), ",notes,checks");
}

}  // namespace
}  // namespace pe::report
