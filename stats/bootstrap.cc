#include "stats/bootstrap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stats/descriptive.h"
#include "stats/distributions.h"
#include "stats/error.h"
#include "stats/random.h"

namespace pe::stats {

namespace {

void RequirePositiveSample(const char* function, const char* name, std::span<const double> x) {
  RequireFinite(function, x);
  if (x.empty()) throw StatsError(fmt::format("{}: {} is empty", function, name));
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0.0)) {
      throw StatsError(fmt::format("{}: {} value at index {} is {}, expected > 0", function, name, i, x[i]));
    }
  }
}

void RequireOptions(const char* function, const BootstrapOptions& options) {
  if (options.resamples < 1) {
    throw StatsError(fmt::format("{}: resamples is {}, expected at least 1", function, options.resamples));
  }
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    throw StatsError(fmt::format("{}: confidence {} is outside (0, 1)", function, options.confidence));
  }
}

// Polled inside the resampling loops; cheap enough to leave in: one call per 1024 resamples.
void CheckCancelled(const BootstrapOptions& options, std::size_t i) {
  if ((i & 1023) == 0 && options.cancelled && options.cancelled()) throw Cancelled();
}

BootstrapResult Degenerate(double estimate, const BootstrapOptions& options, std::string note) {
  BootstrapResult result;
  result.estimate = estimate;
  result.level = options.confidence;
  result.resamples = options.resamples;
  result.seed = options.seed;
  result.percentile = Bounds{estimate, estimate};
  result.bca = Bounds{estimate, estimate};
  result.note = std::move(note);
  return result;
}

// One sample prepared for many resampled medians: its values sorted once and, per
// original index, the position in that order. A resample's median is then found by
// counting draws per position and walking the counts, O(n) without the data-dependent
// partitioning of nth_element (which dominated the bootstrap's time). The value returned
// is bit-identical to MedianInPlace on the resampled values: the same two order
// statistics combined the same way.
class RankedSample {
 public:
  explicit RankedSample(std::span<const double> x) : sorted_(x.size()), position_(x.size()) {
    std::vector<std::uint32_t> order(x.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return x[a] < x[b]; });
    for (std::uint32_t p = 0; p < order.size(); ++p) {
      sorted_[p] = x[order[p]];
      position_[order[p]] = p;
    }
    counts_.resize(x.size());
  }

  double MedianAt(std::span<const std::uint32_t> indices) {
    std::fill(counts_.begin(), counts_.end(), 0u);
    for (std::uint32_t index : indices) ++counts_[position_[index]];
    const std::size_t m = indices.size();
    const std::size_t lower_rank = (m - 1) / 2;  // 0-based order statistics wanted
    const std::size_t upper_rank = m / 2;
    std::size_t seen = 0;
    std::size_t p = 0;
    while (seen + counts_[p] <= lower_rank) seen += counts_[p++];
    const double lower = sorted_[p];
    while (seen + counts_[p] <= upper_rank) seen += counts_[p++];
    const double upper = sorted_[p];
    return m % 2 == 1 ? upper : lower + (upper - lower) / 2;
  }

 private:
  std::vector<double> sorted_;
  std::vector<std::uint32_t> position_;
  std::vector<std::uint32_t> counts_;
};

void Draw(Random& rng, std::vector<std::uint32_t>& indices, std::size_t n) {
  for (auto& index : indices) index = static_cast<std::uint32_t>(rng.Below(n));
}

// Median of x without element `skip`.
double MedianWithout(std::span<const double> x, std::size_t skip, std::vector<double>& scratch) {
  scratch.clear();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i != skip) scratch.push_back(x[i]);
  }
  return MedianInPlace(scratch);
}

}  // namespace

