// The report as one self-contained HTML page (docs/html-report.md): the verdict and the
// workload table, then per sweep its tables and charts (throughput against threads, time
// against scale), then per workload each contender's time distribution and the paired
// ratio round by round. Charts are inline SVG drawn here; the page has no script and
// names no URL, so opening it fetches nothing. Text from a contender or the spec is
// HTML-escaped everywhere. The output is deterministic: the same result, the same bytes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "engine/model/result.h"

namespace pe::report {

std::string HtmlReport(const model::RunResult& result);

// HtmlReport written with WriteFileAtomically; throws std::runtime_error as it does.
void WriteHtmlReport(const model::RunResult& result, const std::filesystem::path& path);

// Text made inert in HTML text and in quoted attribute values: & < > " ' become
// entities, control characters other than newline and tab become '?'.
std::string EscapeHtml(std::string_view text);

}  // namespace pe::report
