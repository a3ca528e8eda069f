#include "engine/report/sweep_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "engine/model/scaling_bounds.h"
#include "engine/report/markdown_text.h"
#include "engine/report/text.h"
#include "engine/report/text_table.h"
#include "engine/units/units.h"

namespace pe::report {

using model::AxisValue;
using model::RunResult;
using model::ScalingFit;
using model::SweepResult;
using model::WorkloadResult;
namespace {

std::optional<double> ParsedNumber(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string Joined(const std::vector<AxisValue>& values) {
  std::string text;
  for (const auto& value : values) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{}={}", value.axis, value.value);
  }
  return text;
}

// The model lists fixed axes in whatever order the analysis chose; compare them as sets.
bool SameValues(const std::vector<AxisValue>& a, const std::vector<AxisValue>& b) {
  if (a.size() != b.size()) return false;
  return std::all_of(a.begin(), a.end(), [&](const AxisValue& value) {
    return std::any_of(b.begin(), b.end(),
                       [&](const AxisValue& other) { return other.axis == value.axis && other.value == value.value; });
  });
}

const std::string* ValueOf(const WorkloadResult& workload, std::string_view axis) {
  for (const auto& value : workload.point) {
    if (value.axis == axis) return &value.value;
  }
  return nullptr;
}

std::vector<AxisValue> FixedAxes(const WorkloadResult& workload, const std::vector<std::string>& axes,
                                 std::string_view row_axis) {
  std::vector<AxisValue> fixed;
  for (const auto& axis : axes) {
    if (axis == row_axis) continue;
    if (const std::string* value = ValueOf(workload, axis)) fixed.push_back({axis, *value});
  }
  return fixed;
}

std::optional<double> EfficiencyOf(const SweepResult& sweep, std::string_view contender,
                                   const std::vector<AxisValue>& fixed, std::optional<double> threads) {
  if (!threads) return std::nullopt;
  for (const auto& efficiency : sweep.efficiencies) {
    if (efficiency.contender == contender && efficiency.threads == *threads && SameValues(efficiency.fixed, fixed)) {
      return efficiency.efficiency;
    }
  }
  return std::nullopt;
}

SweepFigures FiguresOf(const WorkloadResult& workload, const SweepResult& sweep, const SweepTable& table,
                       const SweepRow& row, std::string_view contender) {
  SweepFigures figures;
  for (const auto& summary : workload.summaries) {
    if (summary.contender != contender || summary.n == 0) continue;
    figures.median_wall_s = summary.median_wall_s;
    if (workload.elements > 0 && summary.median_wall_s > 0) {
      figures.elements_per_s = workload.elements / summary.median_wall_s;
    }
  }
  if (table.has_efficiency) {
    figures.efficiency = EfficiencyOf(sweep, contender, table.fixed, row.number);
  }
  return figures;
}

void SortRows(std::vector<SweepRow>& rows) {
  bool all_numbers = std::all_of(rows.begin(), rows.end(), [](const SweepRow& row) { return row.number.has_value(); });
  if (!all_numbers) return;  // first-appearance order is the spec's order
  std::stable_sort(rows.begin(), rows.end(),
                   [](const SweepRow& a, const SweepRow& b) { return *a.number < *b.number; });
}

SweepResult SweepNamedOnlyByPoints(const WorkloadResult& first) {
  SweepResult sweep;
  sweep.name = first.sweep;
  for (const auto& value : first.point) sweep.axes.push_back(value.axis);
  return sweep;
}

std::vector<std::string> ThresholdLines(const RunResult& result, const SweepResult& sweep) {
  std::vector<std::string> lines;
  if (sweep.max_cost_exponent) {
    lines.push_back(fmt::format("{} cost exponent at most {:.2f}", result.candidate, *sweep.max_cost_exponent));
  }
  if (sweep.min_scaling_efficiency) {
    lines.push_back(fmt::format("{} scaling efficiency at {} threads at least {}", result.candidate,
                                sweep.efficiency_threads, units::FormatPercent(*sweep.min_scaling_efficiency)));
  }
  return lines;
}

SweepSection SectionOf(const RunResult& result, const SweepResult& sweep) {
  SweepSection section;
  section.name = sweep.name;
  section.axes = sweep.axes;
  section.tables = SweepTables(result, sweep, RowAxis(sweep.axes));
  for (const auto& fit : sweep.fits) {
    std::string who = fit.contender;
    if (!fit.fixed.empty()) who += fmt::format(" ({})", Joined(fit.fixed));
    section.fit_lines.push_back(fmt::format("{}: {}", who, FitText(fit)));
  }
  section.threshold_lines = ThresholdLines(result, sweep);
  return section;
}

std::string Fixed2(double value) { return fmt::format("{:.2f}", value); }

std::string MarkdownRow(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const auto& cell : cells) line += fmt::format(" {} |", EscapeMarkdown(cell));
  return line + "\n";
}

}  // namespace

