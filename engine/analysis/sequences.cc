#include "engine/analysis/sequences.h"

#include <cmath>
#include <limits>
#include <optional>

#include "stats/descriptive.h"
#include "stats/sequential.h"

namespace pe::analysis {

namespace {

constexpr char kMedianMethod[] = "confidence sequence for the median per-round ratio (Howard & Ramdas 2022)";

// log(numerator_i / denominator_i) per round; empty when any time is not positive.
std::vector<double> LogRatios(const std::vector<double>& numerator, const std::vector<double>& denominator) {
  std::vector<double> out;
  for (size_t i = 0; i < numerator.size() && i < denominator.size(); ++i) {
    if (!(numerator[i] > 0) || !(denominator[i] > 0)) return {};
    out.push_back(std::log(numerator[i] / denominator[i]));
  }
  return out;
}

Interval RatioSequence(const std::vector<double>& log_ratios, double confidence) {
  const stats::MedianBounds b = stats::MedianSequence(log_ratios, confidence);
  return Interval{std::exp(stats::Median(log_ratios)), std::exp(b.low), std::exp(b.high), confidence, kMedianMethod};
}

// Rounds that would move the bar out of a median sequence, at the share of log-ratios seen
// below log(bar) so far (ties counting half).
std::optional<int> RoundsNeeded(const std::vector<double>& log_ratios, double bar, double confidence) {
  if (log_ratios.empty() || !(bar > 0)) return std::nullopt;
  const double cut = std::log(bar);
  double below = 0;
  for (double d : log_ratios) below += d < cut ? 1 : d == cut ? 0.5 : 0;
  return stats::TrialsToExclude(below / log_ratios.size(), 0.5, confidence);
}

bool Resolved(const Interval& cs, double bar) { return cs.low >= bar || cs.high <= bar; }

// (b - bs) / (c - cs) over four medians, each from its own sequence at alpha / 4, so the
// four hold together at 1 - alpha (Bonferroni): the lowest and highest ratio they allow.
std::optional<Interval> LogicSequence(const PairedSeries& wall, const StartupSeries& startup, double estimate,
                                      double confidence) {
  if (startup.baseline.empty() || startup.candidate.empty() || wall.baseline.empty()) return std::nullopt;
  const double each = 1 - (1 - confidence) / 4;
  const stats::MedianBounds b = stats::MedianSequence(wall.baseline, each);
  const stats::MedianBounds k = stats::MedianSequence(wall.candidate, each);
  const stats::MedianBounds bs = stats::MedianSequence(startup.baseline, each);
  const stats::MedianBounds ks = stats::MedianSequence(startup.candidate, each);
  const double inf = std::numeric_limits<double>::infinity();
  const double low_num = b.low - bs.high, low_den = k.high - ks.low;
  const double high_num = b.high - bs.low, high_den = k.low - ks.high;
  Interval cs;
  cs.estimate = estimate;
  cs.low = std::isfinite(low_num) && low_num > 0 && std::isfinite(low_den) && low_den > 0 ? low_num / low_den : 0;
  cs.high = std::isfinite(high_num) && std::isfinite(high_den) && high_den > 0 ? std::max(high_num, 0.0) / high_den : inf;
  cs.level = confidence;
  cs.method = "confidence sequences for four medians at alpha/4 each (workload and start-up, both contenders)";
  return cs;
}

}  // namespace

int MinRoundsToResolve(double confidence) { return stats::MinTrialsToExclude(0.5, confidence).value_or(0); }

void AddSequences(const PairedSeries& wall, const PairedSeries& cpu, const StartupSeries& startup,
                  const Thresholds& t, Comparison& c) {
  const double level = t.confidence;
  const std::vector<double> speedups = LogRatios(wall.baseline, wall.candidate);
  if (!speedups.empty()) {
    c.speedup_cs = RatioSequence(speedups, level);
    for (const std::optional<double>& bar : {t.min_speedup, t.min_speedup_ci}) {
      if (bar && !Resolved(*c.speedup_cs, *bar)) c.speedup_rounds_needed = RoundsNeeded(speedups, *bar, level);
    }
    const int n = static_cast<int>(speedups.size());
    const stats::ProportionBounds wins = stats::ProportionSequence(c.wins, n, level);
    c.win_rate_cs = Interval{static_cast<double>(c.wins) / n, wins.low, wins.high, level,
                             "confidence sequence for a proportion (beta-binomial mixture)"};
    if (t.min_win_rate && !Resolved(*c.win_rate_cs, *t.min_win_rate)) {
      c.win_rounds_needed = stats::TrialsToExclude(static_cast<double>(c.wins) / n, *t.min_win_rate, level);
    }
  }
  const std::vector<double> cpu_ratios = LogRatios(cpu.candidate, cpu.baseline);
  if (!cpu_ratios.empty()) {
    c.cpu_ratio_cs = RatioSequence(cpu_ratios, level);
    if (t.max_slowdown && !Resolved(*c.cpu_ratio_cs, *t.max_slowdown)) {
      c.cpu_rounds_needed = RoundsNeeded(cpu_ratios, *t.max_slowdown, level);
    }
  }
  if (c.logic_speedup) c.logic_speedup_cs = LogicSequence(wall, startup, *c.logic_speedup, level);
}

}  // namespace pe::analysis
