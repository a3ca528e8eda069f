// Writes the HTML report of the reporter tests' sweep sample (tests/unit/report/
// sweep_result.h) to the path given, for check_html_report.py to open in Chromium. Two
// workloads get a speed-up interval and a note, so the page shows how they are drawn.
#include <exception>
#include <iostream>

#include "engine/report/reporter.h"
#include "tests/unit/report/sweep_result.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: html_report_writer OUTPUT.html\n";
    return 2;
  }
  try {
    pe::model::RunResult result = pe::testing::SweepSampleResult();
    for (pe::model::WorkloadResult& w : result.workloads) {
      if (!w.comparison) continue;
      // Exactly two workloads carry an interval (check_html_report.py counts the bands); the
      // sample gives every workload a sequence, so start from none.
      w.comparison->speedup_cs.reset();
      w.comparison->speedup_ci.reset();
      if (w.name == "large_graph") {
        w.comparison->speedup_cs = pe::model::Interval{8.42, 7.6, 9.3, 0.95, "confidence sequence"};
        w.comparison->notes = {"bootstrap BCa, 2000 resamples, seed 1"};
      }
      if (w.name == "medium_graph")
        w.comparison->speedup_ci = pe::model::Interval{19.7, 18.0, 21.5, 0.95, "bootstrap BCa"};
    }
    pe::report::WriteReport("html", result, argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "html_report_writer: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
