#include "engine/analysis/sequences.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/model/final_look.h"
#include "engine/model/threshold_table.h"
#include "stats/descriptive.h"
#include "stats/detectable.h"
#include "stats/futility.h"
#include "stats/paired.h"
#include "stats/sequential.h"

namespace pe::analysis {

using model::Comparison;
using model::Interval;
using model::Thresholds;

namespace {

constexpr char kMedianMethod[] = "confidence sequence for the median per-round ratio (Howard & Ramdas 2022)";
constexpr char kLogicMethod[] =
    "confidence sequence for the median per-round startup-adjusted ratio, start-up from the same round (Howard & "
    "Ramdas 2022)";

// log(numerator_i / denominator_i) per round; empty when any time is not positive.
std::vector<double> LogRatios(const std::vector<double>& numerator, const std::vector<double>& denominator) {
  std::vector<double> out;
  for (size_t i = 0; i < numerator.size() && i < denominator.size(); ++i) {
    if (!(numerator[i] > 0) || !(denominator[i] > 0)) return {};
    out.push_back(std::log(numerator[i] / denominator[i]));
  }
  return out;
}

bool Resolved(const Interval& cs, double bar) { return cs.low >= bar || cs.high <= bar; }

// log(baseline / candidate) of each round's work after start-up.
std::vector<double> LogicLogRatios(const PairedSeries& logic) {
  std::vector<double> out;
  for (size_t i = 0; i < logic.baseline.size() && i < logic.candidate.size(); ++i) {
    out.push_back(CappedLogRatio(logic.baseline[i], logic.candidate[i]));
  }
  return out;
}

// One sequence over the per-round ratios (b - bs) / (k - ks), each round's start-up taken from
// the same round, so what a round shared (a busy neighbour, a cold cache) cancels in its ratio.
// It replaced four median sequences at alpha / 4 combined end against end, which stayed
// unresolved at 30 rounds for a candidate 1.3x faster.
Interval LogicSequence(const std::vector<double>& log_ratios, double confidence) {
  const stats::MedianBounds b = stats::MedianSequence(log_ratios, confidence);
  auto end = [](double log_value) {
    return log_value <= -kLogCap  ? 0
           : log_value >= kLogCap ? std::numeric_limits<double>::infinity()
                                  : std::exp(log_value);
  };
  return Interval{end(stats::Median(log_ratios)), end(b.low), end(b.high), confidence, kLogicMethod};
}

// The CPU-time interval under a final look (AddSequences): the sequence at half the check's
// alpha, and at the final round its intersection with the Hodges-Lehmann interval at the other
// half. Where the two do not overlap (each can miss, with at most half the alpha) the
// Hodges-Lehmann interval alone is kept: at that round it is the narrower reading of the same
// rounds.
Interval FinalLookSequence(const std::vector<double>& log_ratios, double check_level, int final_round) {
  const double half = model::FinalLookLevel(check_level);
  Interval cs = RatioSequence(log_ratios, half);
  cs.level = check_level;
  const int n = static_cast<int>(log_ratios.size());
  if (n != final_round) {
    cs.method = fmt::format("{} at {:.4g}%, half the check's alpha; the other half is the final look's at round {}",
                            kMedianMethod, 100 * half, final_round);
    return cs;
  }
  const stats::HodgesLehmannResult hl = stats::HodgesLehmann(log_ratios, half);
  if (!hl.level_reached) {
    cs.method = fmt::format("{} at {:.4g}% (the final look at round {} cannot reach that level in so few rounds)",
                            kMedianMethod, 100 * half, final_round);
    return cs;
  }
  const double low = std::max(cs.low, std::exp(hl.low)), high = std::min(cs.high, std::exp(hl.high));
  if (low <= high) {
    cs.low = low;
    cs.high = high;
  } else {
    cs.low = std::exp(hl.low);
    cs.high = std::exp(hl.high);
  }
  cs.method = fmt::format(
      "{} at {:.4g}%, {} (round {}) with the Hodges-Lehmann interval of the same rounds (Wilcoxon signed-rank) at "
      "{:.4g}%",
      kMedianMethod, 100 * half, model::kFinalLookMark, final_round, 100 * half);
  return cs;
}

// [run] futility: the final look's chance at the optimistic centre, where it stops the check.
void AddFutility(const std::vector<double>& cpu_ratios, const Thresholds& t, int final_round, Comparison& c) {
  const int n = static_cast<int>(cpu_ratios.size());
  if (!t.max_slowdown || !c.cpu_ratio_cs || Resolved(*c.cpu_ratio_cs, *t.max_slowdown)) return;
  if (n < stats::kFutilityFirstRound) return;
  const auto reading =
      stats::FinalLookFutility(cpu_ratios, std::log(*t.max_slowdown), final_round, model::FinalLookLevel(t.confidence));
  if (!reading || !reading->Futile()) return;
  c.cpu_futility_chance = reading->chance;
  const std::string chance = reading->chance < 1e-4 ? "under 0.01%" : fmt::format("{:.2g}%", 100 * reading->chance);
  c.notes.push_back(fmt::format(
      "max_slowdown stopped for futility after {} of up to {} rounds: had the CPU-time ratio been {:.3f}x (the upper "
      "end of a one-sided 95% interval), the final look at round {} would have shown it above {}x with a chance of "
      "{}, under {:g}% (docs/statistics.md, \"Stopping for futility\")",
      n, final_round, std::exp(reading->optimistic_log), final_round, *t.max_slowdown, chance,
      100 * stats::kFutilityChance));
}

}  // namespace

double CappedLogRatio(double numerator, double denominator) {
  if (numerator > 0 && denominator > 0) return std::clamp(std::log(numerator / denominator), -kLogCap, kLogCap);
  return numerator > 0 ? kLogCap : denominator > 0 ? -kLogCap : 0;
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

std::optional<double> Noise(const std::vector<double>& log_ratios) {
  if (log_ratios.size() < 2) return std::nullopt;
  return stats::RobustScale(log_ratios);
}

int MinRoundsToResolve(double confidence) { return stats::MinTrialsToExclude(0.5, confidence).value_or(0); }

void AddSequences(const PairedSeries& wall, const PairedSeries& cpu, const PairedSeries& logic, const Thresholds& t,
                  Comparison& c, int final_round, bool futility) {
  const double level = t.confidence;
  // Each sequence over the per-round log-ratios of its measure (a row's `per_round`).
  const std::vector<double> speedups = LogRatios(wall.baseline, wall.candidate);
  const std::vector<double> cpu_ratios = LogRatios(cpu.candidate, cpu.baseline);
  const std::vector<double> logic_ratios = LogicLogRatios(logic);
  if (!speedups.empty()) {
    c.speedup_cs = RatioSequence(speedups, level);
    c.speedup_noise = Noise(speedups);
    const int n = static_cast<int>(speedups.size());
    const stats::ProportionBounds wins = stats::ProportionSequence(c.wins, n, level);
    c.win_rate_cs = Interval{static_cast<double>(c.wins) / n, wins.low, wins.high, level,
                             "confidence sequence for a proportion (beta-binomial mixture)"};
  }
  if (!cpu_ratios.empty()) {
    c.cpu_ratio_cs =
        final_round > 0 ? FinalLookSequence(cpu_ratios, level, final_round) : RatioSequence(cpu_ratios, level);
    c.cpu_noise = Noise(cpu_ratios);
    if (futility && final_round > 0) AddFutility(cpu_ratios, t, final_round, c);
  }
  if (c.logic_speedup && !logic_ratios.empty()) {
    c.logic_speedup_cs = LogicSequence(logic_ratios, level);
    c.logic_noise = Noise(logic_ratios);
  }
  // The rounds each threshold of the table that reads a sequence would need, where its
  // sequence leaves it open (model/threshold_table.h: rows sharing a sequence share the count,
  // the last set in the table's order giving it).
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    if (row.sequence == nullptr || row.rounds_needed == nullptr) continue;
    const std::optional<double>& bar = t.*row.bar;
    const std::optional<Interval>& cs = c.*row.sequence;
    if (!bar || !cs || Resolved(*cs, *bar)) continue;
    if (row.unit == model::Check::Unit::kRate) {
      c.*row.rounds_needed = stats::TrialsToExclude(cs->estimate, *bar, level);
      continue;
    }
    const std::vector<double>& ratios =
        row.per_round == "wall"  ? speedups
        : row.per_round == "cpu" ? cpu_ratios
        : row.per_round == "logic"
            ? logic_ratios
            : throw std::logic_error("AddSequences: no per-round measure '" + std::string(row.per_round) + "'");
    // The CPU-time sequence of a final look runs at half the check's alpha.
    const bool halved = final_round > 0 && row.per_round == "cpu";
    c.*row.rounds_needed = RoundsNeeded(ratios, *bar, halved ? model::FinalLookLevel(level) : level);
  }
}

}  // namespace pe::analysis
