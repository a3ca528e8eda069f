#include "engine/analysis/counters.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "engine/analysis/sequences.h"
#include "engine/model/count_ratio.h"
#include "stats/descriptive.h"

namespace pe::analysis {

namespace {

// round -> value of one counter for one contender, measured samples only (a later sample of
// a round replaces an earlier one, as for times).
std::map<int, double> ByRound(const model::WorkloadResult& w, const std::string& contender, const std::string& name) {
  std::map<int, double> out;
  for (const model::Sample& s : w.samples) {
    if (s.warmup || s.rss_only || s.contender != contender) continue;
    for (const model::CounterValue& v : s.counters) {
      if (v.name == name) out[s.round] = v.value;
    }
  }
  return out;
}

std::vector<double> Values(const std::map<int, double>& by_round) {
  std::vector<double> out;
  for (const auto& [round, value] : by_round) out.push_back(value);
  return out;
}

}  // namespace

void CompareCounters(const model::RunResult& result, const model::WorkloadResult& w, model::Comparison& c) {
  c.counters.clear();
  const double level = w.thresholds.confidence;
  for (const model::Counter& counter : w.counters) {
    model::CounterComparison cc;
    cc.name = counter.name;
    // The pair the comparison names (model/pairs.h), or the run's own in an unnamed one.
    const std::map<int, double> base = ByRound(w, c.baseline.empty() ? result.baseline : c.baseline, counter.name);
    const std::map<int, double> cand = ByRound(w, c.candidate.empty() ? result.candidate : c.candidate, counter.name);
    if (base.empty() || cand.empty()) {
      cc.note = "no measured round reported it";
      c.counters.push_back(std::move(cc));
      continue;
    }
    const std::vector<double> b = Values(base), k = Values(cand);
    cc.baseline = stats::Median(b);
    cc.candidate = stats::Median(k);
    if (counter.exact) {
      cc.ratio = model::CountRatio(cc.baseline, cc.candidate);  // 0 to 0: 1; 0 to 5: unbounded, fails any bar
      const auto [b_low, b_high] = std::minmax_element(b.begin(), b.end());
      const auto [k_low, k_high] = std::minmax_element(k.begin(), k.end());
      if (*b_low != *b_high || *k_low != *k_high) {
        cc.note =
            fmt::format("declared exact but varied between rounds (baseline {:g} to {:g}, candidate {:g} to {:g})",
                        *b_low, *b_high, *k_low, *k_high);
      }
    } else {
      std::vector<double> log_ratios;
      for (const auto& [round, value] : cand) {
        const auto other = base.find(round);
        if (other == base.end()) continue;
        if (!(value > 0) || !(other->second > 0)) {
          log_ratios.clear();
          cc.note = fmt::format("round {} reported 0: a per-round ratio is not defined", round);
          break;
        }
        log_ratios.push_back(std::log(value / other->second));
      }
      if (!log_ratios.empty()) {
        cc.ratio_cs = RatioSequence(log_ratios, level);
        cc.noise = Noise(log_ratios);
        const model::Interval& cs = *cc.ratio_cs;
        if (counter.max_ratio && cs.low < *counter.max_ratio && cs.high > *counter.max_ratio) {
          cc.rounds_needed = RoundsNeeded(log_ratios, *counter.max_ratio, level);
        }
      } else if (cc.note.empty()) {
        cc.note = "no round measured both contenders";
      }
    }
    c.counters.push_back(std::move(cc));
  }
}

}  // namespace pe::analysis
