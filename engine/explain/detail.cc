#include "engine/explain/detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/analysis/analyze.h"
#include "engine/model/samples.h"
#include "engine/model/threshold_table.h"
#include "stats/descriptive.h"
#include "stats/error.h"

namespace pe::explain {

using model::Comparison;
using model::ContenderInfo;
using model::ContenderSummary;
using model::Measured;
using model::Paired;
using model::RunResult;
using model::Sample;
using model::WorkloadResult;

namespace {

ContenderStats Describe(const WorkloadResult& w, const std::string& contender, const std::vector<double>& wall) {
  ContenderStats s;
  s.contender = contender;
  s.n = static_cast<int>(wall.size());
  s.median_s = stats::Median(wall);
  s.mean_s = stats::Mean(wall);
  if (wall.size() >= 2) s.sd_s = stats::StandardDeviation(wall);
  s.mad_s = stats::MedianAbsoluteDeviation(wall);
  s.iqr_s = stats::InterquartileRange(wall);
  s.min_s = *std::min_element(wall.begin(), wall.end());
  s.max_s = *std::max_element(wall.begin(), wall.end());
  std::vector<double> user, sys;
  for (const Sample& x : w.samples) {
    if (!Measured(x) || x.contender != contender) continue;
    user.push_back(x.user_s);
    sys.push_back(x.sys_s);
  }
  s.median_user_s = stats::Median(user);
  s.median_sys_s = stats::Median(sys);
  s.median_rss_kib = static_cast<std::int64_t>(stats::Median(MeasuredRss(w, contender)));
  return s;
}

const ContenderStats* Find(const std::vector<ContenderStats>& all, const std::string& contender) {
  for (const auto& s : all) {
    if (s.contender == contender) return &s;
  }
  return nullptr;
}

// engine/analysis's CompareLogic, step by step, so each figure can be shown.
StartupSubtraction Subtract(const RunResult& result, const WorkloadResult& w, const WorkloadDetail& detail) {
  StartupSubtraction out;
  if (w.startup) {
    out.note = "startup workload: start-up is what it measures";
    return out;
  }
  const WorkloadResult* startup = StartupWorkload(result);
  const ContenderStats* b = Find(detail.contenders, result.baseline);
  const ContenderStats* k = Find(detail.contenders, result.candidate);
  std::vector<double> b_startup, k_startup;
  if (startup != nullptr) {
    b_startup = MeasuredWalls(*startup, result.baseline);
    k_startup = MeasuredWalls(*startup, result.candidate);
  }
  if (b == nullptr || k == nullptr || b_startup.empty() || k_startup.empty()) {
    out.note = "no startup: the startup workload was not measured";
    return out;
  }
  for (auto [stats_of, runs] : {std::pair{b, &b_startup}, std::pair{k, &k_startup}}) {
    StartupSide side;
    side.contender = stats_of->contender;
    side.median_s = stats_of->median_s;
    side.startup_median_s = stats::Median(*runs);
    side.startup_noise_s = 1.4826 * stats::MedianAbsoluteDeviation(*runs);
    side.floor_s = analysis::LogicFloor(side.median_s, side.startup_noise_s);
    side.logic_s = side.median_s - side.startup_median_s;
    out.sides.push_back(side);
  }
  for (const StartupSide& side : out.sides) {
    if (!side.above_floor()) {
      out.note = fmt::format("startup-bound: {}'s time after start-up is not above the floor", side.contender);
      return out;
    }
  }
  out.logic_speedup = out.sides[0].logic_s / out.sides[1].logic_s;
  return out;
}

// AnalyzePaired with the inputs engine/analysis gives it, from the file's settings.
void Analyse(const RunResult& result, const WorkloadResult& w, WorkloadDetail& detail) {
  if (!w.failures.empty()) {
    detail.no_analysis = "the workload failed: nothing is compared";
    return;
  }
  if (!detail.speedup) {
    detail.no_analysis = "one of the contenders has no measured rounds";
    return;
  }
  const WorkloadResult* startup = w.startup ? nullptr : StartupWorkload(result);
  std::vector<double> b_startup, k_startup;
  if (startup != nullptr && detail.startup.logic_speedup) {
    b_startup = MeasuredWalls(*startup, result.baseline);
    k_startup = MeasuredWalls(*startup, result.candidate);
  }
  stats::PairedInput in;
  in.baseline = detail.paired.baseline;
  in.candidate = detail.paired.candidate;
  in.baseline_startup = b_startup;
  in.candidate_startup = k_startup;
  in.confidence = w.thresholds.confidence;
  in.resamples = result.settings.bootstrap_resamples;
  in.seed = result.settings.seed;
  try {
    detail.analysis = stats::AnalyzePaired(in);
  } catch (const stats::StatsError& e) {
    detail.no_analysis = fmt::format("no intervals: {}", e.what());
  }
}

class Agreement {
 public:
  explicit Agreement(WorkloadDetail& detail) : detail_(detail) {}

