#include "engine/analysis/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis/sequences.h"
#include "engine/model/final_look.h"
#include "engine/model/threshold_table.h"
#include "engine/units/units.h"
#include "stats/descriptive.h"
#include "stats/detectable.h"
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

// The share of rounds whose log-ratio falls below `cut` when they are Normal(mu, sigma).
double ShareBelow(double cut, double mu, double sigma) {
  if (sigma > 0) return stats::NormalCdf((cut - mu) / sigma);
  return cut > mu ? 1.0 : cut < mu ? 0.0 : 0.5;
}

}  // namespace

CheckReach ReachOfCheck(double sigma, double bar, int max_rounds, double confidence_in, double power,
                        double assumed_log_ratio, bool final_look, bool futility) {
  const double confidence =
      final_look && confidence_in > 0 && confidence_in < 1 ? model::FinalLookLevel(confidence_in) : confidence_in;
  if (!(sigma >= 0 && std::isfinite(sigma)) || !(bar > 0 && std::isfinite(bar)) || max_rounds < 1 ||
      !(confidence > 0 && confidence < 1) || !(power > 0 && power < 1) || !std::isfinite(assumed_log_ratio)) {
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
  if (final_look) {
    const std::optional<double> last = stats::SignedRankDetectableRatioAbove(sigma, max_rounds, bar, confidence, power);
    if (last && (!reach.detectable || *last < *reach.detectable)) reach.detectable = last;
  }
  reach.rounds_unchanged = stats::TrialsToExclude(ShareBelow(cut, 0, sigma), 0.5, confidence);
  reach.rounds_assumed = stats::TrialsToExclude(ShareBelow(cut, assumed_log_ratio, sigma), 0.5, confidence);
  if (final_look && futility) {
    auto sooner = [&](std::optional<int>& rounds, double theta) {
      const std::optional<int> stop = stats::FutilityStopRound(theta, sigma, cut, max_rounds, confidence);
      if (stop && (!rounds || *stop < *rounds)) rounds = stop;
    };
    sooner(reach.rounds_unchanged, 0);
    sooner(reach.rounds_assumed, assumed_log_ratio);
  }
  return reach;
}

CheckReach ReachOfWinRate(double sigma, double bar, int max_rounds, double confidence, double power,
                          double assumed_log_speedup) {
  if (!(sigma >= 0 && std::isfinite(sigma)) || !(bar >= 0 && bar <= 1) || max_rounds < 1 ||
      !(confidence > 0 && confidence < 1) || !(power > 0 && power < 1) || !std::isfinite(assumed_log_speedup)) {
    throw stats::StatsError(
        fmt::format("ReachOfWinRate: sigma {} >= 0, bar {} in [0, 1], max_rounds {} >= 1, confidence {} "
                    "and power {} in (0, 1) are required",
                    sigma, bar, max_rounds, confidence, power));
  }
  CheckReach reach;
  // One computation for calibrate and the report's power line (stats/detectable.h).
  reach.detectable = stats::DetectableWinSpeedup(sigma, max_rounds, bar, confidence, power);
  auto win_share = [&](double mu) { return sigma > 0 ? stats::NormalCdf(mu / sigma) : mu > 0 ? 1.0 : 0.0; };
  auto rounds = [&](double share) -> std::optional<int> {
    if (bar <= 0) return 1;  // a bar of 0 holds from the first round
    return stats::TrialsToExclude(share, bar, confidence);
  };
  reach.rounds_unchanged = rounds(win_share(0));
  reach.rounds_assumed = rounds(win_share(assumed_log_speedup));
  return reach;
}

}  // namespace pe::analysis