std::string RowAxis(const std::vector<std::string>& axes) {
  for (std::string_view preferred : {kThreadsAxis, kScaleAxis}) {
    if (std::find(axes.begin(), axes.end(), preferred) != axes.end()) {
      return std::string(preferred);
    }
  }
  return axes.empty() ? std::string() : axes.back();
}

std::vector<SweepTable> SweepTables(const RunResult& result, const SweepResult& sweep, std::string_view row_axis) {
  std::vector<SweepTable> tables;
  for (const auto& workload : result.workloads) {
    if (workload.sweep != sweep.name || sweep.name.empty()) continue;
    const std::string* value = ValueOf(workload, row_axis);
    if (value == nullptr) continue;
    std::vector<AxisValue> fixed = FixedAxes(workload, sweep.axes, row_axis);
    auto table =
        std::find_if(tables.begin(), tables.end(), [&](const SweepTable& t) { return SameValues(t.fixed, fixed); });
    if (table == tables.end()) {
      SweepTable fresh;
      fresh.fixed = fixed;
      fresh.configuration = Joined(fixed);
      fresh.axis = std::string(row_axis);
      for (const auto& contender : result.contenders) fresh.contenders.push_back(contender.name);
      fresh.has_efficiency = row_axis == kThreadsAxis;
      tables.push_back(std::move(fresh));
      table = std::prev(tables.end());
    }
    table->has_throughput = table->has_throughput || workload.elements > 0;
    if (workload.elements > 0) table->unit = workload.unit;
    SweepRow row;
    row.value = *value;
    row.number = ParsedNumber(*value);
    row.workload = workload.name;
    for (const auto& contender : table->contenders) {
      row.figures.push_back(FiguresOf(workload, sweep, *table, row, contender));
    }
    table->rows.push_back(std::move(row));
  }
  for (auto& table : tables) SortRows(table.rows);
  return tables;
}

std::vector<SweepSection> SweepSections(const RunResult& result) {
  std::vector<SweepSection> sections;
  std::set<std::string> seen;
  for (const auto& sweep : result.sweeps) {
    seen.insert(sweep.name);
    sections.push_back(SectionOf(result, sweep));
  }
  for (const auto& workload : result.workloads) {
    if (workload.sweep.empty() || !seen.insert(workload.sweep).second) continue;
    sections.push_back(SectionOf(result, SweepNamedOnlyByPoints(workload)));
  }
  return sections;
}

std::string FormatKelemPerSecond(double elements_per_s) {
  if (!std::isfinite(elements_per_s)) return "n/a";
  double kelem = elements_per_s / 1000;
  if (kelem < 0.9995) return fmt::format("{:.3f}", kelem);
  if (kelem < 9.995) return fmt::format("{:.2f}", kelem);
  if (kelem < 99.95) return fmt::format("{:.1f}", kelem);
  return fmt::format("{:.0f}", kelem);
}

std::string ThroughputUnit(const std::string& unit) {
  if (unit == "B") return "MB/s";
  return fmt::format("K{}/s", unit.empty() ? "elem" : unit);
}

double ThroughputDivisor(const std::string& unit) { return unit == "B" ? 1e6 : 1e3; }

std::string FormatThroughput(double elements_per_s, const std::string& unit) {
  return FormatKelemPerSecond(elements_per_s / ThroughputDivisor(unit) * 1000);
}

