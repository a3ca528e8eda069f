#include "engine/report/csv_reporter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/model/pairs.h"
#include "engine/report/gated_figures.h"
#include "engine/report/overview.h"
#include "engine/report/text.h"

namespace pe::report {

using model::Comparison;
using model::ContenderSummary;
using model::RunResult;
using model::WorkloadResult;
namespace {

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A text cell: a name or parity from the spec, or a results file's. Control characters are
// '?' as in the terminal's report (report::Printable: ESC, C1 and bidirectional controls; newline
// and tab are kept, quoted). A spreadsheet reads a cell that starts with = + - @ tab or CR as a
// formula (CSV injection), so, as OWASP advises, such a cell gets a leading ' and is quoted.
// The engine's own figures go through Number, never here, so a negative number stays a number.
std::string Text(const std::string& raw) {
  const std::string text = Printable(raw);
  if (!text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos) {
    return Quoted("'" + text);
  }
  return text.find_first_of(",\"\n\r") == std::string::npos ? text : Quoted(text);
}

std::string CsvNumber(double value) { return std::isfinite(value) ? fmt::format("{}", value) : ""; }
std::string CsvNumber(const std::optional<double>& value) { return value ? CsvNumber(*value) : ""; }

std::string CsvCount(const std::optional<std::uint64_t>& value) { return value ? std::to_string(*value) : ""; }

const char* kHeader =
    "workload,contender,role,against,n,median_wall_s,min_wall_s,max_wall_s,median_user_s,median_sys_s,median_cpu_s,"
    "median_max_rss_kib,instructions,allocation_calls,per_round_speedup,per_round_speedup_low,"
    "per_round_speedup_high,ratio_of_medians,ratio_of_medians_low,ratio_of_medians_high,win_rate,logic_speedup,"
    "cpu_ratio,cpu_ratio_low,cpu_ratio_high,instructions_ratio,allocations_ratio,rss_ratio,verdict,parity,"
    "commit,ref,dirty,build,run_time_s,build_s,fixtures_s,parity_s,measuring_s,analysis_s,notes,checks\n";

// The CPU-time ratio with the interval beside it: the median per-round ratio max_slowdown reads
// with its confidence sequence; a file from before sequences, the ratio of medians and its
// Hodges-Lehmann interval. Never one's figure with the other's interval.
std::string CpuRatio(const Comparison& c) {
  return c.cpu_ratio_cs ? CsvNumber(c.cpu_ratio_cs->estimate) : CsvNumber(c.cpu_ratio);
}

// The contender's revision (docs/results-format.md): commit, ref, dirty, build command; empty
// cells for a contender not built from git.
std::vector<std::string> RevisionCells(const RunResult& result, const std::string& contender) {
  for (const model::ContenderInfo& c : result.contenders) {
    if (c.name != contender || c.commit.empty()) continue;
    return {Text(c.commit), Text(c.git), c.dirty ? "true" : "false", Text(fmt::format("{}", fmt::join(c.build, " ")))};
  }
  return {"", "", "", ""};
}

// The run's wall time and its phases (model::PhaseTimes), the same on every row.
std::vector<std::string> PhaseCells(const RunResult& result) {
  if (!result.phases) return std::vector<std::string>(6);
  const model::PhaseTimes& p = *result.phases;
  return {CsvNumber(p.total_s),  CsvNumber(p.build_s),     CsvNumber(p.fixtures_s),
          CsvNumber(p.parity_s), CsvNumber(p.measuring_s), CsvNumber(p.analysis_s)};
}

}  // namespace

// One row per workload and contender: the baseline's own figures, then each candidate's with
// its comparison against the baseline (model/pairs.h) and the gate's verdict on it.
std::string CsvReport(const RunResult& result) {
  std::string out = kHeader;
  for (const WorkloadResult& w : result.workloads) {
    for (const ContenderSummary& s : w.summaries) {
      const bool baseline = s.contender == result.baseline;
      const Comparison* c = nullptr;
      if (!baseline) {
        c = model::FindComparison(w, result.baseline, s.contender);
        // A results file from before comparisons were named: its one comparison is the candidate's.
        if (c == nullptr && s.contender == result.candidate && w.comparison && w.comparison->candidate.empty())
          c = &*w.comparison;
      }
      const std::string role = baseline ? "baseline" : "candidate";
      const std::string verdict =
          baseline ? ""
                   : std::string(VerdictText(StatusOf(result, w, s.contender == result.candidate ? "" : s.contender)));
      auto interval = [&](const std::optional<model::Interval>& i, bool high) {
        return i ? CsvNumber(high ? i->high : i->low) : "";
      };
      std::vector<std::string> row = {
          Text(w.name), Text(s.contender), role, baseline ? "" : Text(result.baseline), std::to_string(s.n),
          CsvNumber(s.median_wall_s), CsvNumber(s.min_wall_s), CsvNumber(s.max_wall_s), CsvNumber(s.median_user_s),
          CsvNumber(s.median_sys_s), CsvNumber(s.median_cpu_s), std::to_string(s.median_max_rss_kib),
          CsvCount(s.instructions), CsvCount(s.allocation_calls),
          // The figure min_speedup reads first; the ratio of medians
          // (descriptive, with its bootstrap interval) after it.
          c && c->speedup_cs ? CsvNumber(c->speedup_cs->estimate) : "", c ? interval(c->speedup_cs, false) : "",
          c ? interval(c->speedup_cs, true) : "", c ? CsvNumber(c->speedup) : "",
          c ? interval(c->speedup_ci, false) : "", c ? interval(c->speedup_ci, true) : "",
          c ? CsvNumber(c->win_rate) : "", c ? CsvNumber(c->logic_speedup) : "", c ? CpuRatio(*c) : "",
          c ? interval(c->cpu_ratio_cs ? c->cpu_ratio_cs : c->cpu_ratio_ci, false) : "",
          c ? interval(c->cpu_ratio_cs ? c->cpu_ratio_cs : c->cpu_ratio_ci, true) : "",
          c ? CsvNumber(c->instructions_ratio) : "", c ? CsvNumber(c->allocations_ratio) : "",
          c ? CsvNumber(c->rss_ratio) : "", verdict, Text(w.parity)};
      for (std::vector<std::string> more : {RevisionCells(result, s.contender), PhaseCells(result)}) {
        row.insert(row.end(), more.begin(), more.end());
      }
      // What measuring the workload showed (a server killed with SIGKILL), on each of its rows.
      row.push_back(Text(fmt::format("{}", fmt::join(w.notes, "; "))));
      // What the other tables show beside the medians (gated_figures.h): each gated check's
      // figure, bar and verdict, on the candidate's row; empty where nothing was gated.
      std::vector<std::string> checks;
      if (!baseline) {
        for (const GatedFigure& f :
             GatedFigures(result, w, s.contender, c, s.contender == result.candidate ? "" : s.contender)) {
          if (!f.threshold.empty()) checks.push_back(GatedFigureLine(f));  // information is no check
        }
      }
      row.push_back(Text(fmt::format("{}", fmt::join(checks, "; "))));
      out += fmt::format("{}\n", fmt::join(row, ","));
    }
  }
  return out;
}

}  // namespace pe::report
