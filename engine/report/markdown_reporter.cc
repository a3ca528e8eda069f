#include "engine/report/markdown_reporter.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "engine/model/names.h"
#include "engine/report/confidence_lines.h"
#include "engine/report/details.h"
#include "engine/report/machine_load_line.h"
#include "engine/report/markdown_text.h"
#include "engine/report/overview.h"
#include "engine/report/provenance.h"
#include "engine/report/shards.h"
#include "engine/report/speedup_summary.h"
#include "engine/report/sweep_report.h"
#include "engine/units/units.h"

namespace pe::report {

using model::Failure;
using model::FailureKindName;
using model::MachineInfo;
using model::RunResult;
namespace {

std::string TableRow(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const auto& cell : cells) line += fmt::format(" {} |", cell);
  return line + "\n";
}

void AppendTable(const RunResult& result, std::string& out) {
  const std::vector<std::string> headings = ColumnHeadings(result);
  out += TableRow(headings);
  // Names and the verdict are text; the figures align right.
  std::string align = "| :--- |";
  const bool named = headings.size() > std::size(kColumnHeadings);
  for (std::size_t c = 1; c + 1 < headings.size(); ++c) {
    align += (named && c == 1) || c + 4 == headings.size() ? " :--- |" : " ---: |";  // names left
  }
  out += align + " :--- |\n";
  for (const auto& row : ComparisonRows(result)) {
    for (TableLine& line : Lines(row)) {
      for (auto& cell : line.cells) cell = EscapeMarkdown(cell);
      if (line.status == RowStatus::kMissed || line.status == RowStatus::kFailed ||
          line.status == RowStatus::kUnresolved) {
        line.cells.back() = fmt::format("**{}**", line.cells.back());
      }
      out += TableRow(line.cells);
    }
  }
  if (const auto summary = SpeedupSummary(result); !summary.empty()) {
    out += fmt::format("\n**Summary** ({}):\n\n", EscapeMarkdown(summary.front()));
    for (std::size_t i = 1; i < summary.size(); ++i) out += fmt::format("- {}\n", EscapeMarkdown(summary[i]));
  }
}

void AppendFailingLines(const RunResult& result, std::string& out) {
  if (const std::vector<std::string> notes = ReportNotes(result); !notes.empty()) {
    out += "\n**Notes:**\n\n";
    for (const auto& line : notes) out += fmt::format("- {}\n", EscapeMarkdown(line));
  }
  const std::vector<std::string> lines = LinesNotShownAsFailures(result);
  if (lines.empty()) return;
  out += "\n**Failing:**\n\n";
  for (const auto& line : lines) out += fmt::format("- {}\n", EscapeMarkdown(line));
}

void AppendFailures(const RunResult& result, std::string& out) {
  std::vector<const Failure*> failures = AllFailures(result);
  if (failures.empty()) return;
  out += "\n**Failures:**\n";
  for (const Failure* failure : failures) {
    out += fmt::format("\n- {} ({}): {}\n", EscapeMarkdown(FailurePlace(*failure)), FailureKindName(failure->kind),
                       EscapeMarkdown(failure->message));
    if (!failure->detail.empty()) out += "\n" + FencedBlock(failure->detail);
  }
}

std::string MachineLine(const MachineInfo& machine) {
  return fmt::format("{}, {}, {}, {} cores, {}", EscapeMarkdown(machine.hostname), EscapeMarkdown(machine.os),
                     EscapeMarkdown(machine.cpu), machine.cores, units::FormatKiB(machine.memory_kib));
}

void AppendDetails(const RunResult& result, std::string& out) {
  out += "\n<details>\n<summary>Details</summary>\n\n";
  out += fmt::format("- engine: perfengine {}\n", EscapeMarkdown(result.engine_version));
  out += fmt::format("- spec: {} (sha256 {})\n", EscapeMarkdown(result.spec_path), EscapeMarkdown(result.spec_digest));
  out += fmt::format("- started: {}\n", EscapeMarkdown(result.started_at));
  out += fmt::format("- machine: {}\n", MachineLine(result.machine));
  for (const std::string& line : ShardLines(result)) out += fmt::format("- {}\n", EscapeMarkdown(line));
  out += fmt::format("- rounds: {}\n", EscapeMarkdown(RoundsLine(result)));
  if (!result.complete) out += "- results incomplete: the run stopped before its last round\n";
  out += "- contenders:\n";
  for (const auto& contender : result.contenders) {
    std::string_view role = contender.name == result.baseline    ? " (baseline)"
                            : contender.name == result.candidate ? " (candidate)"
                                                                 : "";
    out += fmt::format("  - {}{}: {}\n", EscapeMarkdown(contender.name), role, EscapeMarkdown(contender.description));
  }
  out += "- workloads:\n";
  for (const auto& workload : result.workloads) {
    out += fmt::format("  - {}: {}\n", EscapeMarkdown(workload.name), EscapeMarkdown(workload.description));
  }
  out += "\n</details>\n";
}

}  // namespace

std::string MarkdownReport(const RunResult& result) {
  std::string out = fmt::format("### perfengine: {}\n\n", SummaryLine(result));
  out += fmt::format("Compared: {}.\n\n", EscapeMarkdown(ContendersLine(result)));
  for (const std::string& line : RevisionLines(result)) out += fmt::format("- {}\n", EscapeMarkdown(line));
  out += "\n";
  if (std::string busy = BusyMachineLine(result); !busy.empty()) out += EscapeMarkdown(busy) + "\n\n";
  for (const auto& line : UncomparedLines(result)) out += fmt::format("**Warning:** {}\n\n", EscapeMarkdown(line));
  AppendTable(result, out);
  out += SweepMarkdown(SweepSections(result));
  for (const auto& [title, lines] :
       {std::pair{"Counts and CPU time", MeasureLines(result)}, std::pair{"Servers", ServeLines(result)},
        std::pair{"Where the extra time went", ProfileLines(result)}}) {
    if (lines.empty()) continue;
    // Function names and workload names come from outside: a fence they cannot close.
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    out += fmt::format("\n**{}:**\n\n{}", title, FencedBlock(text));
  }
  AppendFailingLines(result, out);
  AppendFailures(result, out);
  if (const std::string cost = PhasesLine(result); !cost.empty()) out += fmt::format("\n{}\n", EscapeMarkdown(cost));
  AppendDetails(result, out);
  return out;
}

}  // namespace pe::report
