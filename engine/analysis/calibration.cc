#include "engine/analysis/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "stats/descriptive.h"
#include "stats/distributions.h"
#include "stats/error.h"
#include "stats/sequential.h"

namespace pe::analysis {

namespace {

// P(X <= k) for X ~ Binomial(n, p), summed in log space (n up to the spec's round limit).
double BinomialCdf(int k, int n, double p) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  double sum = 0;
  const double log_p = std::log(p), log_q = std::log1p(-p);
  for (int i = 0; i <= k; ++i) {
    const double log_choose = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0);
    sum += std::exp(log_choose + i * log_p + (n - i) * log_q);
  }
  return std::min(sum, 1.0);
}

// The largest count of rounds below the bar, out of n, at which the median sequence at
// `confidence` shows the figure above it: p = 1/2 out of the sequence. -1 when none is.
int LargestExcludingCount(int n, double confidence) {
  const double threshold = std::log(1.0 / (1.0 - confidence));
  int best = -1;
  for (int k = 0; 2 * k < n; ++k) {
    if (stats::LogMixtureMartingale(k, n, 0.5) >= threshold) best = k;
  }
  return best;
}

}  // namespace

CheckReach ReachOfCheck(double sigma, double bar, int max_rounds, double confidence, double power) {
  if (!(sigma >= 0 && std::isfinite(sigma)) || !(bar > 0 && std::isfinite(bar)) || max_rounds < 1 ||
      !(confidence > 0 && confidence < 1) || !(power > 0 && power < 1)) {
    throw stats::StatsError(
        fmt::format("ReachOfCheck: sigma {} >= 0, bar {} > 0, max_rounds {} >= 1, confidence {} "
                    "and power {} in (0, 1) are required",
                    sigma, bar, max_rounds, confidence, power));
  }
  CheckReach reach;
  const double cut = std::log(bar);
  const int most_below = LargestExcludingCount(max_rounds, confidence);
  if (most_below >= 0) {
    if (sigma == 0) {
      reach.detectable = bar;
    } else {
      // The largest share below the bar that still gives `power`: the CDF falls as p rises.
      double low = 0, high = 0.5;
      for (int i = 0; i < 60; ++i) {
        const double mid = (low + high) / 2;
        (BinomialCdf(most_below, max_rounds, mid) >= power ? low : high) = mid;
      }
      reach.detectable = bar * std::exp(-sigma * stats::NormalQuantile(low));
    }
  }
  const double below_unchanged = sigma > 0 ? stats::NormalCdf(cut / sigma) : cut > 0 ? 1.0 : cut < 0 ? 0.0 : 0.5;
  reach.rounds_unchanged = stats::TrialsToExclude(below_unchanged, 0.5, confidence);
  return reach;
}

}  // namespace pe::analysis

namespace pe::analysis {

namespace {

struct Paired {
  std::vector<double> wall, cpu;  // log(candidate / baseline) per round
};

Paired PairedLogRatios(const model::RunResult& aa, const model::WorkloadResult& w) {
  std::map<int, const model::Sample*> base, copy;
  for (const model::Sample& s : w.samples) {
    if (s.warmup || s.rss_only) continue;
    if (s.contender == aa.baseline) base[s.round] = &s;
    if (s.contender == aa.candidate) copy[s.round] = &s;
  }
  Paired out;
  for (const auto& [round, b] : base) {
    const auto c = copy.find(round);
    if (c == copy.end()) continue;
    if (b->wall_s > 0 && c->second->wall_s > 0) out.wall.push_back(std::log(c->second->wall_s / b->wall_s));
    const double bc = b->user_s + b->sys_s, cc = c->second->user_s + c->second->sys_s;
    if (bc > 0 && cc > 0) out.cpu.push_back(std::log(cc / bc));
  }
  return out;
}

std::string Bar(double bar) { return fmt::format("{}", bar); }

}  // namespace

Calibration CalibrationOf(const model::RunResult& aa, int max_rounds, int warmup_rounds, double seconds_per_round,
                          double power) {
  Calibration out;
  for (const model::WorkloadResult& w : aa.workloads) {
    WorkloadCalibration wc;
    wc.name = w.name;
    const Paired paired = PairedLogRatios(aa, w);
    std::optional<double> sigma_wall, sigma_cpu;
    if (!paired.wall.empty()) {
      wc.noise.push_back({"wall", stats::MedianAbsoluteDeviation(paired.wall), static_cast<int>(paired.wall.size())});
      sigma_wall = kMadToSigma * wc.noise.back().mad;
    }
    if (!paired.cpu.empty()) {
      wc.noise.push_back({"cpu", stats::MedianAbsoluteDeviation(paired.cpu), static_cast<int>(paired.cpu.size())});
      sigma_cpu = kMadToSigma * wc.noise.back().mad;
    }
    const model::ContenderSummary* base_counts = nullptr;
    const model::ContenderSummary* copy_counts = nullptr;
    for (const model::ContenderSummary& s : w.summaries) {
      if (s.contender == aa.baseline) base_counts = &s;
      if (s.contender == aa.candidate) copy_counts = &s;
    }
    if (base_counts && copy_counts && base_counts->instructions.value_or(0) > 0 &&
        copy_counts->instructions.value_or(0) > 0) {
      wc.noise.push_back({"instructions",
                          std::abs(std::log(static_cast<double>(*copy_counts->instructions) /
                                            static_cast<double>(*base_counts->instructions))),
                          1});
    }
    if (w.gate && !w.startup) {
      const model::Thresholds& t = w.thresholds;
      const struct {
        const char* key;
        const std::optional<double>& bar;
        const char* measure;
        const std::optional<double>& sigma;
        bool no_regression;
      } rows[] = {{"min_speedup", t.min_speedup, "wall", sigma_wall, false},
                  {"min_speedup_ci", t.min_speedup_ci, "wall", sigma_wall, false},
                  {"max_slowdown", t.max_slowdown, "cpu", sigma_cpu, true}};
      for (const auto& row : rows) {
        if (!row.bar || !row.sigma) continue;
        CheckCalibration c;
        c.threshold = row.key;
        c.measure = row.measure;
        c.bar = *row.bar;
        c.confidence = t.confidence;
        c.max_rounds = max_rounds;
        c.reach = ReachOfCheck(*row.sigma, c.bar, max_rounds, t.confidence, power);
        if (c.reach.rounds_unchanged) {
          c.minutes = (*c.reach.rounds_unchanged + warmup_rounds) * seconds_per_round / 60;
        }
        if (!c.reach.detectable) {
          c.reachable = false;
          out.unreachable.push_back(
              fmt::format("{}: {} {}: max_rounds {} is below the {} rounds any check needs at {:g}% confidence", w.name,
                          c.threshold, Bar(c.bar), max_rounds, stats::MinTrialsToExclude(0.5, t.confidence).value_or(0),
                          100 * t.confidence));
        } else if (row.no_regression && !c.reach.rounds_unchanged) {
          c.reachable = false;
          out.unreachable.push_back(fmt::format("{}: {} {}: an unchanged candidate never passes it on this machine",
                                                w.name, c.threshold, Bar(c.bar)));
        } else if (row.no_regression && *c.reach.rounds_unchanged > max_rounds) {
          c.reachable = false;
          out.unreachable.push_back(fmt::format("{}: {} {}: needs about {} rounds, more than max_rounds {}", w.name,
                                                c.threshold, Bar(c.bar), *c.reach.rounds_unchanged, max_rounds));
        }
        wc.checks.push_back(std::move(c));
      }
    }
    out.workloads.push_back(std::move(wc));
  }
  return out;
}

}  // namespace pe::analysis
