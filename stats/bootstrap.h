// Bootstrap confidence intervals for speedups, seeded and reproducible.
//
// Methods (Efron & Tibshirani 1993, An Introduction to the Bootstrap):
// - Percentile interval (ch. 13): the (1 - level)/2 and (1 + level)/2 type-7 quantiles of
//   the bootstrap replicates.
// - BCa, bias-corrected and accelerated (ch. 14, eq. 14.9-14.15): percentiles shifted by
//   z0 = Phi^-1(share of replicates below the estimate, ties counting half) and the
//   jackknife acceleration a; with several independently resampled groups the jackknife
//   terms are combined per group as in SciPy (scipy.stats.bootstrap, method="BCa").
//
// Resampling: rounds are resampled as pairs (baseline and candidate of one round stay
// together, keeping the pairing that cancels drift). For the startup-adjusted ratio the
// startup runs are resampled too, as pairs when both sides have the same count, else
// each side on its own. Replicates come from std::mt19937_64 seeded with `seed` (see
// stats/random.h), so the same input and seed give bit-identical intervals.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pe::stats {

struct BootstrapOptions {
  double confidence = 0.95;
  int resamples = 10000;
  std::uint64_t seed = 0;
  // Asked every 1024 resamples; when it returns true the bootstrap throws Cancelled. Lets
  // the engine stop a million-resample analysis on Ctrl-C without stats/ knowing signals.
  std::function<bool()> cancelled;
};

struct Bounds {
  double low = 0;
  double high = 0;
};

struct BootstrapResult {
  double estimate = 0;
  double level = 0.95;
  int resamples = 0;
  std::uint64_t seed = 0;
  std::optional<Bounds> percentile;  // absent when the statistic is undefined on a resample
  std::optional<Bounds> bca;         // absent as well when z0 is infinite
  double bias_correction = 0;        // z0
  double acceleration = 0;           // a
  std::string note;                  // why an interval is absent, or what degenerated
};

// speedup = median(baseline) / median(candidate), resampling paired rounds.
// n = 0 throws StatsError, as do unequal lengths, NaN/inf, and values <= 0. n = 1 has no
// spread: both intervals are [estimate, estimate] and the note says so. All ties (every
// replicate equal to the estimate) give z0 = 0, a = 0 and zero-width intervals.
BootstrapResult BootstrapMedianRatio(std::span<const double> baseline, std::span<const double> candidate,
                                     const BootstrapOptions& options = {});

// Startup-adjusted ("logic") speedup:
//   (median(baseline) - median(baseline_startup)) / (median(candidate) - median(candidate_startup))
// resampling rounds and startup runs. Throws StatsError when any input is empty, not
// finite or <= 0, or when the estimate's adjusted medians are not both positive (the
// ratio means nothing then; check StartupAdjustedMedians first). When some resample
// leaves a non-positive adjusted median, no interval is reported and the note counts them.
BootstrapResult BootstrapStartupAdjustedRatio(std::span<const double> baseline, std::span<const double> candidate,
                                              std::span<const double> baseline_startup,
                                              std::span<const double> candidate_startup,
                                              const BootstrapOptions& options = {});

// Unpaired: speedup = median(before) / median(after) for two independent sets of runs (two
// saved results files, say), resampling each set on its own since nothing pairs them. The
// sizes may differ. Each replicate draws len(before) indices into `before`, then len(after)
// into `after`, from one generator seeded with `seed`. BCa's jackknife has one group per set
// (leave one run of that set out), combined as for the paired case. Empty input, NaN/inf or
// values <= 0 throw StatsError. One value on each side has no spread: both intervals are
// [estimate, estimate] and the note says so; one value on one side only resamples the other.
BootstrapResult BootstrapMedianRatioUnpaired(std::span<const double> before, std::span<const double> after,
                                             const BootstrapOptions& options = {});

struct AdjustedMedians {
  double baseline = 0;   // median(baseline) - median(baseline_startup)
  double candidate = 0;  // median(candidate) - median(candidate_startup)
  bool positive() const { return baseline > 0 && candidate > 0; }
};
AdjustedMedians StartupAdjustedMedians(std::span<const double> baseline, std::span<const double> candidate,
                                       std::span<const double> baseline_startup,
                                       std::span<const double> candidate_startup);

// The interval arithmetic on its own, for replicates drawn elsewhere (tests feed it
// SciPy's numbers). `jackknife` holds one vector of leave-one-out estimates per
// independently resampled group. Throws StatsError when replicates are empty or not
// finite, or confidence is outside (0, 1).
BootstrapResult IntervalsFromReplicates(double estimate, std::span<const double> replicates,
                                        const std::vector<std::vector<double>>& jackknife, double confidence);

// Leave-one-round-out estimates of median(baseline) / median(candidate); n >= 2.
std::vector<double> JackknifeMedianRatio(std::span<const double> baseline, std::span<const double> candidate);

}  // namespace pe::stats
