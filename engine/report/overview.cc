#include "engine/report/overview.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/model/pairs.h"
#include "engine/model/samples.h"
#include "engine/report/text_table.h"
#include "engine/units/units.h"

namespace pe::report {

using model::Check;
using model::ContenderSummary;
using model::ExitCode;
using model::Failure;
using model::RunResult;
using model::Settings;
using model::SummaryOf;
using model::WorkloadResult;
namespace {

std::string MedianCell(const WorkloadResult& workload, std::string_view contender) {
  const ContenderSummary* summary = SummaryOf(workload, contender);
  if (summary == nullptr || summary->n == 0) return std::string(kNothing);
  return units::FormatSeconds(summary->median_wall_s);
}

}  // namespace

RowStatus StatusOf(const RunResult& result, const WorkloadResult& workload, std::string_view contender) {
  if (!workload.failures.empty()) return RowStatus::kFailed;
  if (!workload.gate) return RowStatus::kNotGated;
  bool any_checked = false, unresolved = false;
  for (const auto& check : result.verdict.checks) {
    if (check.workload != workload.name || check.contender != contender || check.skipped) continue;
    if (!check.passed && check.state != Check::State::kUnresolved) return RowStatus::kMissed;
    unresolved = unresolved || !check.passed;
    any_checked = true;
  }
  if (unresolved) return RowStatus::kUnresolved;
  return any_checked ? RowStatus::kPass : RowStatus::kNone;
}

std::string_view VerdictText(RowStatus status) {
  switch (status) {
    case RowStatus::kPass:
      return "pass";
    case RowStatus::kMissed:
      return "missed";
    case RowStatus::kUnresolved:
      return "unresolved";
    case RowStatus::kFailed:
      return "failed";
    case RowStatus::kNotGated:
      return "(not gated)";
    case RowStatus::kNone:
      break;
  }
  return kNothing;
}

std::string LogicNoteShortForm(std::string_view note) {
  note = note.substr(0, note.find(':'));
  while (!note.empty() && note.back() == ' ') note.remove_suffix(1);
  while (!note.empty() && note.front() == ' ') note.remove_prefix(1);
  if (note.empty()) return "n/a";
  return fmt::format("n/a ({})", note);
}

namespace {

// One workload's row for one candidate against the baseline; `comparison` may be absent.
WorkloadRow RowOf(const RunResult& result, const WorkloadResult& workload, const std::string& contender,
                  const model::Comparison* comparison, std::string_view check_contender) {
  WorkloadRow row;
  row.workload = workload.name;
  row.baseline_median = MedianCell(workload, result.baseline);
  row.candidate_median = MedianCell(workload, contender);
  // Beside the medians, only what the gate read: each gated check's figure and verdict, one
  // rule for every table (gated_figures.h; issue 42 item 1).
  row.rounds = comparison != nullptr ? fmt::format("{}", comparison->rounds) : std::string(kNothing);
  row.figures = GatedFigures(result, workload, contender, comparison, check_contender);
  row.status = StatusOf(result, workload, check_contender);
  row.verdict = VerdictText(row.status);
  return row;
}

// The comparison of `contender` against the baseline; an older file's unnamed `comparison` is
// the run's candidate's.
const model::Comparison* AgainstBaseline(const RunResult& result, const WorkloadResult& workload,
                                         const std::string& contender) {
  if (const model::Comparison* c = model::FindComparison(workload, result.baseline, contender)) return c;
  if (contender == result.candidate && workload.comparison && workload.comparison->candidate.empty())
    return &*workload.comparison;
  return nullptr;
}

}  // namespace

std::vector<WorkloadRow> WorkloadRows(const RunResult& result) {
  std::vector<WorkloadRow> rows;
  rows.reserve(result.workloads.size());
  for (const auto& workload : result.workloads) {
    rows.push_back(
        RowOf(result, workload, result.candidate, workload.comparison ? &*workload.comparison : nullptr, ""));
  }
  return rows;
}

std::vector<WorkloadRow> ComparisonRows(const RunResult& result) {
  if (!model::SeveralCandidates(result)) return WorkloadRows(result);
  std::vector<WorkloadRow> rows;
  const std::vector<std::string> candidates = model::Candidates(result);
  for (const auto& workload : result.workloads) {
    for (const std::string& contender : candidates) {
      const std::string check_contender = contender == result.candidate ? "" : contender;
      WorkloadRow row =
          RowOf(result, workload, contender, AgainstBaseline(result, workload, contender), check_contender);
      row.contender = contender;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::vector<std::string> ColumnHeadings(const RunResult& result) {
  std::vector<std::string> headings(std::begin(kColumnHeadings), std::end(kColumnHeadings));
  if (model::SeveralCandidates(result)) {
    headings[2] = "contender median";
    headings.insert(headings.begin() + 1, "contender");
  }
  return headings;
}

std::vector<TableLine> Lines(const WorkloadRow& row) {
  std::vector<TableLine> lines;
  auto add = [&](std::vector<std::string> cells, RowStatus status) {
    if (!lines.empty()) {
      for (std::size_t c = 0; c < 4; ++c) cells[c].clear();  // the workload's cells once
    }
    if (!row.contender.empty()) cells.insert(cells.begin() + 1, lines.empty() ? row.contender : "");
    lines.push_back({std::move(cells), status});
  };
  const std::string nothing(kNothing);
  if (row.figures.empty()) {
    add({row.workload, row.baseline_median, row.candidate_median, row.rounds, nothing, nothing, nothing, row.verdict},
        row.status);
  }
  for (const GatedFigure& f : row.figures) {
    add({row.workload, row.baseline_median, row.candidate_median, row.rounds, f.check, f.figure,
         f.bar.empty() ? nothing : f.bar, f.verdict},
        f.status);
  }
  return lines;
}

namespace {

// Checks shown worse than their bar (or a point figure beyond it), and claims left unresolved:
// never counted together, so an unresolved check is never called missed.
long CountMissed(const RunResult& result) {
  return std::count_if(result.verdict.checks.begin(), result.verdict.checks.end(),
                       [](const Check& c) { return !c.passed && !c.skipped && c.state != Check::State::kUnresolved; });
}

long CountOpen(const RunResult& result) {
  return std::count_if(result.verdict.checks.begin(), result.verdict.checks.end(),
                       [](const Check& c) { return !c.passed && !c.skipped && c.state == Check::State::kUnresolved; });
}

std::string Missed(long missed) { return fmt::format("{} threshold{} missed", missed, missed == 1 ? "" : "s"); }

}  // namespace

std::string NothingGated(const model::Verdict& verdict) {
  if (verdict.exit != ExitCode::kPass || verdict.accepted) return "";
  // A skipped check (its figure not measured) judged nothing either.
  if (std::any_of(verdict.checks.begin(), verdict.checks.end(), [](const Check& c) { return !c.skipped; })) return "";
  return verdict.checks.empty() ? "no threshold applies, so nothing was gated"
                                : "every check was skipped, so nothing was gated";
}

std::string SummaryLine(const RunResult& result) {
  const long missed = CountMissed(result), open = CountOpen(result);
  switch (result.verdict.exit) {
    case ExitCode::kPass:
      if (result.verdict.accepted) {
        return fmt::format("ACCEPTED: {}, accepted by {}", Missed(missed), result.verdict.accepted_by);
      }
      // Exit 0 with nothing judged: say so, or a gate whose thresholds were lost reads as green.
      if (const std::string none = NothingGated(result.verdict); !none.empty()) return "PASS: " + none;
      return "PASS";
    case ExitCode::kThresholdMissed: {
      // Exit 1 with no miss: the unresolved policy (--unresolved=fail) counted the open claims.
      if (missed == 0 && open > 0) {
        return fmt::format("FAIL: {} unresolved (not shown either way), counted against the run by --unresolved=fail",
                           units::FormatCount(open, "check"));
      }
      return open == 0 ? "FAIL: " + Missed(missed)
                       : fmt::format("FAIL: {}; {} unresolved", Missed(missed), units::FormatCount(open, "check"));
    }
    case ExitCode::kRunFailed:
      return "RUN FAILED";
    case ExitCode::kUnresolved: {
      // As gate::UnresolvedSummary (the report does not link the gate).
      double level = result.settings.confidence;
      for (const Check& c : result.verdict.checks) {
        if (c.passed || c.skipped || c.state != Check::State::kUnresolved || !c.interval) continue;
        level = c.interval->level;  // the checks' own confidence
        break;
      }
      std::string line = fmt::format(
          "UNRESOLVED: {} could not be shown either way at {} confidence (exit 3; --unresolved=fail or pass to "
          "count {} otherwise)",
          units::FormatCount(open, "check"), units::FormatConfidence(level), open == 1 ? "it" : "them");
      if (result.verdict.accepted)
        line += fmt::format("; {}, accepted by {}", Missed(missed), result.verdict.accepted_by);
      return line;
    }
    case ExitCode::kInterrupted:
      return "INTERRUPTED (results incomplete)";
  }
  return fmt::format("UNKNOWN EXIT {}", static_cast<int>(result.verdict.exit));
}

std::vector<const Failure*> AllFailures(const RunResult& result) {
  std::vector<const Failure*> failures;
  for (const auto& failure : result.failures) failures.push_back(&failure);
  for (const auto& workload : result.workloads) {
    for (const auto& failure : workload.failures) failures.push_back(&failure);
  }
  return failures;
}

std::string FailurePlace(const Failure& failure) {
  if (!failure.workload.empty() && !failure.contender.empty()) {
    return fmt::format("{}, {}", failure.workload, failure.contender);
  }
  if (!failure.workload.empty()) return failure.workload;
  if (!failure.contender.empty()) return failure.contender;
  return "run";
}

std::string RoundsRun(const RunResult& result) {
  // What ran: the paired rounds of every comparison, the run's candidate's and any other pair's.
  int least = 0, most = 0;
  auto add = [&](const model::Comparison& c) {
    if (c.rounds <= 0) return;
    least = least == 0 ? c.rounds : std::min(least, c.rounds);
    most = std::max(most, c.rounds);
  };
  for (const WorkloadResult& w : result.workloads) {
    if (w.comparison) add(*w.comparison);
    for (const model::Comparison& c : w.other_comparisons) add(c);
  }
  // What the spec allowed: `rounds` each, more up to max_rounds while a check is open.
  const int min = result.settings.rounds;
  const int cap = std::max(result.settings.max_rounds, min);
  const std::string allowed = min == cap ? fmt::format("{} planned", min) : fmt::format("min {}, cap {}", min, cap);
  if (most == 0) return fmt::format("no rounds compared ({})", allowed);
  std::string text = least == most ? fmt::format("{} round{}", most, most == 1 ? "" : "s")
                                   : fmt::format("{} to {} rounds", least, most);
  if (min != cap || least != min || most != min) text += fmt::format(" ({})", allowed);
  return text;
}

std::string RoundsLine(const RunResult& result) {
  const Settings& settings = result.settings;
  return fmt::format("{} + {} warm-up, {} order, seed {}, scale {}", RoundsRun(result), settings.warmup_rounds,
                     settings.order, settings.seed, settings.scale);
}

std::string FailureSummary(const Failure& f) {
  std::string line = f.workload.empty() ? "" : f.workload + ": ";
  if (!f.contender.empty()) line += fmt::format("contender '{}' ", f.contender);
  return line + f.message;
}

std::vector<std::string> LinesNotShownAsFailures(const RunResult& result) {
  std::vector<std::string> shown;
  for (const Failure* f : AllFailures(result)) shown.push_back(FailureSummary(*f));
  std::vector<std::string> lines;
  for (const std::string& line : result.verdict.lines) {
    if (std::find(shown.begin(), shown.end(), line) == shown.end()) lines.push_back(line);
  }
  return lines;
}

}  // namespace pe::report
