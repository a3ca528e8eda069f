#include "engine/analysis/analyze.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "stats/descriptive.h"

namespace pe::analysis {

namespace {

struct Series {
  std::vector<double> wall, user, sys, rss;
  std::map<int, double> wall_by_round;
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
    series.wall_by_round[s.round] = s.wall_s;
  }
  return out;
}

const ContenderSummary* SummaryOf(const WorkloadResult& w, const std::string& contender) {
  for (const auto& s : w.summaries) {
    if (s.contender == contender) return &s;
  }
  return nullptr;
}

std::string Seconds(double s) { return fmt::format("{:.3g} s", s); }

// Robust start-up noise of one contender: 1.4826 x MAD of its start-up wall times.
double StartupNoise(const WorkloadResult& startup, const std::string& contender) {
  std::vector<double> wall;
  for (const Sample& s : startup.samples) {
    if (!s.warmup && !s.rss_only && s.contender == contender) wall.push_back(s.wall_s);
  }
  return wall.empty() ? 0 : 1.4826 * stats::MedianAbsoluteDeviation(wall);
}

void CompareLogic(const RunResult& run, const WorkloadResult* startup, WorkloadResult& w, Comparison& c) {
  if (w.startup) {
    c.logic_note = "startup workload: start-up is what it measures";
    return;
  }
  const ContenderSummary* b = SummaryOf(w, run.baseline);
  const ContenderSummary* k = SummaryOf(w, run.candidate);
  const ContenderSummary* bs = startup ? SummaryOf(*startup, run.baseline) : nullptr;
  const ContenderSummary* ks = startup ? SummaryOf(*startup, run.candidate) : nullptr;
  if (!b || !k || !bs || !ks) {
    c.logic_note = "no startup: the startup workload was not measured";
    return;
  }
  const double b_logic = b->median_wall_s - bs->median_wall_s;
  const double k_logic = k->median_wall_s - ks->median_wall_s;
  c.baseline_logic_s = b_logic;
  c.candidate_logic_s = k_logic;
  const double b_floor = LogicFloor(b->median_wall_s, StartupNoise(*startup, run.baseline));
  const double k_floor = LogicFloor(k->median_wall_s, StartupNoise(*startup, run.candidate));
  for (auto [name, logic, floor, startup_median] :
       {std::tuple{run.baseline, b_logic, b_floor, bs->median_wall_s},
        std::tuple{run.candidate, k_logic, k_floor, ks->median_wall_s}}) {
    if (logic <= floor) {
      c.logic_note = fmt::format(
          "startup-bound: {}'s time after start-up ({} = {} - {}) is below the {} that separates work from start-up noise",
          name, Seconds(logic), Seconds(logic + startup_median), Seconds(startup_median), Seconds(floor));
      return;
    }
  }
  c.logic_speedup = b_logic / k_logic;
}

}  // namespace

double LogicFloor(double workload_median_s, double startup_noise_s) {
  return std::max(3 * startup_noise_s, 0.05 * workload_median_s);
}

void Analyze(RunResult& result) {
  const WorkloadResult* startup = nullptr;
  for (auto& w : result.workloads) {
    w.summaries.clear();
    w.comparison.reset();
    auto series = Collect(w);
    for (const ContenderInfo& info : result.contenders) {
      auto it = series.find(info.name);
      if (it == series.end() || it->second.wall.empty()) continue;
      const Series& s = it->second;
      ContenderSummary sum;
      sum.contender = info.name;
      sum.n = static_cast<int>(s.wall.size());
      sum.median_wall_s = stats::Median(s.wall);
      sum.median_user_s = stats::Median(s.user);
      sum.median_sys_s = stats::Median(s.sys);
      sum.min_wall_s = *std::min_element(s.wall.begin(), s.wall.end());
      sum.max_wall_s = *std::max_element(s.wall.begin(), s.wall.end());
      sum.median_max_rss_kib = static_cast<std::int64_t>(stats::Median(s.rss));
      w.summaries.push_back(sum);
    }
    if (w.startup) startup = &w;
  }
  for (auto& w : result.workloads) {
    const ContenderSummary* b = SummaryOf(w, result.baseline);
    const ContenderSummary* k = SummaryOf(w, result.candidate);
    if (!b || !k || !w.failures.empty()) continue;
    auto series = Collect(w);
    Comparison c;
    c.speedup = b->median_wall_s / k->median_wall_s;
    for (const auto& [round, base_wall] : series[result.baseline].wall_by_round) {
      auto other = series[result.candidate].wall_by_round.find(round);
      if (other == series[result.candidate].wall_by_round.end()) continue;
      ++c.rounds;
      if (other->second < base_wall) ++c.wins;
    }
    c.win_rate = c.rounds > 0 ? static_cast<double>(c.wins) / c.rounds : 0;
    if (b->median_max_rss_kib > 0) {
      c.rss_ratio = static_cast<double>(k->median_max_rss_kib) / static_cast<double>(b->median_max_rss_kib);
    }
    CompareLogic(result, startup, w, c);
    w.comparison = c;
  }
}

}  // namespace pe::analysis