BootstrapResult IntervalsFromReplicates(double estimate, std::span<const double> replicates,
                                        const std::vector<std::vector<double>>& jackknife, double confidence) {
  RequireFinite("IntervalsFromReplicates", replicates);
  RequireAtLeast("IntervalsFromReplicates", replicates, 1);
  for (const auto& group : jackknife) RequireFinite("IntervalsFromReplicates", group);
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw StatsError(fmt::format("IntervalsFromReplicates: confidence {} is outside (0, 1)", confidence));
  }
  BootstrapResult result;
  result.estimate = estimate;
  result.level = confidence;
  result.resamples = static_cast<int>(replicates.size());

  const std::vector<double> sorted = Sorted(replicates);
  const double alpha = (1.0 - confidence) / 2.0;
  result.percentile = Bounds{QuantileOfSorted(sorted, alpha), QuantileOfSorted(sorted, 1 - alpha)};

  // Share below the estimate with ties counting half, as SciPy does: medians of resamples
  // tie with the estimate often, and counting ties fully on one side would bias z0.
  std::size_t below = 0;
  std::size_t at_or_below = 0;
  for (double r : sorted) {
    below += r < estimate;
    at_or_below += r <= estimate;
  }
  const double share = static_cast<double>(below + at_or_below) / (2.0 * static_cast<double>(sorted.size()));
  result.bias_correction = NormalQuantile(share);
  if (!std::isfinite(result.bias_correction)) {
    result.note = fmt::format("no BCa interval: every resample fell on one side of the estimate (z0 = {})",
                              result.bias_correction);
    return result;
  }

  // Acceleration from the jackknife (E&T eq. 14.15), per group with SciPy's scaling
  // U = (n - 1)(mean - theta_i) so several independently resampled groups combine.
  double num = 0.0;
  double den = 0.0;
  for (const auto& group : jackknife) {
    if (group.size() < 2) continue;
    const double n = static_cast<double>(group.size());
    double mean = 0.0;
    for (double v : group) mean += v;
    mean /= n;
    double sum3 = 0.0;
    double sum2 = 0.0;
    for (double v : group) {
      const double u = (n - 1.0) * (mean - v);
      sum3 += u * u * u;
      sum2 += u * u;
    }
    num += sum3 / (n * n * n);
    den += sum2 / (n * n);
  }
  // A constant jackknife (all ties) carries no skewness information: a = 0.
  result.acceleration = den > 0.0 ? num / (6.0 * std::pow(den, 1.5)) : 0.0;

  const double z0 = result.bias_correction;
  const double a = result.acceleration;
  const double z_low = NormalQuantile(alpha);
  const double shifted_low = z0 + z_low;
  const double shifted_high = z0 - z_low;
  const double p_low = NormalCdf(z0 + shifted_low / (1.0 - a * shifted_low));
  const double p_high = NormalCdf(z0 + shifted_high / (1.0 - a * shifted_high));
  if (!(p_low >= 0.0 && p_low <= 1.0 && p_high >= 0.0 && p_high <= 1.0)) {
    result.note = "no BCa interval: the adjusted percentiles are undefined";
    return result;
  }
  result.bca = Bounds{QuantileOfSorted(sorted, p_low), QuantileOfSorted(sorted, p_high)};
  return result;
}

std::vector<double> JackknifeMedianRatio(std::span<const double> baseline, std::span<const double> candidate) {
  RequirePositiveSample("JackknifeMedianRatio", "baseline", baseline);
  RequirePositiveSample("JackknifeMedianRatio", "candidate", candidate);
  if (baseline.size() != candidate.size() || baseline.size() < 2) {
    throw StatsError(fmt::format("JackknifeMedianRatio: needs two paired samples of at least 2, got {} and {}",
                                 baseline.size(), candidate.size()));
  }
  std::vector<double> values(baseline.size());
  std::vector<double> scratch;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    const double b = MedianWithout(baseline, i, scratch);
    values[i] = b / MedianWithout(candidate, i, scratch);
  }
  return values;
}

BootstrapResult BootstrapMedianRatio(std::span<const double> baseline, std::span<const double> candidate,
                                     const BootstrapOptions& options) {
  constexpr const char* kName = "BootstrapMedianRatio";
  RequirePositiveSample(kName, "baseline", baseline);
  RequirePositiveSample(kName, "candidate", candidate);
  RequireOptions(kName, options);
  if (baseline.size() != candidate.size()) {
    throw StatsError(
        fmt::format("{}: baseline has {} rounds but candidate has {}", kName, baseline.size(), candidate.size()));
  }
  const std::size_t n = baseline.size();
  const double estimate = Median(baseline) / Median(candidate);
  if (n == 1) return Degenerate(estimate, options, "one round: nothing to resample");

  Random rng(options.seed);
  RankedSample ranked_baseline(baseline);
  RankedSample ranked_candidate(candidate);
  std::vector<std::uint32_t> indices(n);
  std::vector<double> replicates(static_cast<std::size_t>(options.resamples));
  for (std::size_t r = 0; r < replicates.size(); ++r) {
    CheckCancelled(options, r);
    double& replicate = replicates[r];
    Draw(rng, indices, n);
    replicate = ranked_baseline.MedianAt(indices) / ranked_candidate.MedianAt(indices);
  }
  BootstrapResult result =
      IntervalsFromReplicates(estimate, replicates, {JackknifeMedianRatio(baseline, candidate)}, options.confidence);
  result.seed = options.seed;
  return result;
}

