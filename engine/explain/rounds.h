// The rounds of one workload as explain shows them, and the paired series the analysis
// reads: the same pairing engine/analysis uses (measured samples matched by round index).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/model/samples.h"

namespace pe::explain {

struct RoundRow {
  int round = 0;
  bool warmup = false;
  std::string first;                 // the contender that ran first; "" when unknown
  std::optional<double> baseline_s;  // wall time; absent when that run is missing
  std::optional<double> candidate_s;
  std::optional<double> baseline_cpu_s;  // user + system, what max_slowdown reads
  std::optional<double> candidate_cpu_s;
  // Wall time less the same round's start-up, what min_logic_speedup reads; absent when the
  // round has no start-up sample of that contender, or the workload is not startup-adjusted.
  std::optional<double> baseline_logic_s;
  std::optional<double> candidate_logic_s;
};

// One row per round index that has a timed sample of the baseline or the candidate, in
// round order, warm-ups included (rss_only runs are not timed and not shown).
std::vector<RoundRow> RoundRows(const model::RunResult& result, const model::WorkloadResult& workload);

// The rounds both contenders completed (engine/model/samples.h).
using pe::model::Paired;
using pe::model::PairedRounds;

// Measured wall times of one contender, in run order; `rss_only` and warm-ups excluded.
std::vector<double> MeasuredWalls(const model::WorkloadResult& workload, const std::string& contender);

// Peak RSS (KiB) of one contender's measured runs, rss_only runs included.
std::vector<double> MeasuredRss(const model::WorkloadResult& workload, const std::string& contender);

// "candidate", "baseline" or "tie" for a row with both times; "-" otherwise.
std::string Winner(const model::RunResult& result, const RoundRow& row);

// The startup workload of the file, or nullptr.
const model::WorkloadResult* StartupWorkload(const model::RunResult& result);

}  // namespace pe::explain
