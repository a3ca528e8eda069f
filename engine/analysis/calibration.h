// What an A/A run (`perfengine calibrate`, docs/calibrate.md) says a machine can gate: for one
// sequential check, the smallest change it would show with 80% power within max_rounds, and
// the rounds it takes to reach a verdict on a candidate that changed nothing.
//
// Model. The per-round log-ratios of the check's figure (speed-up: log(baseline / candidate)
// wall time; max_slowdown: log(candidate / baseline) CPU time) are Normal(mu, sigma), with sigma
// estimated robustly from the A/A rounds as 1.4826 x MAD (the MAD's consistency constant for a
// normal sample; Rousseeuw & Croux 1993). The gate reads them through the median confidence
// sequence (stats/sequential.h, Howard & Ramdas 2022): after n rounds it shows the figure above
// a bar once the count of rounds below log(bar) is small enough that p = 1/2 leaves the
// beta-binomial confidence sequence. That count is Binomial(n, Phi((log(bar) - mu) / sigma)).
//
// The power is taken at n = max_rounds only. The run looks after every round and stops at the
// first that resolves, so the true power is at least this: the detectable change stated is an
// upper bound (conservative), never an optimistic one. The same question for a mean-based
// t-test is stats/power.h's RoundsForEffect; the gate reads medians, so this reads the sequence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::analysis {

// sigma of a normal sample from its (unscaled) median absolute deviation.
inline constexpr double kMadToSigma = 1.4826;

struct CheckReach {
  // The smallest true ratio (of the check's figure: a speed-up for speed-up checks, a CPU-time
  // ratio for max_slowdown) that the check shows above its bar with `power` within max_rounds.
  // Equal to the bar when sigma is 0. nullopt when max_rounds is below the fewest rounds at which
  // any series resolves at `confidence` (7 at 95%).
  std::optional<double> detectable;
  // Rounds after which a candidate equal to the baseline (true ratio 1) gets its verdict: the
  // sequence leaves the bar at the share of rounds below log(bar) the model expects (as
  // stats::TrialsToExclude counts them). nullopt: no number of rounds (the bar is 1, or more
  // than a million rounds).
  std::optional<int> rounds_unchanged;
  // The same for a candidate whose true figure is exp(assumed_log_ratio) (equal to
  // rounds_unchanged when that is 0): what calibrate predicts for a planted or expected change.
  std::optional<int> rounds_assumed;
};

// sigma >= 0 and finite, bar > 0, max_rounds >= 1, confidence and power in (0, 1); throws
// stats::StatsError otherwise. Pure: no clock, no machine. `assumed_log_ratio` is the log of the
// check's true figure for rounds_assumed (0: unchanged).
// `final_look` ([run] final_look, model/final_look.h): the sequence runs at half the check's
// alpha, and `detectable` is the better of what it and the Hodges-Lehmann interval at the other
// half (stats::SignedRankDetectableRatioAbove) show at max_rounds.
// `futility` ([run] futility, with final_look): where rounds centred on the unchanged (or the
// assumed) figure would stop for futility before the sequence resolves them
// (stats::FutilityStopRound), that round is their rounds to a verdict: the check ends there,
// unresolved, and passes.
CheckReach ReachOfCheck(double sigma, double bar, int max_rounds, double confidence, double power = 0.8,
                        double assumed_log_ratio = 0, bool final_look = false, bool futility = false);

// The same for `min_win_rate`, which reads the confidence sequence of a proportion
// (stats::ProportionSequence) of rounds the candidate won. Under the same model a round is won
// with probability Phi(mu / sigma), mu the true log speed-up of wall time; the check passes at
// n = max_rounds once the wins reach the fewest that lift the sequence's low end to the bar.
// `detectable` is the smallest speed-up whose win probability gives that count with `power`
// (1 when sigma is 0: any speed-up wins every round); nullopt when no count of max_rounds does
// (a bar the sequence cannot clear in that many rounds). rounds_unchanged reads a win rate of
// 1/2, rounds_assumed Phi(assumed_log_speedup / sigma) (stats::TrialsToExclude at the bar).
// bar in [0, 1]; the other arguments as ReachOfCheck.
CheckReach ReachOfWinRate(double sigma, double bar, int max_rounds, double confidence, double power = 0.8,
                          double assumed_log_speedup = 0);

