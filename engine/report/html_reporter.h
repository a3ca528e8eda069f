// The report as one self-contained HTML page (docs/html-report.md): the verdict and the
// workload table, then per sweep its tables and charts (throughput against threads, time
// against scale), then per workload each contender's time distribution and the paired
// ratio round by round. Each section is a file of its own (html_page.h names them); charts
// are inline SVG; the page has no script and names no URL, so opening it fetches nothing. Text from a contender or the
// spec is HTML-escaped everywhere. The output is deterministic: the same result, the same bytes.
#pragma once

#include <string>

#include "engine/model/result.h"
#include "engine/report/reporter.h"

namespace pe::report {

std::string HtmlReport(const model::RunResult& result);

class HtmlReporter final : public Reporter {
 public:
  std::string Render(const model::RunResult& result, const RenderOptions& options) const override;
};

}  // namespace pe::report