namespace pe::analysis {

namespace {

// round -> sample of one contender, measured rounds only.
std::map<int, const model::Sample*> ByRound(const model::WorkloadResult& w, const std::string& contender) {
  std::map<int, const model::Sample*> out;
  for (const model::Sample& s : w.samples) {
    if (s.warmup || s.rss_only || s.contender != contender) continue;
    out[s.round] = &s;
  }
  return out;
}

// What a round's log-ratio reads from a sample pair; nullopt leaves the round out.
using RoundRatio = std::function<std::optional<double>(const model::Sample& base, const model::Sample& copy, int)>;

std::vector<double> LogRatios(const model::RunResult& aa, const model::WorkloadResult& w, const RoundRatio& ratio) {
  const auto base = ByRound(w, aa.baseline), copy = ByRound(w, aa.candidate);
  std::vector<double> out;
  for (const auto& [round, b] : base) {
    const auto c = copy.find(round);
    if (c == copy.end()) continue;
    if (const std::optional<double> r = ratio(*b, *c->second, round)) out.push_back(*r);
  }
  return out;
}

std::optional<double> LogOf(double copy, double base) {
  if (!(copy > 0) || !(base > 0)) return std::nullopt;
  return std::log(copy / base);
}

std::optional<double> CounterValue(const model::Sample& s, const std::string& name) {
  for (const model::CounterValue& v : s.counters) {
    if (v.name == name) return v.value;
  }
  return std::nullopt;
}

std::string Bar(double bar) { return fmt::format("{}", bar); }

const model::ContenderSummary* SummaryOf(const model::WorkloadResult& w, const std::string& contender) {
  for (const model::ContenderSummary& s : w.summaries) {
    if (s.contender == contender) return &s;
  }
  return nullptr;
}

// |log(copy / base)| of a count taken once per contender; nullopt when either is missing or 0.
constexpr std::string_view kOwnInstructions = "own instructions";

std::optional<double> CountDeviation(std::optional<std::uint64_t> base, std::optional<std::uint64_t> copy) {
  if (!base || !copy || *base == 0 || *copy == 0) return std::nullopt;
  return std::abs(std::log(static_cast<double>(*copy) / static_cast<double>(*base)));
}

struct Builder {
  const CalibrationSettings& settings;
  Calibration& out;
  const std::string& workload;
  double confidence;

  double Minutes(int rounds) const { return (rounds + settings.warmup_rounds) * settings.seconds_per_round / 60; }

  void Finish(CheckCalibration& c) const {
    if (c.reach.rounds_unchanged) c.minutes = Minutes(*c.reach.rounds_unchanged);
    if (c.reach.rounds_assumed) c.minutes_assumed = Minutes(*c.reach.rounds_assumed);
  }

  void Unreachable(CheckCalibration& c, const std::string& why) const {
    if (!c.reachable) return;  // one line per check: the first reason
    c.reachable = false;
    out.unreachable.push_back(fmt::format("{}: {} {}: {}", workload, c.threshold, Bar(c.bar), why));
  }

  CheckCalibration Start(std::string threshold, std::string measure, double bar) const {
    CheckCalibration c;
    c.threshold = std::move(threshold);
    c.measure = std::move(measure);
    c.bar = bar;
    c.confidence = confidence;
    c.max_rounds = settings.max_rounds;
    return c;
  }

  // A check reading a confidence sequence, its reach already computed.
  void Sequential(CheckCalibration& c, bool no_regression, int fewest) const {
    Finish(c);
    if (!c.reach.detectable) {
      Unreachable(c, fewest > 0
                         ? fmt::format("max_rounds {} is below the {} rounds it needs to resolve at {:g}% "
                                       "confidence",
                                       settings.max_rounds, fewest, 100 * c.confidence)
                         : fmt::format("no number of rounds can show it at {:g}% confidence", 100 * c.confidence));
    } else if (no_regression && !c.reach.rounds_unchanged) {
      Unreachable(c, "an unchanged candidate never passes it on this machine");
    } else if (no_regression && *c.reach.rounds_unchanged > settings.max_rounds) {
      Unreachable(c, fmt::format("needs about {} rounds, more than max_rounds {}", *c.reach.rounds_unchanged,
                                 settings.max_rounds));
    }
    if (settings.assumed_change != 0 && (!c.reach.rounds_assumed || *c.reach.rounds_assumed > settings.max_rounds)) {
      Unreachable(c, c.reach.rounds_assumed
                         ? fmt::format("at a change of {:+g}%: needs about {} rounds, more than max_rounds {}",
                                       100 * settings.assumed_change, *c.reach.rounds_assumed, settings.max_rounds)
                         : fmt::format("at a change of {:+g}%: no number of rounds reaches a verdict",
                                       100 * settings.assumed_change));
    }
  }

