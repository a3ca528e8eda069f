#include "engine/report/html_reporter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "engine/model/names.h"
#include "engine/report/confidence_lines.h"
#include "engine/report/details.h"
#include "engine/report/html_escape.h"
#include "engine/report/html_page.h"
#include "engine/report/machine_load_line.h"
#include "engine/report/overview.h"
#include "engine/report/provenance.h"
#include "engine/report/shards.h"
#include "engine/report/speedup_summary.h"
#include "engine/report/sweep_report.h"
#include "engine/report/text.h"
#include "engine/units/units.h"

namespace pe::report {

using model::ExitCode;
using model::Failure;
using model::FailureKindName;
using model::MachineInfo;
using model::RunResult;
using model::SweepResult;
namespace {

using html::Esc;
using html::IdMaker;
using html::StatusClass;

// ---------------------------------------------------------------------------------------
// Page furniture.

// The page may load nothing at all: the policy blocks any fetch an injected tag could
// start, and the empty data: icon keeps the browser from asking for /favicon.ico.
constexpr std::string_view kHead = R"(<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
)";

constexpr std::string_view kStyle = R"(<style>
body { font-family: system-ui, sans-serif; margin: 24px; color: #1d1d1f; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1em; margin-bottom: 0.3em; }
p, li { max-width: 70em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 14px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e4e4e4; text-align: right; white-space: nowrap; }
th { background: #f4f4f6; font-weight: 600; }
th.contender { text-align: center; border-left: 2px solid #fff; }
th:first-child, td:first-child, td.verdict { text-align: left; }
.verdict.pass { color: #1a7f37; }
.verdict.missed, .verdict.failed { color: #cf222e; font-weight: 600; }
.verdict.not-gated { color: #6e7781; }
.summary { font-size: 1.2em; font-weight: 700; }
.summary.pass { color: #1a7f37; }
.summary.threshold-missed, .summary.run-failed { color: #cf222e; }
.summary.interrupted { color: #9a6700; }
.failing li { color: #cf222e; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; max-width: 100em; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
svg.chart { background: #fff; border: 1px solid #e4e4e4; }
svg.chart text { font-family: system-ui, sans-serif; font-size: 11px; fill: #333; }
svg.chart .chart-title { font-size: 13px; font-weight: 600; }
svg.chart .grid { stroke: #ececec; }
svg.chart .axis { stroke: #888; }
svg.chart .reference { stroke: #555; stroke-dasharray: 5 4; }
.note { color: #6e7781; }
</style>
)";

// One colour per contender, in spec order; the baseline is usually first (blue).
// ---------------------------------------------------------------------------------------
// Tables and text.

std::string HeadingRow(const std::vector<std::string>& headings) {
  std::string html = "<tr>";
  for (const auto& heading : headings) html += fmt::format("<th>{}</th>", Esc(heading));
  return html + "</tr>\n";
}

std::string WorkloadTable(const RunResult& result) {
  std::string html = "<table class=\"workloads\">\n";
  html += HeadingRow(ColumnHeadings(result));
  for (const auto& row : ComparisonRows(result)) {
    for (const TableLine& line : Lines(row)) {
      html += "<tr>";
      for (std::size_t c = 0; c + 1 < line.cells.size(); ++c) {
        html += fmt::format("<td>{}</td>", Esc(line.cells[c]));
      }
      html += fmt::format("<td class=\"verdict {}\">{}</td></tr>\n", StatusClass(line.status), Esc(line.cells.back()));
    }
  }
  html += "</table>\n";
  if (const auto summary = SpeedupSummary(result); !summary.empty()) {
    html += fmt::format("<p class=\"speedup-summary\">Summary ({}):</p>\n<ul class=\"speedup-summary\">\n",
                        Esc(summary.front()));
    for (std::size_t i = 1; i < summary.size(); ++i) html += fmt::format("<li>{}</li>\n", Esc(summary[i]));
    html += "</ul>\n";
  }
  return html;
}

// What the Markdown report lists below its table, in the same order and words (details.h):
// counts, counters and CPU time; servers; where the extra time went. Preformatted, as the
// Markdown's fenced blocks are, so a profile's indented lines keep their shape.
std::string MeasureSections(const RunResult& result) {
  std::string html;
  for (const auto& [id, title, lines] : {std::tuple{"counts", "Counts and CPU time", MeasureLines(result)},
                                         std::tuple{"servers", "Servers", ServeLines(result)},
                                         std::tuple{"profiles", "Where the extra time went", ProfileLines(result)}}) {
    if (lines.empty()) continue;
    std::string text;
    for (const auto& line : lines) text += Printable(line) + "\n";
    html += fmt::format("<h2 id=\"{}\">{}</h2>\n<pre class=\"{}\">{}</pre>\n", id, title, id, EscapeHtml(text));
  }
  return html;
}

std::string FailureSection(const RunResult& result) {
  std::string html;
  if (const std::vector<std::string> notes = ReportNotes(result); !notes.empty()) {
    html += "<ul class=\"notes\">\n";
    for (const auto& line : notes) html += fmt::format("<li>{}</li>\n", Esc(line));
    html += "</ul>\n";
  }
  if (!result.verdict.lines.empty()) {
    html += "<ul class=\"failing\">\n";
    for (const auto& line : result.verdict.lines) html += fmt::format("<li>{}</li>\n", Esc(line));
    html += "</ul>\n";
  }
  std::vector<const Failure*> failures = AllFailures(result);
  if (failures.empty()) return html;
  html += "<h2 id=\"failures\">Failures</h2>\n";
  for (const Failure* failure : failures) {
    html += fmt::format("<p><strong>{}</strong> ({}): {}</p>\n", Esc(FailurePlace(*failure)),
                        FailureKindName(failure->kind), Esc(failure->message));
    if (!failure->detail.empty()) {
      html += fmt::format("<pre>{}</pre>\n", EscapeHtml(Printable(failure->detail)));
    }
  }
  return html;
}
std::string DetailsSection(const RunResult& result) {
  const MachineInfo& m = result.machine;
  std::string html = "<h2 id=\"details\">Details</h2>\n<ul class=\"details\">\n";
  html += fmt::format("<li>engine: perfengine {}</li>\n", Esc(result.engine_version));
  html += fmt::format("<li>spec: {} (sha256 {})</li>\n", Esc(result.spec_path), Esc(result.spec_digest));
  html += fmt::format("<li>started: {}</li>\n", Esc(result.started_at));
  html += fmt::format("<li>machine: {}, {}, {}, {} cores, {}</li>\n", Esc(m.hostname), Esc(m.os), Esc(m.cpu), m.cores,
                      units::FormatKiB(m.memory_kib));
  for (const std::string& line : ShardLines(result)) html += fmt::format("<li>{}</li>\n", Esc(line));
  html += fmt::format("<li>rounds: {}</li>\n", Esc(RoundsLine(result)));
  if (!result.complete) html += "<li>results incomplete: the run stopped before its last round</li>\n";
  for (const auto& contender : result.contenders) {
    std::string_view role = contender.name == result.baseline    ? " (baseline)"
                            : contender.name == result.candidate ? " (candidate)"
                                                                 : "";
    html += fmt::format("<li>contender {}{}: {}</li>\n", Esc(contender.name), role, Esc(contender.description));
  }
  return html + "</ul>\n";
}

std::string_view SummaryClass(ExitCode exit) {
  switch (exit) {
    case ExitCode::kPass:
      return "pass";
    case ExitCode::kThresholdMissed:
      return "threshold-missed";
    case ExitCode::kRunFailed:
      return "run-failed";
    case ExitCode::kUnresolved:
      return "unresolved";
    case ExitCode::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

}  // namespace
std::string HtmlReport(const RunResult& result) {
  IdMaker ids;
  std::string summary = SummaryLine(result);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n";
  html += kHead;
  html += fmt::format("<title>perfengine: {} ({})</title>\n", Esc(summary), Esc(result.spec_path));
  html += kStyle;
  html += "</head>\n<body>\n";
  html += fmt::format("<h1>perfengine: {}</h1>\n", Esc(result.spec_path));
  html += fmt::format("<p class=\"summary {}\">{}</p>\n", SummaryClass(result.verdict.exit), Esc(summary));
  html += fmt::format("<p>{}: {}.</p>\n", Esc(ContendersLine(result)), Esc(RoundsLine(result)));
  html += "<ul class=\"revisions\">\n";
  for (const std::string& line : RevisionLines(result)) html += fmt::format("<li>{}</li>\n", Esc(line));
  html += "</ul>\n";
  if (const std::string cost = PhasesLine(result); !cost.empty()) {
    html += fmt::format("<p class=\"run-time\">{}</p>\n", Esc(cost));
  }
  if (std::string busy = BusyMachineLine(result); !busy.empty()) {
    html += fmt::format("<p class=\"busy-machine\">{}</p>\n", Esc(busy));
  }
  for (const auto& line : UncomparedLines(result)) {
    html += fmt::format("<p class=\"warning\"><strong>Warning:</strong> {}</p>\n", Esc(line));
  }
  html += WorkloadTable(result);
  html += MeasureSections(result);
  html += FailureSection(result);

  std::vector<SweepSection> sections = SweepSections(result);
  for (const auto& section : sections) {
    auto sweep = std::find_if(result.sweeps.begin(), result.sweeps.end(),
                              [&](const SweepResult& s) { return s.name == section.name; });
    SweepResult named_by_points{section.name, section.axes, {}, {}, {}, {}, 0};
    html += html::SweepSectionHtml(result, section, sweep != result.sweeps.end() ? *sweep : named_by_points, ids);
  }

  std::vector<WorkloadRow> rows = WorkloadRows(result);
  for (std::size_t i = 0; i < result.workloads.size(); ++i) {
    html += html::WorkloadSection(result, result.workloads[i], rows[i], ids);
  }
  html += DetailsSection(result);
  html += "</body>\n</html>\n";
  return html;
}

std::string HtmlReporter::Render(const RunResult& result, const RenderOptions&) const { return HtmlReport(result); }

}  // namespace pe::report