BootstrapResult BootstrapMedianRatioUnpaired(std::span<const double> before, std::span<const double> after,
                                             const BootstrapOptions& options) {
  constexpr const char* kName = "BootstrapMedianRatioUnpaired";
  RequirePositiveSample(kName, "before", before);
  RequirePositiveSample(kName, "after", after);
  RequireOptions(kName, options);
  const double before_median = Median(before);
  const double after_median = Median(after);
  const double estimate = before_median / after_median;
  if (before.size() == 1 && after.size() == 1) {
    return Degenerate(estimate, options, "one run on each side: nothing to resample");
  }

  Random rng(options.seed);
  RankedSample ranked_before(before);
  RankedSample ranked_after(after);
  std::vector<std::uint32_t> before_indices(before.size());
  std::vector<std::uint32_t> after_indices(after.size());
  std::vector<double> replicates(static_cast<std::size_t>(options.resamples));
  for (std::size_t r = 0; r < replicates.size(); ++r) {
    CheckCancelled(options, r);
    double& replicate = replicates[r];
    Draw(rng, before_indices, before.size());
    Draw(rng, after_indices, after.size());
    replicate = ranked_before.MedianAt(before_indices) / ranked_after.MedianAt(after_indices);
  }

  // One jackknife group per independently resampled set; a set of one has no leave-one-out.
  std::vector<std::vector<double>> jackknife(2);
  std::vector<double> scratch;
  for (std::size_t i = 0; before.size() >= 2 && i < before.size(); ++i) {
    jackknife[0].push_back(MedianWithout(before, i, scratch) / after_median);
  }
  for (std::size_t i = 0; after.size() >= 2 && i < after.size(); ++i) {
    jackknife[1].push_back(before_median / MedianWithout(after, i, scratch));
  }
  BootstrapResult result = IntervalsFromReplicates(estimate, replicates, jackknife, options.confidence);
  result.seed = options.seed;
  return result;
}

AdjustedMedians StartupAdjustedMedians(std::span<const double> baseline, std::span<const double> candidate,
                                       std::span<const double> baseline_startup,
                                       std::span<const double> candidate_startup) {
  constexpr const char* kName = "StartupAdjustedMedians";
  RequirePositiveSample(kName, "baseline", baseline);
  RequirePositiveSample(kName, "candidate", candidate);
  RequirePositiveSample(kName, "baseline_startup", baseline_startup);
  RequirePositiveSample(kName, "candidate_startup", candidate_startup);
  return AdjustedMedians{Median(baseline) - Median(baseline_startup), Median(candidate) - Median(candidate_startup)};
}