// One measure's A/A noise on one workload: the MAD of the per-round log-ratios (unscaled,
// so 0.01 is about 1%) over `rounds` paired rounds.
struct MeasureNoise {
  // "wall", "cpu" (user + sys), "logic" (wall time after the same round's start-up), "cpu within
  // a process" (worker benchmarks with three or more batches a round: what the CPU noise would be if
  // each round's two figures were two batches of one process, from the batches' ranges),
  // "counter NAME" (a counter the contender reports), or "instructions" / "allocations" (one
  // count each side: its "MAD" is that one |log-ratio|)
  std::string measure;
  double mad = 0;
  int rounds = 0;
};

struct CheckCalibration {
  std::string threshold;  // the gate's name for the check, e.g. "max_slowdown", "counters.objects"
  std::string measure;    // the measure its figure reads
  double bar = 0;
  double confidence = 0.95;
  int max_rounds = 0;
  CheckReach reach;
  std::optional<double> minutes;          // rounds_unchanged x seconds per round (warm-ups added) / 60
  std::optional<double> minutes_assumed;  // the same for rounds_assumed
  bool reachable = true;                  // false: the line in Calibration::unreachable says why
  std::string note;                       // why a figure is missing or what to read it with
  bool higher_is_better = false;          // a speed-up or win rate (the threshold table's direction)
  // false: a point check of a figure taken once per run (a peak, a percentile), whose power no
  // per-round noise gives; `note` says so and `reach.detectable` is empty.
  bool estimated = true;
  // max_slowdown of a worker benchmark with three or more batches a round: where its CPU noise comes
  // from, and so what would lower it (NoiseSource), e.g. "between processes: ...". Empty otherwise.
  std::string noise_source;
};

// Where a worker benchmark's per-round CPU noise comes from, from two MADs of log-ratios: `cpu`,
// between the fresh processes of a round, and `within`, between batches of one process ("cpu
// within a process"). Between processes when the processes differ by more than twice what one
// process's batches do: each round's fresh worker is laid out anew (heap, code, the allocator's
// state), so more rounds lower it and more batches do not; within a process otherwise
// (interference, a collector, the benchmark's own variation), which longer or more batches lower.
std::string NoiseSource(double cpu, double within);

struct WorkloadCalibration {
  std::string name;
  std::vector<MeasureNoise> noise;
  std::vector<CheckCalibration> checks;
};

struct Calibration {
  std::vector<WorkloadCalibration> workloads;
  // "work: max_slowdown 1.01: needs about 412 rounds, more than max_rounds 30", one per check.
  std::vector<std::string> unreachable;
};

struct CalibrationSettings {
  int max_rounds = 0;            // the spec's max_rounds (or rounds, when larger)
  int min_rounds = 0;            // the spec's rounds: when a point check (a count) gets its verdict
  int warmup_rounds = 0;         // added to the minutes
  double seconds_per_round = 0;  // what one round of the whole spec took
  double power = 0.8;
  double assumed_change = 0;  // the candidate's assumed change of cost: 0.03 is 3% slower; 0: unchanged
  bool final_look = false;    // [run] final_look: max_slowdown adds the Hodges-Lehmann interval at max_rounds
  bool futility = false;      // [run] futility: max_slowdown stops early where its final look could not fail
};

// From an A/A run (the baseline as both `aa.baseline` and `aa.candidate`): each workload's
// noise per measure and one CheckCalibration per threshold set (every row of
// model::kThresholdRows, in its order) and per counter with a bar: a row reading a confidence
// sequence by the noise of its per-round measure (ThresholdRow::per_round): ReachOfCheck, or
// ReachOfWinRate for min_win_rate; noisy counters: ReachOfCheck; a count row
// (max_instructions_ratio, max_allocations_ratio) and exact counters, point checks of a count:
// shown at the bar (times the A/A ratio's own deviation) when the run ends, after min_rounds;
// any other point row (max_rss_ratio, max_p99_ratio): not estimated, its note says so.
// Unreachable, each with a line: a check when max_rounds is below the fewest rounds that resolve
// at its confidence; a no-regression check that an unchanged candidate cannot pass within
// max_rounds; a point check an unchanged candidate fails; a check the gate skips (the
// startup-adjusted figure when the work after start-up is within start-up noise, a p99 ratio
// off a serve workload); with an assumed change, a sequential check that needs more than
// max_rounds to reach its verdict on it.
Calibration CalibrationOf(const model::RunResult& aa, const CalibrationSettings& settings);

}  // namespace pe::analysis