std::string FitText(const ScalingFit& fit) {
  if (!std::isfinite(fit.exponent)) {
    return fmt::format("no fit over {}{}{}", fit.axis, fit.note.empty() ? "" : ": ", fit.note);
  }
  // A fit whose interval is too wide (or absent) is no law: say so and why, not the exponent.
  if (model::NoScalingLaw(fit)) {
    if (!std::isfinite(fit.low) || !std::isfinite(fit.high)) {
      return fmt::format("no scaling law fits these points over {} ({})", fit.axis,
                         fit.note.empty() ? "no interval for k" : fit.note);
    }
    std::string text = fmt::format(
        "no scaling law fits these points over {} (its {} interval for k, {} to {}, is "
        "wider than {:.1f}: more rounds or more points on the axis would narrow it)",
        fit.axis, units::FormatConfidence(fit.level), Fixed2(fit.low), Fixed2(fit.high),
        model::kMaxExponentIntervalWidth);
    if (!fit.note.empty()) text += "; " + fit.note;
    return text;
  }
  std::string text = fmt::format("time grows as n^{} over {}", Fixed2(fit.exponent), fit.axis);
  if (std::isfinite(fit.low) && std::isfinite(fit.high)) {
    text +=
        fmt::format(" ({} interval {} to {})", units::FormatConfidence(fit.level), Fixed2(fit.low), Fixed2(fit.high));
  }
  if (!fit.note.empty()) text += "; " + fit.note;
  return text;
}

std::vector<std::string> SweepHeadings(const SweepTable& table) {
  std::vector<std::string> headings = {table.axis};
  for (const auto& contender : table.contenders) {
    headings.push_back(contender + " time");
    if (table.has_throughput) headings.push_back(contender + " " + ThroughputUnit(table.unit));
    if (table.has_efficiency) headings.push_back(contender + " efficiency");
  }
  return headings;
}

std::vector<std::vector<std::string>> SweepCells(const SweepTable& table) {
  std::vector<std::vector<std::string>> lines;
  for (const auto& row : table.rows) {
    std::vector<std::string> cells = {row.value};
    for (const auto& figures : row.figures) {
      auto cell = [](const std::optional<double>& value, auto format) {
        return value ? format(*value) : std::string(kNothing);
      };
      cells.push_back(cell(figures.median_wall_s, units::FormatSeconds));
      if (table.has_throughput) {
        cells.push_back(cell(figures.elements_per_s, [&](double v) { return FormatThroughput(v, table.unit); }));
      }
      if (table.has_efficiency) cells.push_back(cell(figures.efficiency, units::FormatPercent));
    }
    lines.push_back(std::move(cells));
  }
  return lines;
}

std::string SweepTerminalText(const std::vector<SweepSection>& sections) {
  std::string out;
  for (const auto& section : sections) {
    out += fmt::format("\nsweep {} ({})\n", OneLine(section.name),
                       OneLine(fmt::format("{}", fmt::join(section.axes, " x "))));
    for (const auto& table : section.tables) {
      out += table.configuration.empty() ? "\n" : fmt::format("\n  {}\n", OneLine(table.configuration));
      std::vector<std::vector<std::string>> lines = {SweepHeadings(table)};
      for (auto& cells : SweepCells(table)) lines.push_back(std::move(cells));
      for (auto& line : lines) {
        for (auto& cell : line) cell = OneLine(cell);
      }
      // The axis value left-aligned like the workload column of the main table, the figures right.
      out += FormatTable(lines, "l", "  ", kColumnGap);
    }
    if (!section.fit_lines.empty() || !section.threshold_lines.empty()) out += "\n";
    for (const auto& line : section.fit_lines) out += fmt::format("  {}\n", OneLine(line));
    if (!section.threshold_lines.empty()) {
      out += fmt::format("  thresholds: {}\n", OneLine(fmt::format("{}", fmt::join(section.threshold_lines, "; "))));
    }
  }
  return out;
}

std::string SweepMarkdown(const std::vector<SweepSection>& sections) {
  std::string out;
  for (const auto& section : sections) {
    out += fmt::format("\n#### Sweep {} ({})\n", EscapeMarkdown(section.name),
                       EscapeMarkdown(fmt::format("{}", fmt::join(section.axes, " x "))));
    for (const auto& table : section.tables) {
      if (!table.configuration.empty()) {
        out += fmt::format("\n{}:\n", EscapeMarkdown(table.configuration));
      }
      std::vector<std::string> headings = SweepHeadings(table);
      out += "\n" + MarkdownRow(headings);
      out += "| :--- |";
      for (std::size_t c = 1; c < headings.size(); ++c) out += " ---: |";
      out += "\n";
      for (const auto& cells : SweepCells(table)) out += MarkdownRow(cells);
    }
    if (!section.fit_lines.empty()) out += "\n";
    for (const auto& line : section.fit_lines) out += fmt::format("- {}\n", EscapeMarkdown(line));
    if (!section.threshold_lines.empty()) {
      out += fmt::format("\nThresholds: {}.\n",
                         EscapeMarkdown(fmt::format("{}", fmt::join(section.threshold_lines, "; "))));
    }
  }
  return out;
}

}  // namespace pe::report