BootstrapResult BootstrapStartupAdjustedRatio(std::span<const double> baseline, std::span<const double> candidate,
                                              std::span<const double> baseline_startup,
                                              std::span<const double> candidate_startup,
                                              const BootstrapOptions& options) {
  constexpr const char* kName = "BootstrapStartupAdjustedRatio";
  RequireOptions(kName, options);
  if (baseline.size() != candidate.size()) {
    throw StatsError(
        fmt::format("{}: baseline has {} rounds but candidate has {}", kName, baseline.size(), candidate.size()));
  }
  const AdjustedMedians adjusted = StartupAdjustedMedians(baseline, candidate, baseline_startup, candidate_startup);
  if (!adjusted.positive()) {
    throw StatsError(fmt::format("{}: startup-adjusted medians are not both positive (baseline {}, candidate {})",
                                 kName, adjusted.baseline, adjusted.candidate));
  }
  const double estimate = adjusted.baseline / adjusted.candidate;
  const std::size_t n = baseline.size();
  const std::size_t nb = baseline_startup.size();
  const std::size_t nc = candidate_startup.size();
  const bool startup_paired = nb == nc;
  if (n == 1 && nb == 1 && nc == 1) {
    return Degenerate(estimate, options, "one round and one startup run: nothing to resample");
  }

  Random rng(options.seed);
  std::vector<std::uint32_t> rounds(n);
  std::vector<std::uint32_t> startup_b(nb);
  std::vector<std::uint32_t> startup_c(nc);
  RankedSample ranked_baseline(baseline);
  RankedSample ranked_candidate(candidate);
  RankedSample ranked_baseline_startup(baseline_startup);
  RankedSample ranked_candidate_startup(candidate_startup);
  std::vector<double> replicates(static_cast<std::size_t>(options.resamples));
  int invalid = 0;
  for (std::size_t r = 0; r < replicates.size(); ++r) {
    CheckCancelled(options, r);
    double& replicate = replicates[r];
    Draw(rng, rounds, n);
    Draw(rng, startup_b, nb);
    if (startup_paired) {
      startup_c = startup_b;
    } else {
      Draw(rng, startup_c, nc);
    }
    const double b = ranked_baseline.MedianAt(rounds) - ranked_baseline_startup.MedianAt(startup_b);
    const double c = ranked_candidate.MedianAt(rounds) - ranked_candidate_startup.MedianAt(startup_c);
    if (b > 0.0 && c > 0.0) {
      replicate = b / c;
    } else {
      replicate = estimate;  // placeholder; the interval is withheld below
      ++invalid;
    }
  }
  if (invalid > 0) {
    BootstrapResult result;
    result.estimate = estimate;
    result.level = options.confidence;
    result.resamples = options.resamples;
    result.seed = options.seed;
    result.note = fmt::format(
        "no interval: {} of {} resamples left a startup-adjusted median <= 0 (startup is too "
        "large a share of the run to subtract reliably)",
        invalid, options.resamples);
    return result;
  }

  // Jackknife per independently resampled group: rounds, then startup (pairs or sides).
  std::vector<std::vector<double>> jackknife;
  std::vector<double> work;
  const double startup_b_median = Median(baseline_startup);
  const double startup_c_median = Median(candidate_startup);
  bool jackknife_valid = true;
  auto add_ratio = [&](std::vector<double>& group, double b, double c) {
    if (b > 0.0 && c > 0.0) {
      group.push_back(b / c);
    } else {
      jackknife_valid = false;
    }
  };
  if (n >= 2) {
    std::vector<double> group;
    for (std::size_t i = 0; i < n; ++i) {
      add_ratio(group, MedianWithout(baseline, i, work) - startup_b_median,
                MedianWithout(candidate, i, work) - startup_c_median);
    }
    jackknife.push_back(std::move(group));
  }
  const double round_b_median = Median(baseline);
  const double round_c_median = Median(candidate);
  if (startup_paired && nb >= 2) {
    std::vector<double> group;
    for (std::size_t i = 0; i < nb; ++i) {
      add_ratio(group, round_b_median - MedianWithout(baseline_startup, i, work),
                round_c_median - MedianWithout(candidate_startup, i, work));
    }
    jackknife.push_back(std::move(group));
  } else if (!startup_paired) {
    std::vector<double> group_b;
    for (std::size_t i = 0; nb >= 2 && i < nb; ++i) {
      add_ratio(group_b, round_b_median - MedianWithout(baseline_startup, i, work), adjusted.candidate);
    }
    std::vector<double> group_c;
    for (std::size_t i = 0; nc >= 2 && i < nc; ++i) {
      add_ratio(group_c, adjusted.baseline, round_c_median - MedianWithout(candidate_startup, i, work));
    }
    jackknife.push_back(std::move(group_b));
    jackknife.push_back(std::move(group_c));
  }
  BootstrapResult result = IntervalsFromReplicates(estimate, replicates, jackknife, options.confidence);
  result.seed = options.seed;
  if (!jackknife_valid) {
    result.bca.reset();
    result.note = "no BCa interval: a jackknife estimate left a startup-adjusted median <= 0";
  }
  return result;
}

}  // namespace pe::stats
