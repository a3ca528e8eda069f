#include "engine/analysis/analyze.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/analysis/counters.h"
#include "engine/analysis/sequences.h"
#include "engine/model/count_ratio.h"
#include "engine/model/final_look.h"
#include "engine/model/pairs.h"
#include "engine/model/samples.h"
#include "engine/units/units.h"
#include "stats/analysis.h"
#include "stats/descriptive.h"
#include "stats/error.h"
#include "stats/paired.h"

namespace pe::analysis {

using model::Comparison;
using model::ContenderInfo;
using model::ContenderSummary;
using model::Interval;
using model::Measured;
using model::RunResult;
using model::Sample;
using model::ServeFigures;
using model::SummaryOf;
using model::Thresholds;
using model::WorkloadResult;

namespace {

struct Series {
  std::vector<double> wall, user, sys, cpu, rss;
  std::vector<ServeFigures> serve;
  std::map<int, double> wall_by_round;
  std::map<int, double> cpu_by_round;
};

std::map<std::string, Series> Collect(const WorkloadResult& w) {
  std::map<std::string, Series> out;
  for (const Sample& s : w.samples) {
    if (s.warmup) continue;
    Series& series = out[s.contender];
    series.rss.push_back(static_cast<double>(s.max_rss_kib));
    if (s.rss_only) continue;
    series.wall.push_back(s.wall_s);
    series.user.push_back(s.user_s);
    series.sys.push_back(s.sys_s);
    series.cpu.push_back(s.user_s + s.sys_s);
    if (s.serve) series.serve.push_back(*s.serve);
    series.wall_by_round[s.round] = s.wall_s;
    series.cpu_by_round[s.round] = s.user_s + s.sys_s;
  }
  return out;
}

// One figure of the rounds both contenders completed, in round order.
PairedSeries Paired(const std::map<int, double>& baseline, const std::map<int, double>& candidate) {
  PairedSeries p;
  for (const auto& [round, value] : baseline) {
    auto other = candidate.find(round);
    if (other == candidate.end()) continue;
    p.baseline.push_back(value);
    p.candidate.push_back(other->second);
  }
  return p;
}

// Each figure's median over the rounds, figure by figure.
ServeFigures MedianServe(const std::vector<ServeFigures>& rounds) {
  auto median = [&](auto member) {
    std::vector<double> values;
    for (const ServeFigures& f : rounds) values.push_back(static_cast<double>(f.*member));
    return stats::Median(values);
  };
  ServeFigures m;
  m.requests = static_cast<int>(median(&ServeFigures::requests));
  m.p50_s = median(&ServeFigures::p50_s);
  m.p90_s = median(&ServeFigures::p90_s);
  m.p99_s = median(&ServeFigures::p99_s);
  m.max_s = median(&ServeFigures::max_s);
  m.throughput_rps = median(&ServeFigures::throughput_rps);
  m.time_to_ready_s = median(&ServeFigures::time_to_ready_s);
  return m;
}

// Each contender's work after start-up, round by round: its workload time less its start-up
// time in the same round, over the rounds where all four were measured.
PairedSeries LogicByRound(const Series& base, const Series& cand, const Series& base_startup,
                          const Series& cand_startup) {
  PairedSeries p;
  for (const auto& [round, b] : base.wall_by_round) {
    auto k = cand.wall_by_round.find(round);
    auto bs = base_startup.wall_by_round.find(round);
    auto ks = cand_startup.wall_by_round.find(round);
    if (k == cand.wall_by_round.end() || bs == base_startup.wall_by_round.end() ||
        ks == cand_startup.wall_by_round.end()) {
      continue;
    }
    p.baseline.push_back(b - bs->second);
    p.candidate.push_back(k->second - ks->second);
  }
  return p;
}

std::vector<double> StartupWalls(const WorkloadResult* startup, const std::string& contender) {
  std::vector<double> wall;
  if (startup == nullptr) return wall;
  for (const Sample& s : startup->samples) {
    if (Measured(s) && s.contender == contender) wall.push_back(s.wall_s);
  }
  return wall;
}

// Robust start-up noise of one contender: 1.4826 x MAD of its start-up wall times.
double StartupNoise(const WorkloadResult& startup, const std::string& contender) {
  const std::vector<double> wall = StartupWalls(&startup, contender);
  return wall.empty() ? 0 : 1.4826 * stats::MedianAbsoluteDeviation(wall);
}

// A server's start-up is measured directly: the logic column carries time-to-ready instead.
void CompareTimeToReady(const ContenderSummary& b, const ContenderSummary& k, Comparison& c) {
  if (!b.serve || !k.serve || k.serve->time_to_ready_s <= 0) return;
  c.baseline_logic_s = b.serve->time_to_ready_s;
  c.candidate_logic_s = k.serve->time_to_ready_s;
  c.logic_speedup = b.serve->time_to_ready_s / k.serve->time_to_ready_s;
  c.logic_note = "time-to-ready: this column compares how fast each server became healthy";
  if (b.serve->p99_s > 0) c.p99_ratio = k.serve->p99_s / b.serve->p99_s;
}

void CompareLogic(const WorkloadResult* startup, WorkloadResult& w, Comparison& c) {
  if (w.kind == WorkloadResult::Kind::kServe) {
    const ContenderSummary* b = SummaryOf(w, c.baseline);
    const ContenderSummary* k = SummaryOf(w, c.candidate);
    if (b && k) CompareTimeToReady(*b, *k, c);
    return;
  }
  if (w.startup) {
    c.logic_note = "startup workload: start-up is what it measures";
    return;
  }
  if (w.kind == WorkloadResult::Kind::kWorker) {
    c.logic_note = "worker benchmark: its figures are per iteration inside a warm worker, with no start-up in them";
    return;
  }
  const ContenderSummary* b = SummaryOf(w, c.baseline);
  const ContenderSummary* k = SummaryOf(w, c.candidate);
  const ContenderSummary* bs = startup ? SummaryOf(*startup, c.baseline) : nullptr;
  const ContenderSummary* ks = startup ? SummaryOf(*startup, c.candidate) : nullptr;
  if (!b || !k || !bs || !ks) {
    c.logic_note = "no startup: the startup workload was not measured";
    return;
  }
  const double b_logic = b->median_wall_s - bs->median_wall_s;
  const double k_logic = k->median_wall_s - ks->median_wall_s;
  c.baseline_logic_s = b_logic;
  c.candidate_logic_s = k_logic;
  const double b_floor = LogicFloor(b->median_wall_s, StartupNoise(*startup, c.baseline));
  const double k_floor = LogicFloor(k->median_wall_s, StartupNoise(*startup, c.candidate));
  for (auto [name, logic, floor, startup_median] : {std::tuple{c.baseline, b_logic, b_floor, bs->median_wall_s},
                                                    std::tuple{c.candidate, k_logic, k_floor, ks->median_wall_s}}) {
    if (logic <= floor) {
      c.logic_note = fmt::format(
          "startup-bound: {}'s time after start-up ({} = {} - {}) is below the {} that separates work from start-up "
          "noise",
          name, units::FormatSeconds(logic), units::FormatSeconds(logic + startup_median),
          units::FormatSeconds(startup_median), units::FormatSeconds(floor));
      return;
    }
  }
  c.logic_speedup = b_logic / k_logic;
}

// BCa's corrections are themselves estimated: with few rounds, or a bias correction so large
// that most replicates fall on one side of the estimate, they are noise and the interval
// they shift is too narrow (13% false exclusions at 5 rounds where 5% were promised).
constexpr int kBcaMinRounds = 10;
constexpr double kBcaMaxBias = 0.5;

Interval FromBootstrap(const stats::BootstrapResult& b, double estimate, int rounds) {
  // BCa corrects the percentile interval for bias and skew (Efron & Tibshirani 1993, ch. 14);
  // it is withheld, and the percentile interval given instead, where it cannot be trusted.
  std::string why;
  if (!b.bca)
    why = "BCa undefined";
  else if (rounds < kBcaMinRounds)
    why = fmt::format("BCa withheld below {} rounds", kBcaMinRounds);
  else if (std::abs(b.bias_correction) > kBcaMaxBias)
    why = "BCa withheld: bias correction z0 = " + units::FormatFixed(b.bias_correction, 2);
  const bool bca = why.empty();
  const stats::Bounds bounds = bca ? *b.bca : *b.percentile;
  return {estimate, bounds.low, bounds.high, b.level,
          fmt::format("bootstrap {}, {} resamples, seed {}{}", bca ? "BCa" : "percentile", b.resamples, b.seed,
                      why.empty() || !b.bca ? "" : " (" + why + ")")};
}

// Intervals, tests and power from stats/, for workloads whose rounds allow them.
void AddStatistics(const RunResult& run, const WorkloadResult* startup, const std::vector<double>& baseline,
                   const std::vector<double>& candidate, const Thresholds& thresholds, Comparison& c,
                   const std::function<bool()>& cancelled) {
  const std::vector<double> baseline_startup = StartupWalls(startup, c.baseline);
  const std::vector<double> candidate_startup = StartupWalls(startup, c.candidate);
  stats::PairedInput in;
  in.baseline = baseline;
  in.candidate = candidate;
  if (c.logic_speedup) {
    in.baseline_startup = baseline_startup;
    in.candidate_startup = candidate_startup;
  }
  in.confidence = thresholds.confidence;
  in.resamples = run.settings.bootstrap_resamples;
  in.seed = run.settings.seed;
  in.cancelled = cancelled;
  stats::PairedAnalysis a;
  try {
    a = stats::AnalyzePaired(in);
  } catch (const stats::StatsError& e) {
    c.notes.push_back(fmt::format("no intervals: {}", e.what()));
    return;
  } catch (const stats::Cancelled&) {
    c.notes.push_back("no intervals: the run was interrupted during the analysis");
    return;
  }
  c.sign_test_p = a.sign_test_p;
  c.wilcoxon_p = a.wilcoxon_p;
  const int rounds = static_cast<int>(baseline.size());
  if (a.speedup_ci.percentile) c.speedup_ci = FromBootstrap(a.speedup_ci, a.speedup, rounds);
  if (a.logic_speedup_ci && a.logic_speedup_ci->percentile) {
    c.logic_speedup_ci = FromBootstrap(*a.logic_speedup_ci, a.logic_speedup_ci->estimate, rounds);
  }
  c.paired_ratio_ci = Interval{a.paired_ratio, a.paired_ratio_low, a.paired_ratio_high, a.log_ratio_hl.level,
                               "Hodges-Lehmann on paired log-ratios (Wilcoxon signed-rank)"};
  if (a.power) c.rounds_to_resolve = a.power->rounds;
  for (const auto& note : a.notes) c.notes.push_back(note);
}

// CPU time (user + system) is the figure no-regression gates read: less sensitive than wall
// time to what else the machine is doing. The interval is Hodges-Lehmann on the per-round
// log-ratios, distribution-free (Hollander & Wolfe 1999, ch. 3), as Duel gates on.
void CompareCpuAndCounts(const Series& base, const Series& cand, const ContenderSummary& b, const ContenderSummary& k,
                         const Thresholds& thresholds, Comparison& c) {
  if (b.median_cpu_s > 0) c.cpu_ratio = k.median_cpu_s / b.median_cpu_s;
  std::vector<double> log_ratios;
  for (const auto& [round, base_cpu] : base.cpu_by_round) {
    auto other = cand.cpu_by_round.find(round);
    if (other == cand.cpu_by_round.end()) continue;
    if (base_cpu <= 0 || other->second <= 0) {
      log_ratios.clear();
      c.notes.push_back("no CPU-time interval: a run reported no CPU time");
      break;
    }
    log_ratios.push_back(std::log(other->second / base_cpu));
  }
  if (log_ratios.size() >= 2) {
    try {
      const stats::HodgesLehmannResult hl = stats::HodgesLehmann(log_ratios, thresholds.confidence);
      c.cpu_ratio_ci = Interval{std::exp(hl.estimate), std::exp(hl.low), std::exp(hl.high), hl.level,
                                "Hodges-Lehmann on paired CPU-time log-ratios"};
    } catch (const stats::StatsError& e) {
      c.notes.push_back(fmt::format("no CPU-time interval: {}", e.what()));
    }
  }
  // From none to some is a regression of unbounded size, not a figure to leave out (CountRatio).
  if (b.instructions && k.instructions) {
    c.instructions_ratio =
        model::CountRatio(static_cast<double>(*b.instructions), static_cast<double>(*k.instructions));
  }
  if (b.own_instructions && k.own_instructions) {
    c.own_instructions_ratio =
        model::CountRatio(static_cast<double>(*b.own_instructions), static_cast<double>(*k.own_instructions));
  }
  if (b.allocation_calls && k.allocation_calls) {
    c.allocations_ratio =
        model::CountRatio(static_cast<double>(*b.allocation_calls), static_cast<double>(*k.allocation_calls));
  }
}

}  // namespace

double LogicFloor(double workload_median_s, double startup_noise_s) {
  return std::max(3 * startup_noise_s, 0.05 * workload_median_s);
}

namespace {

// Each workload's per-contender summaries from its samples, keeping the counts measured once per
// contender (instructions, allocations), which outlive re-analysis; the startup workload, if any.
const WorkloadResult* Summarise(RunResult& result) {
  const WorkloadResult* startup = nullptr;
  for (auto& w : result.workloads) {
    std::map<std::string, ContenderSummary> counts;
    for (const ContenderSummary& s : w.summaries) counts[s.contender] = s;
    w.summaries.clear();
    w.comparison.reset();
    w.other_comparisons.clear();
    auto series = Collect(w);
    for (const ContenderInfo& info : result.contenders) {
      auto it = series.find(info.name);
      if (it == series.end() || it->second.wall.empty()) continue;
      const Series& s = it->second;
      ContenderSummary sum;
      if (auto c = counts.find(info.name); c != counts.end()) {
        sum.instructions = c->second.instructions;
        sum.instructions_source = c->second.instructions_source;
        sum.own_instructions = c->second.own_instructions;
        sum.allocation_calls = c->second.allocation_calls;
        sum.allocated_bytes = c->second.allocated_bytes;
        sum.measure_note = c->second.measure_note;
      }
      sum.contender = info.name;
      sum.n = static_cast<int>(s.wall.size());
      sum.median_wall_s = stats::Median(s.wall);
      sum.median_user_s = stats::Median(s.user);
      sum.median_sys_s = stats::Median(s.sys);
      sum.median_cpu_s = stats::Median(s.cpu);
      if (!s.serve.empty()) sum.serve = MedianServe(s.serve);
      sum.min_wall_s = *std::min_element(s.wall.begin(), s.wall.end());
      sum.max_wall_s = *std::max_element(s.wall.begin(), s.wall.end());
      sum.median_max_rss_kib = static_cast<std::int64_t>(stats::Median(s.rss));
      w.summaries.push_back(sum);
    }
    if (w.startup) startup = &w;
  }
  return startup;
}

// One pair on one workload (model/pairs.h); nullopt when either side has no measured rounds.
std::optional<Comparison> ComparePair(const RunResult& result, const WorkloadResult* startup, WorkloadResult& w,
                                      std::map<std::string, Series>& series, const std::string& baseline,
                                      const std::string& candidate, const AnalyzeOptions& options) {
  const ContenderSummary* b = SummaryOf(w, baseline);
  const ContenderSummary* k = SummaryOf(w, candidate);
  if (!b || !k) return std::nullopt;
  Comparison c;
  c.baseline = baseline;
  c.candidate = candidate;
  c.speedup = b->median_wall_s / k->median_wall_s;
  const PairedSeries wall = Paired(series[baseline].wall_by_round, series[candidate].wall_by_round);
  const PairedSeries cpu = Paired(series[baseline].cpu_by_round, series[candidate].cpu_by_round);
  const std::vector<double>& paired_baseline = wall.baseline;
  const std::vector<double>& paired_candidate = wall.candidate;
  c.rounds = static_cast<int>(paired_baseline.size());
  for (size_t i = 0; i < paired_baseline.size(); ++i) {
    if (paired_candidate[i] < paired_baseline[i]) ++c.wins;
  }
  c.win_rate = c.rounds > 0 ? static_cast<double>(c.wins) / c.rounds : 0;
  if (b->median_max_rss_kib > 0) {
    c.rss_ratio = static_cast<double>(k->median_max_rss_kib) / static_cast<double>(b->median_max_rss_kib);
  }
  CompareLogic(startup, w, c);
  CompareCpuAndCounts(series[baseline], series[candidate], *b, *k, w.thresholds, c);
  if (options.intervals) {
    AddStatistics(result, w.startup ? nullptr : startup, paired_baseline, paired_candidate, w.thresholds, c,
                  options.cancelled);
  }
  PairedSeries logic;
  if (c.logic_speedup && !w.startup && w.kind != WorkloadResult::Kind::kServe && startup != nullptr) {
    auto startup_series = Collect(*startup);
    logic = LogicByRound(series[baseline], series[candidate], startup_series[baseline], startup_series[candidate]);
  }
  AddSequences(wall, cpu, logic, w.thresholds, c, model::FinalLookRound(result.settings),
               result.settings.futility.has_value());
  CompareCounters(result, w, c);
  return c;
}

// Every compared pair on `w`: the run's own pair is its comparison, the others (more than two
// contenders) its other comparisons. A failed workload is not compared.
void CompareWorkload(const RunResult& result, const WorkloadResult* startup, WorkloadResult& w,
                     const std::vector<std::pair<std::string, std::string>>& pairs, const AnalyzeOptions& options) {
  if (!w.failures.empty()) return;
  auto series = Collect(w);
  for (const auto& [baseline, candidate] : pairs) {
    std::optional<Comparison> c = ComparePair(result, startup, w, series, baseline, candidate, options);
    if (!c) continue;
    if (baseline == result.baseline && candidate == result.candidate)
      w.comparison = std::move(*c);
    else
      w.other_comparisons.push_back(std::move(*c));
  }
}

// Runs `each(i)` for every i below `count` on `threads` threads (this one included); the first
// exception any of them threw is thrown again once all are done.
void ForEachOnThreads(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& each) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i; (i = next++) < count;) {
      try {
        each(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

void Analyze(RunResult& result, const AnalyzeOptions& options) {
  const WorkloadResult* startup = Summarise(result);
  const std::vector<std::pair<std::string, std::string>> pairs = model::ComparedPairs(result);
  // A comparison reads its own workload, the startup workload's samples and summaries and the
  // run's settings, and writes only its own workload: with intervals (bootstrap resamples, most
  // of what a run does after its last round) they are computed side by side, a thread a core.
  const std::size_t count = result.workloads.size();
  const std::size_t threads =
      options.intervals ? std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), count) : 1;
  ForEachOnThreads(count, threads,
                   [&](std::size_t i) { CompareWorkload(result, startup, result.workloads[i], pairs, options); });
}

}  // namespace pe::analysis
