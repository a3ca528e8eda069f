#include "stats/analysis.h"

#include <fmt/format.h>

#include <cmath>

#include "stats/descriptive.h"
#include "stats/error.h"

namespace pe::stats {

PairedAnalysis AnalyzePaired(const PairedInput& input) {
  if (input.baseline.size() != input.candidate.size()) {
    throw StatsError(fmt::format("AnalyzePaired: baseline has {} rounds but candidate has {}", input.baseline.size(),
                                 input.candidate.size()));
  }
  RequireAtLeast("AnalyzePaired", input.baseline, 1);
  // LogRatios checks finiteness and positivity of both sides with the index at fault.
  const std::vector<double> log_ratios = LogRatios(input.baseline, input.candidate);

  PairedAnalysis result;
  result.rounds = static_cast<int>(input.baseline.size());
  result.baseline_median = Median(input.baseline);
  result.candidate_median = Median(input.candidate);
  result.speedup = result.baseline_median / result.candidate_median;

  const SignTestResult sign = SignTestPaired(input.baseline, input.candidate);
  result.wins = sign.wins;
  result.losses = sign.losses;
  result.ties = sign.ties;
  result.win_rate = static_cast<double>(sign.wins) / result.rounds;
  result.sign_test_p = sign.p_value;

  result.wilcoxon = WilcoxonSignedRank(log_ratios);
  result.wilcoxon_p = result.wilcoxon.p_value;
  result.wilcoxon_statistic = result.wilcoxon.statistic;
  result.wilcoxon_exact = result.wilcoxon.exact;

  result.log_ratio_hl = HodgesLehmann(log_ratios, input.confidence);
  result.paired_ratio = std::exp(result.log_ratio_hl.estimate);
  result.paired_ratio_low = std::exp(result.log_ratio_hl.low);
  result.paired_ratio_high = std::exp(result.log_ratio_hl.high);
  if (!result.log_ratio_hl.level_reached) {
    result.notes.push_back(
        fmt::format("{} round{} cannot give a {:.0f}% Hodges-Lehmann interval; the reported range covers "
                    "{:.1f}%",
                    result.rounds, result.rounds == 1 ? "" : "s", input.confidence * 100,
                    result.log_ratio_hl.achieved_level * 100));
  }

  const BootstrapOptions options{input.confidence, input.resamples, input.seed, input.cancelled};
  result.speedup_ci = BootstrapMedianRatio(input.baseline, input.candidate, options);
  if (!result.speedup_ci.note.empty()) {
    result.notes.push_back("speedup bootstrap: " + result.speedup_ci.note);
  }

  if (input.baseline_startup.empty() || input.candidate_startup.empty()) {
    result.logic_note = "no startup runs for both contenders: no startup-adjusted speedup";
  } else {
    const AdjustedMedians adjusted =
        StartupAdjustedMedians(input.baseline, input.candidate, input.baseline_startup, input.candidate_startup);
    result.adjusted_medians = adjusted;
    if (!adjusted.positive()) {
      result.logic_note = fmt::format(
          "startup is at least the whole run (adjusted medians: baseline {:.6g} s, candidate "
          "{:.6g} s): no startup-adjusted speedup",
          adjusted.baseline, adjusted.candidate);
    } else {
      result.logic_speedup = adjusted.baseline / adjusted.candidate;
      result.logic_speedup_ci = BootstrapStartupAdjustedRatio(input.baseline, input.candidate, input.baseline_startup,
                                                              input.candidate_startup, options);
      result.logic_note = result.logic_speedup_ci->note;
    }
  }

  result.baseline_outliers = ClassifyOutliers(input.baseline);
  result.candidate_outliers = ClassifyOutliers(input.candidate);
  result.log_ratio_outliers = ClassifyOutliers(log_ratios);
  const std::size_t severe =
      result.baseline_outliers.tukey.severe.size() + result.candidate_outliers.tukey.severe.size();
  if (severe > 0) {
    result.notes.push_back(
        fmt::format("{} severe outlier{} (beyond 3 IQR): medians resist them, but check for interference", severe,
                    severe == 1 ? "" : "s"));
  }

  if (result.rounds >= 2) {
    result.power = RoundsToResolve(log_ratios, input.effect, input.confidence);
  }
  if (result.rounds < kFewRounds) {
    result.notes.push_back(fmt::format("only {} round{}: fewer than {} make p-values and intervals coarse",
                                       result.rounds, result.rounds == 1 ? "" : "s", kFewRounds));
  }
  // No "rounds to resolve" note here: it would speak of wall time whatever a check reads.
  // Each sequential check states its own from the series it reads (engine/analysis).
  return result;
}

}  // namespace pe::stats
