// Confidence sequences for the figures the interval checks read (stats/sequential.h),
// and how many rounds would resolve each check still open.
#pragma once

#include <optional>
#include <vector>

#include "engine/model/result.h"

namespace pe::analysis {

struct PairedSeries {
  std::vector<double> baseline, candidate;  // the same rounds, in round order
};

// Fills c.speedup_cs, cpu_ratio_cs, win_rate_cs and logic_speedup_cs (where c.logic_speedup
// is set and `logic`, each round's wall time less the same round's start-up, is not empty),
// and the rounds needed for each threshold of `t` they leave unresolved.
// `final_round` > 0 ([run] final_look, model::FinalLookRound): the CPU-time sequence runs at
// model::FinalLookLevel of the check's level and, once `cpu` holds exactly final_round rounds, its
// interval is the intersection of the sequence with the Hodges-Lehmann interval of the same
// log-ratios at the same level (stats::HodgesLehmann): each misses the truth with probability at
// most half the check's alpha, so the intersection misses it with at most alpha (the union
// bound). The sequence holds at every round at once and the Hodges-Lehmann interval at one round
// fixed before the run, so stopping early on the sequence leaves both guarantees intact.
// `futility` ([run] futility, with a final look): where the sequence leaves max_slowdown open
// from round stats::kFutilityFirstRound on, and the final look's chance to show the ratio above
// the bar is below stats::kFutilityChance even at the optimistic centre (stats/futility.h),
// c.cpu_futility_chance is set and a note says so: the run adds no round for the check.
void AddSequences(const PairedSeries& wall, const PairedSeries& cpu, const PairedSeries& logic,
                  const model::Thresholds& t, model::Comparison& c, int final_round = 0, bool futility = false);

// The confidence sequence for the median of per-round ratios, given their logarithms, and the
// rounds that would resolve a check of it against `bar` (nullopt where no number would). Shared
// by the CPU-time sequence above and the noisy counters (engine/analysis/counters.h).
model::Interval RatioSequence(const std::vector<double>& log_ratios, double confidence);
std::optional<int> RoundsNeeded(const std::vector<double>& log_ratios, double bar, double confidence);

// The fewest rounds at which a check at `confidence` can resolve at all (a unanimous
// series): 7 at 95%, 10 at 99%. validate rejects specs whose rounds cannot reach it.
int MinRoundsToResolve(double confidence);

// The round-to-round noise of per-round log-ratios, 1.4826 x MAD (stats::RobustScale), from
// which a check's "would have shown X% with 80% power" is computed; nullopt below 2 rounds.
std::optional<double> Noise(const std::vector<double>& log_ratios);

// The cap on a log ratio, and log(numerator / denominator) held within it. A round whose time
// after start-up is zero or negative (start-up noise exceeded the work) still counts, as the
// most extreme evidence on its side, so the order statistics a median sequence reads stay
// defined; an interval end on the cap is shown as 0 or infinity.
inline constexpr double kLogCap = 50;
double CappedLogRatio(double numerator, double denominator);

}  // namespace pe::analysis
