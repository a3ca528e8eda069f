// The whole paired analysis of one workload, as the engine calls it once per workload.
// Every figure comes from the functions in this folder; see docs/statistics.md for what
// each means and which thresholds read it.
//
// Deterministic: the same input and seed give bit-identical results (stats/random.h).
// Rounds must be positive times (seconds). n = 0, unequal lengths, NaN/inf or a value
// <= 0 throw StatsError. Small n is data, not an error: n = 1 gives point estimates with
// zero-width bootstrap intervals, p = 1 and no power estimate; every small-sample caveat
// is a line in `notes` (a warning, never a failure).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stats/bootstrap.h"
#include "stats/outliers.h"
#include "stats/paired.h"
#include "stats/power.h"

namespace pe::stats {

struct PairedInput {
  std::span<const double> baseline, candidate;                  // per round, paired
  std::span<const double> baseline_startup, candidate_startup;  // may be empty
  double confidence = 0.95;
  int resamples = 10000;
  std::uint64_t seed = 0;
  double effect = 0.02;             // relative difference the power estimate should resolve
  std::function<bool()> cancelled;  // passed to the bootstraps (BootstrapOptions::cancelled)
};

// Rounds below which google/benchmark warns that statistics mean little.
inline constexpr int kFewRounds = 9;

struct PairedAnalysis {
  int rounds = 0;
  double baseline_median = 0;
  double candidate_median = 0;
  double speedup = 0;  // baseline median / candidate median; > 1 means the candidate is faster

  // Sign test over rounds: a win is a round where the candidate took less time.
  int wins = 0;
  int losses = 0;
  int ties = 0;
  double win_rate = 0;  // wins / rounds (ties count as not won)
  double sign_test_p = 1;

  // Wilcoxon signed-rank on the per-round log(candidate / baseline).
  WilcoxonResult wilcoxon;
  double wilcoxon_p = 1;
  double wilcoxon_statistic = 0;
  bool wilcoxon_exact = false;

  // Hodges-Lehmann on the log-ratios, back on the ratio scale: candidate / baseline,
  // below 1 when the candidate is faster.
  HodgesLehmannResult log_ratio_hl;
  double paired_ratio = 1;
  double paired_ratio_low = 1;
  double paired_ratio_high = 1;

  // Bootstrap of the median speedup (rounds resampled in pairs).
  BootstrapResult speedup_ci;

  // Startup-adjusted ("logic") speedup: absent when startup runs are missing or the
  // subtraction leaves a non-positive median; logic_note then says why.
  std::optional<AdjustedMedians> adjusted_medians;
  std::optional<double> logic_speedup;
  std::optional<BootstrapResult> logic_speedup_ci;
  std::string logic_note;

  OutlierReport baseline_outliers;
  OutlierReport candidate_outliers;
  OutlierReport log_ratio_outliers;

  // Rounds that would resolve `effect` at `confidence` with 80% power; absent below 2 rounds.
  std::optional<PowerEstimate> power;

  std::vector<std::string> notes;
};

PairedAnalysis AnalyzePaired(const PairedInput& input);

}  // namespace pe::stats
