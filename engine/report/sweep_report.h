// The sweep sections of the reports (docs/sweeps.md): per sweep and configuration, a
// table of threads (or scale) against each contender's median time, throughput and
// scaling efficiency, then the fitted cost exponents. The figures come from the result
// model as the analysis left them; nothing here is recomputed except throughput, which
// is the point's elements over its median wall time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/result.h"

namespace pe::report {

// One contender at one sweep point. Empty when that figure does not exist: no measured
// samples, no elements declared, no threads axis or no efficiency in the model.
struct SweepFigures {
  std::optional<double> median_wall_s;
  std::optional<double> elements_per_s;
  std::optional<double> efficiency;  // from SweepResult::efficiencies
};

struct SweepRow {
  std::string value;                  // the row axis's value as the spec spelled it
  std::optional<double> number;       // the same as a number, when it is one
  std::string workload;               // the point's workload name
  std::vector<SweepFigures> figures;  // one per SweepTable::contenders entry
};

// The points of one sweep that share every axis value but the row axis.
struct SweepTable {
  std::vector<model::AxisValue> fixed;  // the other axes' values, in the sweep's axis order
  std::string configuration;            // `fixed` as "allocator=mimalloc, scale=2"; "" when none
  std::string axis;                     // the row axis
  std::vector<std::string> contenders;
  bool has_throughput = false;  // some point declared elements
  std::string unit;             // what those elements are (WorkloadResult::unit)
  bool has_efficiency = false;  // the row axis is "threads"
  std::vector<SweepRow> rows;   // by numeric value when every value is a number
};

struct SweepSection {
  std::string name;
  std::vector<std::string> axes;
  std::vector<SweepTable> tables;
  // "bazel-diff-rs (threads=4): time grows as n^1.02 over scale (95% interval 0.97 to 1.08)"
  std::vector<std::string> fit_lines;
  // "candidate cost exponent at most 1.20", "candidate scaling efficiency at 4 threads at least 70%"
  std::vector<std::string> threshold_lines;
};

inline constexpr std::string_view kThreadsAxis = "threads";
inline constexpr std::string_view kScaleAxis = "scale";

// The axis a sweep's tables are laid out along: "threads" when the sweep has it, else
// "scale", else its last axis; "" for a sweep without axes.
std::string RowAxis(const std::vector<std::string>& axes);

// One table per configuration of `sweep`'s points with `row_axis` as rows, configurations
// in the order their first point appears. Contenders are the run's, in spec order.
std::vector<SweepTable> SweepTables(const model::RunResult& result, const model::SweepResult& sweep,
                                    std::string_view row_axis);

// Every sweep of the run: those in RunResult::sweeps in order, then any sweep named only
// by its point workloads (axes then taken from the first point).
std::vector<SweepSection> SweepSections(const model::RunResult& result);

// Elements per second as Kelem/s, three significant digits from 1: "812", "41.2", "0.050".
std::string FormatKelemPerSecond(double elements_per_s);

// The throughput column's unit for elements of `unit`: "MB/s" for "B" (bytes, decimal
// megabytes), "Kelem/s" for "", else "K<unit>/s" (e.g. "Klines/s"); and the value in it,
// three significant digits from 1 as FormatKelemPerSecond.
std::string ThroughputUnit(const std::string& unit);
double ThroughputDivisor(const std::string& unit);  // elements per second per one of the unit
std::string FormatThroughput(double elements_per_s, const std::string& unit);

// "time grows as n^1.02 over scale (95% interval 0.97 to 1.08)", with "; <note>" when
// the fit has a note, and "no fit over scale: <note>" when the exponent is not finite. A fit
// whose interval is absent or wider than model::kMaxExponentIntervalWidth prints no exponent:
// "no scaling law fits these points over scale (its 95% interval for k, -16.69 to 24.86, is
// wider than 1.0: ...)", or "(3 points fit exactly: no interval for k)".
std::string FitText(const model::ScalingFit& fit);

// Column headings and cells of a table, in the same order: the row axis, then per
// contender "<name> time", "<name> Kelem/s" (has_throughput) and "<name> efficiency"
// (has_efficiency). Cells are "-" where a figure is missing; names are not escaped.
std::vector<std::string> SweepHeadings(const SweepTable& table);
std::vector<std::vector<std::string>> SweepCells(const SweepTable& table);

// The sections laid out for a terminal (aligned ASCII columns, control characters
// made harmless) and for GitHub Markdown (escaped). Empty when the run has no sweep.
std::string SweepTerminalText(const std::vector<SweepSection>& sections);
std::string SweepMarkdown(const std::vector<SweepSection>& sections);

}  // namespace pe::report
