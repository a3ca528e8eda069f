// The CSV export: a header, one row per workload and contender, base units, RFC 4180 quoting.
#include "engine/report/csv_reporter.h"

#include <gtest/gtest.h>

#include "tests/unit/report/sample_result.h"

namespace pe::report {

using model::Interval;
using model::RunResult;
using model::WorkloadResult;
namespace {

TEST(CsvReport, OneRowPerWorkloadAndContender) {
  RunResult r;
  r.baseline = "old";
  r.candidate = "new";
  WorkloadResult w = testing::MeasuredWorkload("sort, big", "d", 2.0, 1.0, 7);
  w.summaries[0].contender = "old";
  w.summaries[1].contender = "new";
  w.parity = "none";
  w.comparison->speedup_ci = Interval{2.0, 1.5, 2.5, 0.95, "bootstrap"};
  r.workloads.push_back(w);
  WorkloadResult failed;
  failed.name = "crashed";
  failed.summaries = {testing::SummaryOf("old", 0.5)};
  r.workloads.push_back(failed);
  EXPECT_EQ(
      CsvReport(r),
      "workload,contender,role,against,n,median_wall_s,min_wall_s,max_wall_s,median_user_s,median_sys_s,"
      "median_cpu_s,median_max_rss_kib,instructions,allocation_calls,per_round_speedup,per_round_speedup_low,"
      "per_round_speedup_high,ratio_of_medians,ratio_of_medians_low,ratio_of_medians_high,win_rate,logic_speedup,"
      "cpu_ratio,cpu_ratio_low,cpu_ratio_high,instructions_ratio,allocations_ratio,rss_ratio,verdict,parity,"
      "commit,ref,dirty,build,run_time_s,build_s,fixtures_s,parity_s,measuring_s,analysis_s,notes,checks\n"
      "\"sort, big\",old,baseline,,10,2,1.9,2.2,1.6,0.2,0,123456,,,,,,,,,,,,,,,,,,none,,,,,,,,,,,,\n"
      "\"sort, "
      "big\",new,candidate,old,10,1,0.95,1.1,0.8,0.1,0,123456,,,2,1.8,2.2,2,1.5,2.5,0.7,,,,,,,,-,none,,,,,,,,,,,,\n"
      "crashed,old,baseline,,10,0.5,0.475,0.55,0.4,0.05,0,123456,,,,,,,,,,,,,,,,,,exact,,,,,,,,,,,,\n");
}

// The figure min_speedup reads comes first, the ratio of medians (descriptive) after it.
TEST(CsvReport, ThePerRoundSpeedupComesBeforeTheDescriptiveRatioOfMedians) {
  RunResult r;
  r.baseline = "old";
  r.candidate = "new";
  WorkloadResult w = testing::MeasuredWorkload("w", "d", 2.0, 1.0, 7);
  w.summaries[0].contender = "old";
  w.summaries[1].contender = "new";
  w.comparison->speedup_cs = Interval{1.8, 1.6, 2.1, 0.95, "confidence sequence"};
  w.comparison->speedup_ci = Interval{2.0, 1.5, 2.5, 0.95, "bootstrap"};
  r.workloads.push_back(w);
  EXPECT_NE(CsvReport(r).find(",123456,,,1.8,1.6,2.1,2,1.5,2.5,0.7,"), std::string::npos) << CsvReport(r);
}

// What measuring showed (a server killed with SIGKILL) is in the last column of each of the
// workload's rows, as the terminal and Markdown reports show it.
TEST(CsvReport, EachRowCarriesItsWorkloadsNotes) {
  RunResult r;
  r.baseline = "old";
  r.candidate = "new";
  WorkloadResult w = testing::MeasuredWorkload("serve", "d", 2.0, 1.0, 7);
  w.summaries[0].contender = "old";
  w.summaries[1].contender = "new";
  w.notes = {"contender 'new': server ignored SIGTERM and was killed with SIGKILL after 5 s", "second, note"};
  r.workloads.push_back(w);
  const std::string csv = CsvReport(r);
  const std::string cell =
      ",\"contender 'new': server ignored SIGTERM and was killed with SIGKILL after 5 s; second, note\",\n";
  const std::size_t first = csv.find(cell);
  ASSERT_NE(first, std::string::npos) << csv;
  EXPECT_NE(csv.find(cell, first + 1), std::string::npos) << csv;  // on the baseline's row and the candidate's
}

TEST(CsvReport, QuotesQuotesAndLineBreaks) {
  RunResult r;
  WorkloadResult w;
  w.name = "say \"hi\"\nthere";
  w.summaries = {testing::SummaryOf("x", 1)};
  r.workloads.push_back(w);
  const std::string csv = CsvReport(r);
  EXPECT_NE(csv.find("\n\"say \"\"hi\"\"\nthere\",x,candidate,,10,"), std::string::npos) << csv;
}

// CSV injection (OWASP): a text cell from the spec or a contender that a spreadsheet would read
// as a formula gets a leading ' and is quoted; the engine's own numbers stay bare, negative too.
TEST(CsvReport, TextThatASpreadsheetWouldReadAsAFormulaIsNeutralised) {
  RunResult r;
  r.baseline = "-2+3";
  r.candidate = "@SUM(A1)";
  WorkloadResult w = testing::MeasuredWorkload("=HYPERLINK(\"http://x\",\"y\")", "d", 2.0, 1.0, 7);
  w.summaries[0].contender = "-2+3";
  w.summaries[1].contender = "@SUM(A1)";
  w.parity = "+cmd";
  w.comparison->logic_speedup = -0.5;  // startup-adjusted medians can cross: a number, kept
  r.workloads.push_back(w);
  WorkloadResult tab = testing::MeasuredWorkload("\tx", "d", 2.0, 1.0, 7);
  tab.summaries[0].contender = "\rcr";  // a lone CR is a control character: '?', no formula left
  tab.summaries[1].contender = "plain-name";
  r.workloads.push_back(tab);
  const std::string csv = CsvReport(r);
  const std::string formula = "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"";
  // The two contenders that are neither baseline nor the run's candidate have no comparison
  // here: their rows carry no ratios (they once carried the other pair's).
  EXPECT_EQ(
      csv.substr(csv.find('\n') + 1),
      formula + ",\"'-2+3\",baseline,,10,2,1.9,2.2,1.6,0.2,0,123456,,,,,,,,,,,,,,,,,,\"'+cmd\",,,,,,,,,,,,\n" +
          formula +
          ",\"'@SUM(A1)\",candidate,\"'-2+3\",10,1,0.95,1.1,0.8,0.1,0,123456,,,2,1.8,2.2,2,,,0.7,-0.5,,,,,,,-,"
          "\"'+cmd\",,,,,,,,,,,,\n"
          "\"'\tx\",?cr,candidate,\"'-2+3\",10,2,1.9,2.2,1.6,0.2,0,123456,,,,,,,,,,,,,,,,,-,exact,,,,,,,,,,,,\n"
          "\"'\tx\",plain-name,candidate,\"'-2+3\",10,1,0.95,1.1,0.8,0.1,0,123456,,,,,,,,,,,,,,,,,-,exact,,,,,,,,,,,,"
          "\n");
}

// A results file's names reach the CSV (`report --csv`): ESC and other control characters once
// went in raw, to a terminal that `cat`s the file. They are '?' as in the terminal's report.
TEST(CsvReport, TextCellsCarryNoControlCharacters) {
  RunResult r;
  r.baseline = "old";
  r.candidate = "new";
  WorkloadResult w = testing::MeasuredWorkload(
      "a\x1b]52;c;aGk=\x07"
      "b\x1b[31mc\xe2\x80\xae"
      "d\re",
      "d", 2.0, 1.0, 7);
  w.summaries[0].contender = "old";
  w.summaries[1].contender = "new\x1b[2J";
  w.notes = {"note\x1b[1m"};
  r.workloads.push_back(w);
  const std::string csv = CsvReport(r);
  EXPECT_EQ(csv.find('\x1b'), std::string::npos) << csv;
  EXPECT_EQ(csv.find('\x07'), std::string::npos) << csv;
  EXPECT_EQ(csv.find('\r'), std::string::npos) << csv;
  EXPECT_EQ(csv.find("\xe2\x80\xae"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\na?]52;c;aGk=?b?[31mc?d?e,old,baseline,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\na?]52;c;aGk=?b?[31mc?d?e,new?[2J,candidate,old,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",note?[1m,\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace pe::report
