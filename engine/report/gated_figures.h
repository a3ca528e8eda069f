// What a report's table shows for one workload and candidate, decided once for every reporter
// (terminal, Markdown, HTML, CSV) from the threshold table (engine/model/threshold_table.h):
// the figure each gated check reads, with its interval (a check that reads a confidence
// sequence) or the exact values behind it (a count, a peak, a p99, an exact counter), and that
// check's verdict beside it. A check is gated when the workload is gated and the verdict holds
// its check (the gate makes one where the bar is set): the rows of model::kThresholdRows in the
// table's order, then each declared counter's ([thresholds.counters], docs/counters.md), as
// "counters.NAME". Nothing else is shown as an answer: a workload
// with no gated check (not gated, the startup workload, no bar) shows one figure labelled as
// information, the median per-round speed-up; explain keeps every other figure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/model/result.h"
#include "engine/report/row_status.h"

namespace pe::report {

struct GatedFigure {
  std::string threshold;  // the spec key ("max_slowdown", "counters.objects"); "" for information
  std::string check;      // "paired CPU-time ratio (max_slowdown)"; information: "median per-round
                          // speed-up (information)"
  std::string figure;     // "1.08x (0.99x-1.17x)", "1.04x (4644092 -> 4829855)", "n/a (...)"
  std::string bar;        // "at most 1.05x", "at least 60%"; "" for information
  std::string verdict;    // "pass", "missed", "unresolved", "pass (unresolved)", "skipped", or
                          // for information the workload's ("(not gated)", "-")
  RowStatus status = RowStatus::kNone;
};

// The figures of `workload` for `candidate` against the baseline, in the threshold table's
// order; `comparison` is that pair's (may be null) and `check_contender` names the candidate as
// the gate's checks do ("" for the run's candidate). Empty for a failed workload.
std::vector<GatedFigure> GatedFigures(const model::RunResult& result, const model::WorkloadResult& workload,
                                      const std::string& candidate, const model::Comparison* comparison,
                                      std::string_view check_contender);

// "paired CPU-time ratio (max_slowdown) 1.08x (0.99x-1.17x), at most 1.05x: unresolved": one
// figure as one line, for the CSV's `checks` cell and the HTML workload sections.
std::string GatedFigureLine(const GatedFigure& figure);

}  // namespace pe::report