  void Number(const std::string& figure, std::optional<double> in_file, std::optional<double> recomputed) {
    detail_.compared.push_back(figure);
    if (!in_file && !recomputed) return;
    if (!in_file || !recomputed) {
      detail_.disagreements.push_back(
          fmt::format("{}: the file says {}, recomputed {}", figure, Text(in_file), Text(recomputed)));
      return;
    }
    // The same code computed both, so anything beyond rounding in the last bits is a real
    // difference (a hand-edited file, or analysis code that changed since the run).
    const double scale = std::max(std::fabs(*in_file), std::fabs(*recomputed));
    if (std::fabs(*in_file - *recomputed) > 1e-12 * scale) {
      detail_.disagreements.push_back(
          fmt::format("{}: the file says {}, recomputed {}", figure, Text(in_file), Text(recomputed)));
    }
  }

  void Interval(const std::string& figure, const std::optional<pe::model::Interval>& in_file,
                const std::optional<stats::Bounds>& recomputed) {
    Number(figure + " low", in_file ? std::optional(in_file->low) : std::nullopt,
           recomputed ? std::optional(recomputed->low) : std::nullopt);
    Number(figure + " high", in_file ? std::optional(in_file->high) : std::nullopt,
           recomputed ? std::optional(recomputed->high) : std::nullopt);
  }

