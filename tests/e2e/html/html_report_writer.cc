// Writes the HTML report of the reporter tests' sweep sample (tests/unit/report/
// sweep_result.h) to the path given, for check_html_report.py to open in Chromium.
#include <exception>
#include <iostream>

#include "engine/report/html_reporter.h"
#include "tests/unit/report/sweep_result.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: html_report_writer OUTPUT.html\n";
    return 2;
  }
  try {
    pe::report::WriteHtmlReport(pe::testing::SweepSampleResult(), argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "html_report_writer: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
