#include "engine/report/terminal_reporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/names.h"
#include "engine/report/confidence_lines.h"
#include "engine/report/details.h"
#include "engine/report/machine_load_line.h"
#include "engine/report/overview.h"
#include "engine/report/provenance.h"
#include "engine/report/shards.h"
#include "engine/report/speedup_summary.h"
#include "engine/report/sweep_report.h"
#include "engine/report/text.h"
#include "engine/report/text_table.h"

namespace pe::report {

using model::ExitCode;
using model::Failure;
using model::RunResult;
namespace {

constexpr std::string_view kRed = "\x1b[31m";
constexpr std::string_view kGreen = "\x1b[32m";
constexpr std::string_view kYellow = "\x1b[33m";
constexpr std::string_view kDim = "\x1b[2m";
constexpr std::string_view kBoldRed = "\x1b[1;31m";
constexpr std::string_view kBoldGreen = "\x1b[1;32m";
constexpr std::string_view kBoldYellow = "\x1b[1;33m";
constexpr std::string_view kReset = "\x1b[0m";

class Painter {
 public:
  explicit Painter(bool enabled) : enabled_(enabled) {}
  std::string operator()(std::string_view text, std::string_view color) const {
    if (!enabled_ || color.empty() || text.empty()) return std::string(text);
    return fmt::format("{}{}{}", color, text, kReset);
  }

 private:
  bool enabled_;
};

std::string_view RowColor(RowStatus status) {
  switch (status) {
    case RowStatus::kPass:
      return kGreen;
    case RowStatus::kUnresolved:
      return kYellow;
    case RowStatus::kMissed:
    case RowStatus::kFailed:
      return kRed;
    case RowStatus::kNotGated:
      return kDim;
    case RowStatus::kNone:
      break;
  }
  return {};
}

std::string_view SummaryColor(ExitCode exit) {
  switch (exit) {
    case ExitCode::kPass:
      return kBoldGreen;
    case ExitCode::kThresholdMissed:
    case ExitCode::kRunFailed:
      return kBoldRed;
    case ExitCode::kInterrupted:
    case ExitCode::kUnresolved:
      return kBoldYellow;
  }
  return {};
}

// The first column is text and reads best left-aligned; the figures line up on the right.
// The verdict is last, so it is left-aligned and never padded.
void WriteTable(const std::vector<std::string>& headings, const std::vector<WorkloadRow>& rows, std::ostream& out,
                const Painter& paint) {
  std::vector<std::vector<std::string>> lines;
  std::vector<RowStatus> statuses;
  lines.push_back(headings);
  for (const auto& row : rows) {
    for (TableLine& line : Lines(row)) {
      for (auto& cell : line.cells) cell = OneLine(cell);
      lines.push_back(std::move(line.cells));
      statuses.push_back(line.status);
    }
  }
  // The workload left, the figures right, the verdict last and unpadded (it is painted).
  const std::size_t columns = lines.front().size();
  std::string align(columns, 'r');
  align.front() = 'l';
  align.back() = 'l';
  align[columns - 4] = 'l';                                              // the check's name
  if (!rows.empty() && !rows.front().contender.empty()) align[1] = 'l';  // the contender's name
  const TableRows padded = PaddedCells(lines, align);
  for (std::size_t l = 0; l < padded.size(); ++l) {
    std::string text;
    for (std::size_t c = 0; c < columns; ++c) {
      if (c > 0) text += kColumnGap;
      const bool verdict = c + 1 == columns && l > 0;
      text += verdict ? paint(padded[l][c], RowColor(statuses[l - 1])) : padded[l][c];
    }
    out << (l == 0 ? paint(text, kDim) : text) << '\n';
  }
}

void WriteFailures(const RunResult& result, std::ostream& out, const Painter& paint) {
  std::vector<const Failure*> failures = AllFailures(result);
  if (failures.empty()) return;
  out << '\n' << paint("failures:", kRed) << '\n';
  for (const Failure* failure : failures) {
    // The verdict line's form, which is then not repeated below: a failure prints once.
    out << fmt::format("  {}\n", OneLine(FailureSummary(*failure)));
    out << Indented(Printable(failure->detail), "      ");
  }
}

}  // namespace

void WriteTerminalReport(const RunResult& result, std::ostream& out, bool color) {
  Painter paint(color);
  out << fmt::format("{}: {}\n", OneLine(ContendersLine(result)), RoundsLine(result));
  for (const std::string& line : RevisionLines(result)) out << "  " << OneLine(line) << '\n';
  for (const std::string& line : ShardLines(result)) out << OneLine(line) << '\n';
  out << '\n';
  if (std::string busy = BusyMachineLine(result); !busy.empty()) out << paint(busy, kYellow) << "\n\n";
  if (auto uncompared = UncomparedLines(result); !uncompared.empty()) {
    for (const auto& line : uncompared) out << paint(OneLine(line), kBoldYellow) << '\n';
    out << '\n';
  }
  WriteTable(ColumnHeadings(result), ComparisonRows(result), out, paint);
  if (const auto summary = SpeedupSummary(result); !summary.empty()) {
    out << '\n' << paint(fmt::format("summary ({}):", OneLine(summary.front())), kDim) << '\n';
    for (std::size_t i = 1; i < summary.size(); ++i) out << "  " << OneLine(summary[i]) << '\n';
  }
  out << SweepTerminalText(SweepSections(result));
  for (const auto& section : {MeasureLines(result), ServeLines(result), ProfileLines(result)}) {
    if (section.empty()) continue;
    out << '\n';
    for (const auto& line : section) out << "  " << Printable(line) << '\n';
  }
  WriteFailures(result, out, paint);
  if (const std::vector<std::string> notes = ReportNotes(result); !notes.empty()) {
    out << '\n' << paint("notes:", kDim) << '\n';
    for (const auto& line : notes) out << "  " << OneLine(line) << '\n';
  }
  if (const auto lines = LinesNotShownAsFailures(result); !lines.empty()) {
    out << '\n';
    for (const auto& line : lines) out << "  " << OneLine(line) << '\n';
  }
  if (const std::string cost = PhasesLine(result); !cost.empty()) out << '\n' << OneLine(cost) << '\n';
  out << '\n' << paint(SummaryLine(result), SummaryColor(result.verdict.exit)) << '\n';
}

std::string TerminalReporter::Render(const RunResult& result, const RenderOptions& options) const {
  std::ostringstream out;
  WriteTerminalReport(result, out, options.color);
  return out.str();
}

}  // namespace pe::report
