// What every human-readable report shows, decided once: one row per workload, the
// one-line summary, the failures in order. Reporters only lay these out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/model/result.h"
#include "engine/report/gated_figures.h"
#include "engine/report/row_status.h"

namespace pe::report {

struct WorkloadRow {
  std::string workload;   // the name as given; escaping is the reporter's job
  std::string contender;  // with several candidates (model/pairs.h): whose row it is; else ""
  std::string baseline_median;
  std::string candidate_median;
  std::string rounds;  // the paired rounds behind its figures: "17"
  // What the table shows beside the medians, one line each (gated_figures.h): the figure of
  // each gated check with its verdict, or one figure labelled as information.
  std::vector<GatedFigure> figures;
  std::string verdict;  // the workload's: "pass", "missed", "failed", "(not gated)" or "-"
  RowStatus status = RowStatus::kNone;
};

// Column headings, in the order of the cells of a row's lines. The medians are the contenders'
// wall times (descriptive); each line's check, figure, bar and verdict are one gated check's.
inline constexpr std::string_view kColumnHeadings[] = {
    "workload", "baseline median", "candidate median", "rounds", "check", "figure", "bar", "verdict"};

// One row per workload: the run's candidate against its baseline.
std::vector<WorkloadRow> WorkloadRows(const model::RunResult& result);

// The table every report prints: one row per workload and candidate, each against the baseline
// (WorkloadRows when the run has one candidate; with more, each row names its contender).
std::vector<WorkloadRow> ComparisonRows(const model::RunResult& result);

// The table's headings: kColumnHeadings, and with several candidates a "contender" column
// after the workload and "contender median" for "candidate median".
std::vector<std::string> ColumnHeadings(const model::RunResult& result);

// One printed line of the table: its cells in heading order and the status its verdict is
// painted with.
struct TableLine {
  std::vector<std::string> cells;
  RowStatus status = RowStatus::kNone;
};

// The lines of a row, one per figure (the contender's cell only where the row names one); the
// workload, medians and rounds are on the first line only. A failed workload has one line,
// its figure "-" and verdict "failed".
std::vector<TableLine> Lines(const WorkloadRow& row);

// How the gate's checks on one workload ended for one candidate ("" for the run's candidate,
// else the contender Check::contender names), and the word the tables print for it.
RowStatus StatusOf(const model::RunResult& result, const model::WorkloadResult& workload,
                   std::string_view contender = "");
std::string_view VerdictText(RowStatus status);

// "n/a (startup-bound)" for the note "startup-bound: the startup median is 96% of ...":
// the note up to its first ':' (all of it when there is none); "n/a" when it is empty.
std::string LogicNoteShortForm(std::string_view note);

// "PASS", "FAIL: 2 thresholds missed", "RUN FAILED", "INTERRUPTED (results incomplete)", or
// "ACCEPTED: 1 threshold missed, accepted by --accept-regression".
std::string SummaryLine(const model::RunResult& result);

// Why a verdict that exits 0 judged nothing ("no threshold applies, so nothing was gated", or
// every check was skipped), empty when some check was judged or the exit is not 0. The summary
// line, compare's and explain's verdict lines all say it.
std::string NothingGated(const model::Verdict& verdict);

// Run failures first, then each workload's, in workload order.
std::vector<const model::Failure*> AllFailures(const model::RunResult& result);

// "huge_graph, bazel-diff-rs", "huge_graph", "bazel-diff-rs" or "run": where a failure happened.
std::string FailurePlace(const model::Failure& failure);

// "work: contender 'candidate' exited with status 3": a failure as one line, in the form of the
// gate's verdict line for it (gate::FailureLine, which reports cannot link).
std::string FailureSummary(const model::Failure& failure);

// The verdict lines a report prints after its failures section: those that only repeat a
// failure shown there (its FailureSummary) are left out, so a failure prints once.
std::vector<std::string> LinesNotShownAsFailures(const model::RunResult& result);

// The rounds the run's comparisons rest on (each row's "rounds won" column), as the header
// states them: "12 to 17 rounds (min 7, cap 30)" where a run adds rounds while a check is open
// ([run] max_rounds), "10 rounds" where every workload ran the fixed count, "3 rounds (10
// planned)" where fewer ran (an interrupted or failed run), "no rounds compared (10 planned)".
std::string RoundsRun(const model::RunResult& result);

// "10 rounds + 1 warm-up, alternate order, seed 42, scale 1", the rounds those of RoundsRun.
std::string RoundsLine(const model::RunResult& result);

}  // namespace pe::report
