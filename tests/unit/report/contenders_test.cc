// Reports of a run with three contenders (gzip baseline, zstd the run's candidate, lz4 a further
// candidate): a table row per candidate, its own ratios in the CSV, and the summary line.
#include <gtest/gtest.h>

#include "engine/report/csv_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "engine/report/overview.h"
#include "engine/report/speedup_summary.h"
#include "tests/unit/report/sample_result.h"

namespace pe::report {

using model::Check;
using model::Comparison;
using model::Interval;
using model::RunResult;
using model::WorkloadResult;
namespace {

Comparison Pair(const std::string& baseline, const std::string& candidate, double speedup, Interval cs) {
  Comparison c;
  c.baseline = baseline;
  c.candidate = candidate;
  c.speedup = speedup;
  c.rounds = 8;
  c.wins = 8;
  c.win_rate = 1;
  c.speedup_cs = cs;
  return c;
}

RunResult Compressors(bool all_pairs) {
  RunResult r;
  r.baseline = "gzip";
  r.candidate = "zstd";
  r.settings.compare = all_pairs ? "all-pairs" : "baseline";
  for (const char* name : {"gzip", "zstd", "lz4"}) r.contenders.push_back({name, "", {name}, {}, "", ""});
  WorkloadResult w;
  w.name = "compress";
  w.summaries = {testing::SummaryOf("gzip", 1.0), testing::SummaryOf("zstd", 0.4), testing::SummaryOf("lz4", 0.2)};
  w.comparison = Pair("gzip", "zstd", 2.5, {2.5, 2.25, 2.75, 0.95, ""});
  w.other_comparisons = {Pair("gzip", "lz4", 5, {5, 4.5, 5.5, 0.95, ""})};
  if (all_pairs) w.other_comparisons.push_back(Pair("zstd", "lz4", 2, {2, 1.8, 2.2, 0.95, ""}));
  r.workloads.push_back(w);
  Check missed = testing::CheckOf("compress", "min_speedup", "median speedup", 5, 6);
  missed.contender = "lz4";
  missed.state = Check::State::kFail;
  r.verdict.checks = {testing::CheckOf("compress", "min_speedup", "median speedup", 2.5, 2), missed};
  return r;
}

TEST(ThreeContenders, ARowPerCandidateNamingIt) {
  const RunResult r = Compressors(false);
  EXPECT_EQ(ColumnHeadings(r), (std::vector<std::string>{"workload", "contender", "baseline median", "contender median",
                                                         "rounds", "check", "figure", "bar", "verdict"}));
  const std::vector<WorkloadRow> rows = ComparisonRows(r);
  ASSERT_EQ(rows.size(), 2u);
  // Each candidate's own check, with its own figure and verdict.
  EXPECT_EQ(Lines(rows[0]).front().cells,
            (std::vector<std::string>{"compress", "zstd", "1.00 s", "400 ms", "8", "median speedup (min_speedup)",
                                      "2.50x", "at least 2.00x", "pass"}));
  EXPECT_EQ(Lines(rows[1]).front().cells,
            (std::vector<std::string>{"compress", "lz4", "1.00 s", "200 ms", "8", "median speedup (min_speedup)",
                                      "5.00x", "at least 6.00x", "missed"}));
}

TEST(ThreeContenders, TwoContendersKeepTheirTable) {
  RunResult r = Compressors(false);
  r.contenders.pop_back();
  r.workloads[0].other_comparisons.clear();
  EXPECT_EQ(ColumnHeadings(r).size(), std::size(kColumnHeadings));
  EXPECT_EQ(ComparisonRows(r).size(), 1u);
  EXPECT_TRUE(SpeedupSummary(r).empty());
}

TEST(ThreeContenders, SummaryAgainstTheBaselineWithoutAllPairs) {
  EXPECT_EQ(SpeedupSummary(Compressors(false)),
            (std::vector<std::string>{
                "median per-round speed-up [95% confidence sequence], the figure min_speedup reads",
                "compress: lz4 ran 5.00x [4.50x, 5.50x] faster than gzip; zstd ran 2.50x [2.25x, 2.75x] faster than "
                "gzip"}));
}

TEST(ThreeContenders, SummaryInHyperfinesFormWithAllPairs) {
  // zstd-lz4 is stored as (zstd, lz4): lz4 over zstd is its speed-up as it stands.
  EXPECT_EQ(SpeedupSummary(Compressors(true))[1],
            "compress: lz4 ran 2.00x [1.80x, 2.20x] faster than zstd, 5.00x [4.50x, 5.50x] than gzip");
}

TEST(ThreeContenders, CsvRowsCarryEachCandidatesOwnComparison) {
  RunResult r = Compressors(false);
  r.workloads[0].summaries[2].instructions = 123;
  r.workloads[0].other_comparisons[0].cpu_ratio = 0.3;
  const std::string csv = CsvReport(r);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header,
            "workload,contender,role,against,n,median_wall_s,min_wall_s,max_wall_s,median_user_s,median_sys_s,"
            "median_cpu_s,median_max_rss_kib,instructions,allocation_calls,per_round_speedup,per_round_speedup_low,"
            "per_round_speedup_high,ratio_of_medians,ratio_of_medians_low,ratio_of_medians_high,win_rate,"
            "logic_speedup,cpu_ratio,cpu_ratio_low,cpu_ratio_high,instructions_ratio,allocations_ratio,rss_ratio,"
            "verdict,parity,commit,ref,dirty,build,run_time_s,build_s,fixtures_s,parity_s,measuring_s,analysis_s,"
            "notes,checks");
  EXPECT_NE(csv.find("\ncompress,gzip,baseline,,10,1,0.95,1.1,0.8,0.1,0,123456,,,,,,,,,,,,,,,,,,exact,,,,,,,,,,,,\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(
      csv.find(
          "\ncompress,zstd,candidate,gzip,10,0.4,0.38,0.44000000000000006,0.32000000000000006,0.04000000000000001,0,"
          "123456,,,2.5,2.25,2.75,2.5,,,1,,,,,,,,pass,exact,,,,,,,,,,,,\"median speedup (min_speedup) 2.50x, at least "
          "2.00x: pass\"\n"),
      std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\ncompress,lz4,candidate,gzip,10,0.2,0.19,0.22000000000000003,0.16000000000000003,"
                     "0.020000000000000004,0,123456,123,,5,4.5,5.5,5,,,1,,0.3,,,,,,missed,exact,,,,,,,,,,,,\"median "
                     "speedup (min_speedup) 5.00x, at least 6.00x: missed\"\n"),
            std::string::npos)
      << csv;
}

TEST(ThreeContenders, MarkdownListsEveryContenderAndTheSummary) {
  const std::string md = MarkdownReport(Compressors(false));
  EXPECT_NE(md.find("| workload | contender | baseline median | contender median |"), std::string::npos) << md;
  EXPECT_NE(md.find("| :--- | :--- | ---: | ---: | ---: | :--- | ---: | ---: | :--- |"), std::string::npos) << md;
  EXPECT_NE(md.find("| compress | lz4 | 1.00 s | 200 ms |"), std::string::npos) << md;
  EXPECT_NE(md.find("**Summary** (median per-round speed-up \\[95% confidence sequence\\], the figure min\\_speedup "
                    "reads):\n\n- compress: lz4 ran"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace pe::report