 private:
  static std::string Text(std::optional<double> x) { return x ? fmt::format("{}", *x) : "nothing"; }
  WorkloadDetail& detail_;
};

std::optional<stats::Bounds> Bounds(const std::optional<pe::model::Interval>& i) {
  return i ? std::optional(stats::Bounds{i->low, i->high}) : std::nullopt;
}

std::optional<double> Count(const std::optional<int>& n) { return n ? std::optional<double>(*n) : std::nullopt; }

// The comparison engine/analysis computes from this file's samples and settings now: every
// stored figure is held against it, so nothing the gate read goes unchecked.
std::optional<Comparison> Reanalysed(const RunResult& result, const WorkloadResult& w) {
  RunResult copy = result;
  analysis::Analyze(copy);
  for (const WorkloadResult& again : copy.workloads) {
    if (again.name == w.name) return again.comparison;
  }
  return std::nullopt;
}

void CheckAgainstFile(const RunResult& result, const WorkloadResult& w, WorkloadDetail& detail) {
  Agreement agree(detail);
  for (const ContenderStats& s : detail.contenders) {
    const ContenderSummary* stored = nullptr;
    for (const auto& summary : w.summaries) {
      if (summary.contender == s.contender) stored = &summary;
    }
    const auto field = [&](double ContenderSummary::*member) {
      return stored ? std::optional(stored->*member) : std::nullopt;
    };
    agree.Number(s.contender + " runs", stored ? std::optional<double>(stored->n) : std::nullopt, s.n);
    agree.Number(s.contender + " median", field(&ContenderSummary::median_wall_s), s.median_s);
    agree.Number(s.contender + " min", field(&ContenderSummary::min_wall_s), s.min_s);
    agree.Number(s.contender + " max", field(&ContenderSummary::max_wall_s), s.max_s);
  }
  if (!w.comparison) {
    if (detail.analysis) detail.disagreements.push_back("comparison: the file has none, recomputed one");
    return;
  }
  const Comparison& c = *w.comparison;
  agree.Number("speedup", c.speedup, detail.speedup);
  agree.Number("paired rounds", c.rounds, static_cast<double>(detail.paired.rounds.size()));
  agree.Number("logic speedup", c.logic_speedup, detail.startup.logic_speedup);
  agree.Number("peak RSS ratio", c.rss_ratio, detail.rss_ratio);
  if (!detail.analysis) {
    agree.Number("sign test p", c.sign_test_p, std::nullopt);
    return;
  }
  const stats::PairedAnalysis& a = *detail.analysis;
  agree.Number("wins", c.wins, a.wins);
  agree.Number("win rate", c.win_rate, a.win_rate);
  agree.Number("sign test p", c.sign_test_p, a.sign_test_p);
  agree.Number("Wilcoxon p", c.wilcoxon_p, a.wilcoxon_p);
  const std::optional<Comparison> again = Reanalysed(result, w);
  const Comparison none;
  const Comparison& r = again ? *again : none;
  agree.Interval("speedup interval", c.speedup_ci, Bounds(r.speedup_ci));
  agree.Interval("logic speedup interval", c.logic_speedup_ci, Bounds(r.logic_speedup_ci));
  agree.Number("CPU-time ratio", c.cpu_ratio, r.cpu_ratio);
  agree.Interval("CPU-time ratio interval", c.cpu_ratio_ci, Bounds(r.cpu_ratio_ci));
  // What each threshold reads (engine/model/threshold_table.h), once per figure: its sequence
  // and the rounds it would need, or its point figure (the peak RSS ratio is compared above,
  // against explain's own).
  std::vector<std::optional<model::Interval> Comparison::*> sequences;
  std::vector<std::optional<double> Comparison::*> points = {&Comparison::rss_ratio};
  std::vector<std::optional<int> Comparison::*> rounds;
  auto first = [](auto& done, auto member) {
    if (member == nullptr || std::find(done.begin(), done.end(), member) != done.end()) return false;
    done.push_back(member);
    return true;
  };
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    const std::string label(row.label);
    if (first(sequences, row.sequence)) {
      agree.Interval(label + " sequence", c.*row.sequence, Bounds(r.*row.sequence));
    }
    if (first(points, row.point)) agree.Number(label, c.*row.point, r.*row.point);
  }
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    if (first(rounds, row.rounds_needed)) {
      agree.Number("rounds needed (" + std::string(row.label) + ")", Count(c.*row.rounds_needed),
                   Count(r.*row.rounds_needed));
    }
  }
  agree.Interval("paired ratio interval", c.paired_ratio_ci, stats::Bounds{a.paired_ratio_low, a.paired_ratio_high});
  agree.Number("rounds to resolve", c.rounds_to_resolve ? std::optional<double>(*c.rounds_to_resolve) : std::nullopt,
               a.power ? std::optional<double>(a.power->rounds) : std::nullopt);
}

}  // namespace

WorkloadDetail ComputeDetail(const RunResult& result, const WorkloadResult& w) {
  WorkloadDetail detail;
  detail.workload = &w;
  detail.rows = RoundRows(result, w);
  for (const ContenderInfo& info : result.contenders) {
    const std::vector<double> wall = MeasuredWalls(w, info.name);
    if (!wall.empty()) detail.contenders.push_back(Describe(w, info.name, wall));
  }
  const ContenderStats* b = Find(detail.contenders, result.baseline);
  const ContenderStats* k = Find(detail.contenders, result.candidate);
  if (b != nullptr && k != nullptr) {
    detail.speedup = b->median_s / k->median_s;
    if (b->median_rss_kib > 0) {
      detail.rss_ratio = static_cast<double>(k->median_rss_kib) / static_cast<double>(b->median_rss_kib);
    }
  }
  detail.paired = Paired(result, w);
  if (w.failures.empty()) detail.startup = Subtract(result, w, detail);
  Analyse(result, w, detail);
  CheckAgainstFile(result, w, detail);
  return detail;
}

}  // namespace pe::explain
