// The gate: turns a result into a verdict. A failure of the run (crash, timeout, parity,
// bad fixture) is exit 2 whatever the figures say; otherwise each threshold in force on
// each gated workload is checked, and any miss is exit 1 with a line naming workload,
// threshold, measured value, bar and margin. With no miss, a claim that had to be shown and
// was left unresolved is exit 3, its line followed by what would resolve it (unresolved.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/result.h"
#include "engine/model/threshold_table.h"

namespace pe::gate {

struct JudgeOptions {
  // What each check could have seen (Check::detectable and Check::noise, stats/detectable.h).
  // The run loop leaves it out when it only asks, between rounds, which checks are still
  // unresolved: no state, bar or interval depends on it.
  bool power = true;
};

model::Verdict Judge(const model::RunResult& result, const JudgeOptions& options = {});

// A missed threshold accepted on purpose (--accept-regression, or PERFENGINE_ACCEPT_REGRESSION
// set by CI from a pull-request label): exit 0, but every report still shows what was missed
// and what accepted it. Failures of the run (exit 2) and interrupts cannot be accepted.
void Accept(model::Verdict& verdict, const std::string& accepted_by);

// How one threshold (a row of model::kThresholdRows) reads its figure in some results, and
// judges it against `bar`; nullopt when these results hold nothing that could judge it.
using ReadRow = std::function<std::optional<model::Check>(const model::ThresholdRow& row, double bar)>;

// One check per threshold in force in `thresholds`, in the table's order. Every threshold
// set gets a check: `run` and `compare` both gate through here, so neither can pass over one
// in silence; one `read` cannot judge is a skipped check that says so.
std::vector<model::Check> CheckThresholds(const std::string& workload, const model::Thresholds& thresholds,
                                          const ReadRow& read);

// A check of `measured` against `bar` on one workload (or sweep).
model::Check MakeCheck(std::string workload, std::string threshold, std::string label, double measured, double bar,
                       bool higher_is_better, std::string note = "");

// A threshold in force whose figure could not be computed: shown with the reason, never failing.
model::Check SkippedCheck(std::string workload, std::string threshold, std::string label, double bar, std::string note);

// How a threshold's figures print: a ratio ("0.94x"), a rate ("62%") or a plain number.
model::Check::Unit UnitOf(std::string_view threshold);

// Whether a missed check is a cost regression (CPU time, instructions, allocations) that a
// callgrind profile of both contenders can explain.
bool ProfileExplains(const model::Check& check);

// Whether a missed check stays missed however many rounds are added, so that the run exits 1 or
// worse whatever its unresolved checks go on to show (docs/exit-codes.md: 2 over 1 over 3 over
// 0): a miss its confidence sequence shows (the sequence holds at every round at once, so a
// miss shown at this look is a decision, as a check resolved early is), an exact counter's ratio
// of medians or a count's ratio (the same every run). Not a point figure the rounds so far gave
// (a peak RSS, a p99 latency), which another round or the peak-RSS runs can move under its bar.
bool MissIsSettled(const model::Check& check);

// The line printed for a check, e.g.
// "generate-hashes-large: median speedup 0.94x is below the required 1.00x (short by 6%)".
std::string CheckLine(const model::Check& check);

// Whether a sweep check could not judge because its figure means nothing
// (engine/model/scaling_bounds.h): a cost exponent whose fit has no interval or one wider than
// kMaxExponentIntervalWidth ("no scaling law fits these points"), a scaling efficiency whose
// interval is wider than kMaxEfficiencyIntervalWidth. Such a check is unresolved whatever its
// bar, and its line says why instead of printing the figure.
bool TooWideToJudge(const model::Check& check);

// The line printed for a failure, e.g. "w: contender 'candidate' exited with status 3".
std::string FailureLine(const model::Failure& failure);

}  // namespace pe::gate