  // A point check of a count (deterministic, or declared exact): shown once the candidate's
  // ratio clears the bar by the A/A ratio's own deviation; judged when the run ends.
  void Point(CheckCalibration& c, std::optional<double> deviation) const {
    if (!deviation) {
      c.note = c.note.empty() ? "not measured in the A/A run" : c.note;
      Unreachable(c, c.note);
      return;
    }
    c.reach.detectable = c.bar * std::exp(*deviation);
    c.reach.rounds_unchanged = c.reach.rounds_assumed = std::max(settings.min_rounds, 1);
    Finish(c);
    if (std::exp(*deviation) > c.bar) {
      Unreachable(c, fmt::format("an unchanged candidate fails it on this machine (A/A ratio {})",
                                 units::FormatFixed(std::exp(*deviation), 4)));
    }
  }
};

std::string MeasureWord(const std::string& measure) { return measure == "cpu" ? "CPU" : measure; }

// A row that reads a confidence sequence over the per-round log-ratios of `c.measure`, whose
// noise in the A/A rounds is `sigma`.
void SequentialRow(const Builder& b, const model::ThresholdRow& row, const model::WorkloadResult& w,
                   std::optional<double> sigma, double cost_log, int fewest_median, CheckCalibration& c) {
  // The gate leaves the figure out for its own reason (the startup-adjusted figure of a
  // startup-bound workload): the check is not evaluated, whatever the noise.
  const bool skipped = row.missing_note != nullptr && w.comparison && !(*w.comparison.*row.sequence) &&
                       !(*w.comparison.*row.missing_note).empty();
  const bool rate = row.unit == model::Check::Unit::kRate;
  if (!sigma || skipped) {
    c.note =
        skipped ? *w.comparison.*row.missing_note : fmt::format("no {} time in the A/A rounds", MeasureWord(c.measure));
    // A speed-up check names the gate; the others' note is the reason itself.
    b.Unreachable(
        c, row.higher_is_better && !rate ? fmt::format("the gate does not evaluate it here: {}", c.note) : c.note);
    return;
  }
  // A positive change of cost lowers a speed-up: log speed-up = -log(1 + change).
  const double assumed = row.higher_is_better ? -cost_log : cost_log;
  const bool no_regression = row.burden == model::Check::Burden::kShowMissed;
  if (rate) {
    c.reach = ReachOfWinRate(*sigma, c.bar, b.settings.max_rounds, c.confidence, b.settings.power, assumed);
    b.Sequential(c, no_regression, c.bar < 1 ? stats::MinTrialsToExclude(c.bar, c.confidence).value_or(0) : 0);
  } else {
    c.reach = ReachOfCheck(*sigma, c.bar, b.settings.max_rounds, c.confidence, b.settings.power, assumed,
                           b.settings.final_look && row.bar == &model::Thresholds::max_slowdown,
                           b.settings.futility && row.bar == &model::Thresholds::max_slowdown);
    b.Sequential(c, no_regression, fewest_median);
  }
}

// A point row of a figure that is not a count (a peak, a latency percentile): one figure per
// run, so no per-round noise gives its power. Named in its row, with the A/A run's own ratio;
// a figure the run lacks is a check the gate does not evaluate here.
void UnestimatedRow(const Builder& b, const model::ThresholdRow& row, const model::WorkloadResult& w,
                    CheckCalibration& c) {
  c.estimated = false;
  const std::optional<double> aa_ratio = w.comparison ? *w.comparison.*row.point : std::nullopt;
  if (w.comparison && !aa_ratio) {
    c.note = row.missing_note != nullptr && !(*w.comparison.*row.missing_note).empty() ? *w.comparison.*row.missing_note
                                                                                       : std::string(row.missing);
    b.Unreachable(c, fmt::format("the gate does not evaluate it here: {}", c.note));
    return;
  }
  c.note =
      fmt::format("calibrate estimates no power for a {}: it is one figure per run, not a per-round one", row.label);
  if (aa_ratio) c.note += fmt::format(" (A/A ratio {})", units::FormatFixed(*aa_ratio, 4));
  // Judged when the run ends, as a count is.
  c.reach.rounds_unchanged = c.reach.rounds_assumed = std::max(b.settings.min_rounds, 1);
  b.Finish(c);
}

// Per round both reported it: log(copy / base) of one declared counter.
std::vector<double> CounterLogRatios(const model::RunResult& aa, const model::WorkloadResult& w,
                                     const std::string& name) {
  return LogRatios(aa, w, [&](const model::Sample& b, const model::Sample& c, int) -> std::optional<double> {
    const std::optional<double> bv = CounterValue(b, name), cv = CounterValue(c, name);
    if (!bv || !cv) return std::nullopt;
    return LogOf(*cv, *bv);
  });
}

constexpr std::string_view kWithinProcess = "cpu within a process";

// Measured worker samples of three or more batches each (two warm ones at least).
std::vector<const model::Sample*> BatchedSamples(const model::WorkloadResult& w) {
  std::vector<const model::Sample*> out;
  for (const model::Sample& s : w.samples) {
    if (!s.warmup && s.worker && s.worker->batches > 2) out.push_back(&s);
  }
  return out;
}

int WorkerRounds(const model::WorkloadResult& w) {
  std::set<int> rounds;
  for (const model::Sample* s : BatchedSamples(w)) rounds.insert(s->round);
  return static_cast<int>(rounds.size());
}

// One process's batch-to-batch noise, as the MAD of a log-ratio of two of its batches, so that
// it reads beside "cpu" (two processes' figures): each sample's batch_range (log slowest /
// fastest of k batches) is k normal draws' range, whose mean is d2(k) sigma (Tippett 1925; the
// d2 of control charts, ASTM E2587), and the log-ratio of two draws has MAD 0.6745 sqrt(2) sigma.
std::optional<double> WithinProcessMad(const model::WorkloadResult& w) {
  static constexpr double kD2[] = {0, 0, 1.128, 1.693, 2.059, 2.326, 2.534, 2.704, 2.847, 2.970, 3.078};
  double sigma_sum = 0;
  int n = 0;
  for (const model::Sample* s : BatchedSamples(w)) {
    // The range is of the warm batches, all but the first (engine/run/round_runner.cc).
    const int k = std::min<int>(s->worker->batches - 1, static_cast<int>(std::size(kD2)) - 1);
    sigma_sum += s->worker->batch_range / kD2[k];
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sigma_sum / n * 0.6745 * std::sqrt(2.0);
}

// What the checks of one workload are calibrated from: the noise of each measure of the A/A run.
struct WorkloadNoise {
  std::map<std::string, double> sigma;  // measure -> sigma of its per-round log-ratios

  std::optional<double> Sigma(const std::string& measure) const {
    const auto it = sigma.find(measure);
    return it == sigma.end() ? std::nullopt : std::optional<double>(it->second);
  }
};

// The noise of each per-round measure (wall, CPU, time after start-up, each declared counter)
// and the A/A deviation of each count measured once, into wc.noise.
WorkloadNoise MeasureNoiseOf(const model::RunResult& aa, const model::WorkloadResult& w,
                             const model::WorkloadResult* startup, WorkloadCalibration& wc) {
  WorkloadNoise noise;
  auto add = [&](const std::string& measure, const std::vector<double>& ratios) {
    if (ratios.empty()) return;
    wc.noise.push_back({measure, stats::MedianAbsoluteDeviation(ratios), static_cast<int>(ratios.size())});
    noise.sigma[measure] = kMadToSigma * wc.noise.back().mad;
  };
  add("wall",
      LogRatios(aa, w, [](const model::Sample& b, const model::Sample& c, int) { return LogOf(c.wall_s, b.wall_s); }));
  add("cpu", LogRatios(aa, w, [](const model::Sample& b, const model::Sample& c, int) {
        return LogOf(c.user_s + c.sys_s, b.user_s + b.sys_s);
      }));
  const bool process = w.kind != model::WorkloadResult::Kind::kServe;
  if (startup != nullptr && !w.startup && process) {
    const auto base_start = ByRound(*startup, aa.baseline), copy_start = ByRound(*startup, aa.candidate);
    add("logic",
        LogRatios(aa, w, [&](const model::Sample& b, const model::Sample& c, int round) -> std::optional<double> {
          const auto bs = base_start.find(round), cs = copy_start.find(round);
          if (bs == base_start.end() || cs == copy_start.end()) return std::nullopt;
          const double base = b.wall_s - bs->second->wall_s, copy = c.wall_s - cs->second->wall_s;
          return CappedLogRatio(copy, base);  // as the gate's logic sequence
        }));
  }
  if (const std::optional<double> within = WithinProcessMad(w)) {
    wc.noise.push_back({std::string(kWithinProcess), *within, WorkerRounds(w)});
  }
  for (const model::Counter& counter : w.counters) {
    add("counter " + counter.name, CounterLogRatios(aa, w, counter.name));
  }
  const model::ContenderSummary* base_sum = SummaryOf(w, aa.baseline);
  const model::ContenderSummary* copy_sum = SummaryOf(w, aa.candidate);
  const std::optional<double> instructions =
      base_sum && copy_sum ? CountDeviation(base_sum->instructions, copy_sum->instructions) : std::nullopt;
  const std::optional<double> allocations =
      base_sum && copy_sum ? CountDeviation(base_sum->allocation_calls, copy_sum->allocation_calls) : std::nullopt;
  const std::optional<double> own =
      base_sum && copy_sum ? CountDeviation(base_sum->own_instructions, copy_sum->own_instructions) : std::nullopt;
  if (instructions) wc.noise.push_back({"instructions", *instructions, 1});
  if (own) wc.noise.push_back({std::string(kOwnInstructions), *own, 1});
  if (allocations) wc.noise.push_back({"allocations", *allocations, 1});
  return noise;
}

// One threshold of the table: a sequential row by the noise of the per-round measure its
// sequence reads, a count by the A/A ratio of its counts, any other point row named as one
// calibrate cannot estimate.
CheckCalibration ThresholdCheck(const Builder& b, const model::ThresholdRow& row, double bar,
                                const model::RunResult& aa, const model::WorkloadResult& w,
                                const WorkloadCalibration& wc, const WorkloadNoise& noise, double cost_log,
                                int fewest_median) {
  CheckCalibration c = b.Start(std::string(row.key), std::string(row.per_round), bar);
  c.higher_is_better = row.higher_is_better;
  if (row.sequence != nullptr) {
    SequentialRow(b, row, w, noise.Sigma(c.measure), cost_log, fewest_median, c);
    auto mad_of = [&](std::string_view measure) -> std::optional<double> {
      for (const MeasureNoise& n : wc.noise) {
        if (n.measure == measure) return n.mad;
      }
      return std::nullopt;
    };
    const std::optional<double> cpu = mad_of("cpu"), within = mad_of(kWithinProcess);
    if (row.bar == &model::Thresholds::max_slowdown && cpu && within) c.noise_source = NoiseSource(*cpu, *within);
  } else if (row.needs_counts) {
    // Own-code instructions come from the instruction count's files, so their row counts
    // "instructions"; their A/A deviation is their own.
    c.measure = row.point == &model::Comparison::own_instructions_ratio ? std::string(kOwnInstructions)
                                                                        : std::string(row.count);
    const auto it =
        std::find_if(wc.noise.begin(), wc.noise.end(), [&](const MeasureNoise& n) { return n.measure == c.measure; });
    const std::optional<double> deviation = it == wc.noise.end() ? std::nullopt : std::optional<double>(it->mad);
    const model::ContenderSummary* base_sum = SummaryOf(w, aa.baseline);
    if (!deviation && base_sum && !base_sum->measure_note.empty()) c.note = base_sum->measure_note;
    b.Point(c, deviation);
  } else {
    UnestimatedRow(b, row, w, c);
  }
  return c;
}

// A declared counter's bar: exact, a ratio of medians judged when the run ends; noisy, a
// sequence over the rounds, by its per-round noise.
CheckCalibration CounterCheck(const Builder& b, const model::Counter& counter, const model::RunResult& aa,
                              const model::WorkloadResult& w, const WorkloadNoise& noise, double cost_log,
                              int fewest_median) {
  CheckCalibration c = b.Start("counters." + counter.name, "counter " + counter.name, *counter.max_ratio);
  if (counter.exact) {
    // An exact count that moved between rounds is named, and its largest move is the deviation
    // a change must clear.
    std::optional<double> deviation;
    for (double r : CounterLogRatios(aa, w, counter.name)) deviation = std::max(deviation.value_or(0), std::abs(r));
    if (deviation && *deviation > 0) c.note = "declared exact but varied between the A/A rounds";
    if (!deviation) c.note = "no round reported a positive value on both sides";
    b.Point(c, deviation);
  } else if (const std::optional<double> s = noise.Sigma(c.measure)) {
    c.reach = ReachOfCheck(*s, c.bar, b.settings.max_rounds, c.confidence, b.settings.power, cost_log);
    b.Sequential(c, true, fewest_median);
  } else {
    c.note = "no round reported a positive value on both sides";
    b.Unreachable(c, c.note);
  }
  return c;
}

}  // namespace

std::string NoiseSource(double cpu, double within) {
  const std::string figures = fmt::format("{} a round between its processes, {} between one process's batches",
                                          units::FormatPercentFixed(cpu, 1), units::FormatPercentFixed(within, 1));
  if (cpu > 2 * within) {
    return fmt::format(
        "between processes ({}): each round's fresh worker lays out its heap, code and allocator anew; more rounds "
        "lower it, more batches do not",
        figures);
  }
  return fmt::format(
      "within a process ({}): interference, a collector or the benchmark's own variation; longer or more batches "
      "lower it",
      figures);
}

Calibration CalibrationOf(const model::RunResult& aa, const CalibrationSettings& settings) {
  Calibration out;
  const model::WorkloadResult* startup = nullptr;
  for (const model::WorkloadResult& w : aa.workloads) {
    if (w.startup) startup = &w;
  }
  // A positive change of cost lowers a speed-up: log speed-up = -log(1 + change).
  const double cost_log = std::log1p(settings.assumed_change);
  for (const model::WorkloadResult& w : aa.workloads) {
    WorkloadCalibration wc;
    wc.name = w.name;
    const WorkloadNoise noise = MeasureNoiseOf(aa, w, startup, wc);
    if (w.gate && !w.startup) {
      const model::Thresholds& t = w.thresholds;
      const Builder b{settings, out, wc.name, t.confidence};
      const int fewest_median = stats::MinTrialsToExclude(0.5, t.confidence).value_or(0);
      // Every threshold of the table, in its order (the gate's), then each declared counter's.
      for (const model::ThresholdRow& row : model::kThresholdRows) {
        if (const std::optional<double>& bar = t.*row.bar) {
          wc.checks.push_back(ThresholdCheck(b, row, *bar, aa, w, wc, noise, cost_log, fewest_median));
        }
      }
      for (const model::Counter& counter : w.counters) {
        if (counter.max_ratio) wc.checks.push_back(CounterCheck(b, counter, aa, w, noise, cost_log, fewest_median));
      }
    }
    out.workloads.push_back(std::move(wc));
  }
  return out;
}

}  // namespace pe::analysis
