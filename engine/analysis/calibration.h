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
};

// sigma >= 0 and finite, bar > 0, max_rounds >= 1, confidence and power in (0, 1); throws
// stats::StatsError otherwise. Pure: no clock, no machine.
CheckReach ReachOfCheck(double sigma, double bar, int max_rounds, double confidence, double power = 0.8);

// One measure's A/A noise on one workload: the MAD of the per-round log-ratios (unscaled,
// so 0.01 is about 1%) over `rounds` paired rounds.
struct MeasureNoise {
  std::string measure;  // "wall", "cpu" (user + sys) or "instructions" (one count each side)
  double mad = 0;
  int rounds = 0;
};

struct CheckCalibration {
  std::string threshold;  // the spec key, e.g. "max_slowdown"
  std::string measure;    // the measure its figure reads
  double bar = 0;
  double confidence = 0.95;
  int max_rounds = 0;
  CheckReach reach;
  std::optional<double> minutes;  // rounds_unchanged x seconds per round (warm-ups added) / 60
  bool reachable = true;          // false: the line in Calibration::unreachable says why
};

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

// From an A/A run (the baseline as both `aa.baseline` and `aa.candidate`): each workload's
// noise per measure and, for its gated sequential checks (min_speedup, min_speedup_ci on wall
// time; max_slowdown on CPU time), ReachOfCheck at the spec's `max_rounds`. A no-regression
// check that an unchanged candidate cannot pass within max_rounds, and any check when
// max_rounds is below the fewest rounds that resolve, is unreachable. `seconds_per_round` is
// what one round of the whole spec took; `warmup_rounds` are added to the minutes.
Calibration CalibrationOf(const model::RunResult& aa, int max_rounds, int warmup_rounds, double seconds_per_round,
                          double power = 0.8);

}  // namespace pe::analysis
