#include "engine/explain/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "engine/analysis/analyze.h"
#include "engine/explain/rounds.h"
#include "engine/gate/gate.h"
#include "engine/units/units.h"
#include "stats/analysis.h"
#include "stats/descriptive.h"
#include "stats/error.h"

namespace pe::explain {

using model::Check;
using model::ExitCode;
using model::Failure;
using model::Interval;
using model::RunResult;
using model::WorkloadResult;

namespace {

const WorkloadResult* Find(const RunResult& run, const std::string& name) {
  for (const WorkloadResult& w : run.workloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

// The candidate's time after start-up in one file, or why it means nothing (the same floor
// engine/analysis applies to a run).
std::optional<double> LogicTime(const RunResult& run, const WorkloadResult& w, const char* which, std::string& note) {
  const WorkloadResult* startup = StartupWorkload(run);
  const std::vector<double> wall = MeasuredWalls(w, run.candidate);
  const std::vector<double> startup_wall = startup ? MeasuredWalls(*startup, run.candidate) : std::vector<double>{};
  if (startup_wall.empty()) {
    note = fmt::format("no startup: {} has no startup runs of '{}'", which, run.candidate);
    return std::nullopt;
  }
  const double median = stats::Median(wall);
  const double logic = median - stats::Median(startup_wall);
  const double floor = analysis::LogicFloor(median, 1.4826 * stats::MedianAbsoluteDeviation(startup_wall));
  if (logic <= floor) {
    note = fmt::format("startup-bound: in {} the time after start-up ({}) is not above the floor ({})", which,
                       units::FormatSeconds(logic), units::FormatSeconds(floor));
    return std::nullopt;
  }
  return logic;
}

const model::ContenderSummary* SummaryOf(const WorkloadResult& w, const std::string& contender) {
  for (const model::ContenderSummary& s : w.summaries) {
    if (s.contender == contender) return &s;
  }
  return nullptr;
}

// NEW / OLD of one count of the candidate's, measured once in each file. From none to some is
// a regression of unbounded size, as engine/analysis has it for a run.
std::optional<double> CountRatio(const RunResult& old_run, const WorkloadResult& old_w, const RunResult& new_run,
                                 const WorkloadResult& new_w,
                                 std::optional<std::uint64_t> model::ContenderSummary::*count, const char* what,
                                 std::string& note) {
  std::optional<std::uint64_t> counts[2];
  for (int i = 0; i < 2; ++i) {
    const RunResult& run = i == 0 ? old_run : new_run;
    const model::ContenderSummary* s = SummaryOf(i == 0 ? old_w : new_w, run.candidate);
    if (s && s->*count) {
      counts[i] = s->*count;
      continue;
    }
    note = fmt::format("{} has no {} of '{}'", i == 0 ? "OLD" : "NEW", what, run.candidate);
    if (s && !s->measure_note.empty()) note += fmt::format(" ({})", s->measure_note);
    return std::nullopt;
  }
  if (*counts[0] > 0) return static_cast<double>(*counts[1]) / static_cast<double>(*counts[0]);
  return *counts[1] == 0 ? 1.0 : std::numeric_limits<double>::infinity();
}

// Median over one file's measured rounds of the candidate's p99 latency.
std::optional<double> MedianP99(const RunResult& run, const WorkloadResult& w) {
  std::vector<double> p99;
  for (const model::Sample& s : w.samples) {
    if (s.contender == run.candidate && !s.warmup && !s.rss_only && s.serve) p99.push_back(s.serve->p99_s);
  }
  if (p99.empty()) return std::nullopt;
  return stats::Median(p99);
}

WorkloadComparison Compare(const RunResult& old_run, const WorkloadResult& old_w, const RunResult& new_run,
                           const WorkloadResult& new_w) {
  WorkloadComparison c;
  c.workload = new_w.name;
  c.gate = new_w.gate;
  c.old_wall = MeasuredWalls(old_w, old_run.candidate);
  c.new_wall = MeasuredWalls(new_w, new_run.candidate);
  c.old_median = stats::Median(c.old_wall);
  c.new_median = stats::Median(c.new_wall);
  c.speedup = c.raw_speedup = c.old_median / c.new_median;
  const std::vector<double> old_control = MeasuredWalls(old_w, old_run.baseline);
  const std::vector<double> new_control = MeasuredWalls(new_w, new_run.baseline);
  if (old_run.baseline == new_run.baseline && old_run.baseline != old_run.candidate && !old_control.empty() &&
      !new_control.empty()) {
    c.control = stats::Median(old_control) / stats::Median(new_control);
    c.speedup = c.raw_speedup / *c.control;
    c.notes.push_back(fmt::format(
        "controlled by baseline '{}', which ran in both: its own OLD/NEW ratio is {}, so the candidate's {} "
        "becomes {}; the interval is divided by the same control and does not include its own spread",
        old_run.baseline, units::FormatRatio(*c.control), units::FormatRatio(c.raw_speedup),
        units::FormatRatio(c.speedup)));
  }
  c.mann_whitney = stats::MannWhitneyU(c.old_wall, c.new_wall);
  c.superiority = c.mann_whitney.probability_x_greater;
  try {
    const stats::BootstrapOptions options{new_w.thresholds.confidence, new_run.settings.bootstrap_resamples,
                                          new_run.settings.seed};
    stats::BootstrapResult b = stats::BootstrapMedianRatioUnpaired(c.old_wall, c.new_wall, options);
    const std::optional<stats::Bounds> bounds = b.bca ? b.bca : b.percentile;
    if (bounds) {
      const double control = c.control.value_or(1.0);
      c.speedup_ci = Interval{c.speedup, bounds->low / control, bounds->high / control, b.level,
                              fmt::format("unpaired bootstrap {}, {} resamples, seed {}", b.bca ? "BCa" : "percentile",
                                          b.resamples, b.seed)};
    }
    if (!b.note.empty()) c.notes.push_back("bootstrap: " + b.note);
    c.bootstrap = std::move(b);
  } catch (const stats::StatsError& e) {
    c.notes.push_back(fmt::format("no interval: {}", e.what()));
  }
  const std::vector<double> old_rss = MeasuredRss(old_w, old_run.candidate);
  const std::vector<double> new_rss = MeasuredRss(new_w, new_run.candidate);
  const auto old_rss_median = static_cast<std::int64_t>(stats::Median(old_rss));
  if (old_rss_median > 0) {
    c.rss_ratio =
        static_cast<double>(static_cast<std::int64_t>(stats::Median(new_rss))) / static_cast<double>(old_rss_median);
  }
  if (new_w.startup) {
    c.logic_note = "startup workload: start-up is what it measures";
  } else {
    const auto old_logic = LogicTime(old_run, old_w, "OLD", c.logic_note);
    const auto new_logic = old_logic ? LogicTime(new_run, new_w, "NEW", c.logic_note) : std::nullopt;
    if (old_logic && new_logic) c.logic_speedup = *old_logic / *new_logic;
  }
  c.instructions_ratio = CountRatio(old_run, old_w, new_run, new_w, &model::ContenderSummary::instructions,
                                    "instruction count", c.instructions_note);
  c.allocations_ratio = CountRatio(old_run, old_w, new_run, new_w, &model::ContenderSummary::allocation_calls,
                                   "allocation count", c.allocations_note);
  if (new_w.kind != WorkloadResult::Kind::kServe) {
    c.p99_note = "not a serve workload";
  } else {
    const std::optional<double> old_p99 = MedianP99(old_run, old_w);
    const std::optional<double> new_p99 = MedianP99(new_run, new_w);
    if (old_p99 && new_p99 && *old_p99 > 0) {
      c.p99_ratio = *new_p99 / *old_p99;
    } else {
      c.p99_note = fmt::format("{} has no p99 latency of its candidate", old_p99 && *old_p99 > 0 ? "NEW" : "OLD");
    }
  }
  const int fewest = static_cast<int>(std::min(c.old_wall.size(), c.new_wall.size()));
  if (fewest < stats::kFewRounds) {
    c.notes.push_back(fmt::format("only {} run{} on one side: fewer than {} make p-values and intervals coarse", fewest,
                                  fewest == 1 ? "" : "s", stats::kFewRounds));
  }
  return c;
}

// How `compare` reads one threshold on the unpaired figures; the line format is gate::CheckLine's.
// A threshold that has no reading here is still checked by gate::CheckThresholds, as skipped.
std::optional<Check> ReadUnpaired(const WorkloadComparison& w, const model::ThresholdRow& row, double bar) {
  using units::FormatRatio;
  const std::string key(row.key);
  auto point = [&](const std::string& label, const std::optional<double>& figure, const std::string& missing) {
    return figure ? gate::MakeCheck(w.workload, key, label, *figure, bar, row.higher_is_better)
                  : gate::SkippedCheck(w.workload, key, label, bar, missing);
  };
  if (key == "min_speedup") return point("median speedup over OLD", w.speedup, "");
  if (key == "min_win_rate") {
    return gate::MakeCheck(w.workload, key, "probability of superiority", w.superiority, bar, true,
                           "read for min_win_rate: the chance a NEW run beats an OLD one, ties half");
  }
  if (key == "min_logic_speedup") return point("startup-adjusted speedup over OLD", w.logic_speedup, w.logic_note);
  if (key == "max_rss_ratio") return point("peak RSS ratio NEW/OLD", w.rss_ratio, "OLD reported no peak RSS");
  if (key == "max_instructions_ratio") {
    return point("instruction count ratio NEW/OLD", w.instructions_ratio, w.instructions_note);
  }
  if (key == "max_allocations_ratio") {
    return point("allocation count ratio NEW/OLD", w.allocations_ratio, w.allocations_note);
  }
  if (key == "max_p99_ratio") return point("p99 latency ratio NEW/OLD", w.p99_ratio, w.p99_note);
  if (key == "min_speedup_ci") {
    if (!w.speedup_ci) return gate::SkippedCheck(w.workload, key, "unpaired speedup interval", bar, "no interval");
    return gate::MakeCheck(
        w.workload, key,
        fmt::format("lower end of the {} unpaired speedup interval", units::FormatConfidence(w.speedup_ci->level)),
        w.speedup_ci->low, bar, true,
        fmt::format("{}, {} to {}", w.speedup_ci->method, FormatRatio(w.speedup_ci->low),
                    FormatRatio(w.speedup_ci->high)));
  }
  if (key == "max_slowdown") {
    if (!w.speedup_ci) return gate::SkippedCheck(w.workload, key, "unpaired time-ratio interval", bar, "no interval");
    // NEW / OLD time ratio: the speedup interval turned over. Fail only when all of it lies
    // above the tolerance, as the gate does with the paired interval.
    const double low = 1 / w.speedup_ci->high;
    const double high = 1 / w.speedup_ci->low;
    return gate::MakeCheck(w.workload, key,
                           fmt::format("lower end of the {} unpaired time-ratio interval NEW/OLD",
                                       units::FormatConfidence(w.speedup_ci->level)),
                           low, bar, false,
                           fmt::format("{}, {} to {}", w.speedup_ci->method, FormatRatio(low), FormatRatio(high)));
  }
  return std::nullopt;
}

void FailuresOf(const RunResult& run, const char* which, std::vector<std::string>& lines) {
  for (const Failure& f : run.failures) lines.push_back(fmt::format("{}: {}", which, gate::FailureLine(f)));
  if (!run.complete && run.failures.empty()) {
    lines.push_back(fmt::format("{}: the results are incomplete (the run stopped before its last round)", which));
  }
}

}  // namespace

std::string SpecMismatch(const RunResult& old_run, const RunResult& new_run) {
  if (old_run.spec_digest == new_run.spec_digest) return "";
  return fmt::format("OLD and NEW are results of different specs: OLD ran {} (sha256 {}), NEW ran {} (sha256 {})",
                     old_run.spec_path, old_run.spec_digest.substr(0, 12), new_run.spec_path,
                     new_run.spec_digest.substr(0, 12));
}

RunComparison CompareRuns(const RunResult& old_run, const RunResult& new_run) {
  RunComparison out;
  out.candidate_old = old_run.candidate;
  out.candidate_new = new_run.candidate;
  std::vector<std::string> failures;
  FailuresOf(old_run, "OLD", failures);
  FailuresOf(new_run, "NEW", failures);
  for (const WorkloadResult& w : old_run.workloads) {
    if (Find(new_run, w.name) != nullptr) continue;
    out.only_in_old.push_back(w.name);
    // A gate cannot pass on a workload NEW never ran (e.g. run with --workload): that is an
    // incomplete comparison, exit 2, never a silent pass.
    if (w.gate && !w.startup) {
      failures.push_back(
          fmt::format("NEW: {}: gated in OLD but missing from NEW; run it in NEW or compare "
                      "results of the same workloads",
                      w.name));
    }
  }
  for (const WorkloadResult& new_w : new_run.workloads) {
    const WorkloadResult* old_w = Find(old_run, new_w.name);
    if (old_w == nullptr) {
      out.only_in_new.push_back(new_w.name);
      continue;
    }
    bool failed = false;
    for (auto [run, w, which] : {std::tuple{&old_run, old_w, "OLD"}, std::tuple{&new_run, &new_w, "NEW"}}) {
      for (const Failure& f : w->failures) {
        failures.push_back(fmt::format("{}: {}", which, gate::FailureLine(f)));
        failed = true;
      }
      if (!failed && MeasuredWalls(*w, run->candidate).empty()) {
        failures.push_back(fmt::format("{}: {}: no measured runs of '{}'", which, w->name, run->candidate));
        failed = true;
      }
    }
    if (failed) continue;
    out.workloads.push_back(Compare(old_run, *old_w, new_run, new_w));
    if (!new_w.gate) continue;
    const WorkloadComparison& figures = out.workloads.back();
    std::vector<Check> checks = gate::CheckThresholds(
        new_w.name, new_w.thresholds,
        [&](const model::ThresholdRow& row, double bar) { return ReadUnpaired(figures, row, bar); });
    out.verdict.checks.insert(out.verdict.checks.end(), checks.begin(), checks.end());
  }
  out.verdict.lines = failures;
  if (!failures.empty()) {
    out.verdict.exit = ExitCode::kRunFailed;
    return out;
  }
  for (const Check& c : out.verdict.checks) {
    if (!c.passed) {
      out.verdict.lines.push_back(gate::CheckLine(c));
      out.verdict.exit = ExitCode::kThresholdMissed;
    }
  }
  return out;
}

}  // namespace pe::explain
