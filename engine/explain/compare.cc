#include "engine/explain/compare.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/analysis/analyze.h"
#include "engine/explain/rounds.h"
#include "engine/gate/gate.h"
#include "engine/model/count_ratio.h"
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
  return model::CountRatio(static_cast<double>(*counts[0]), static_cast<double>(*counts[1]));
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

// Per measured round both contenders completed: the candidate's figure over the baseline's.
void PairedRatios(const RunResult& run, const WorkloadResult& w, std::vector<double>& wall, std::vector<double>& cpu) {
  for (const RoundRow& row : RoundRows(run, w)) {
    if (row.warmup || !row.baseline_s || !row.candidate_s || *row.baseline_s <= 0) continue;
    wall.push_back(*row.candidate_s / *row.baseline_s);
    if (row.baseline_cpu_s && row.candidate_cpu_s && *row.baseline_cpu_s > 0) {
      cpu.push_back(*row.candidate_cpu_s / *row.baseline_cpu_s);
    }
  }
}

std::vector<double> MeasuredCpu(const WorkloadResult& w, const std::string& contender) {
  std::vector<double> cpu;
  for (const model::Sample& s : w.samples) {
    if (s.contender == contender && model::Measured(s)) cpu.push_back(s.user_s + s.sys_s);
  }
  return cpu;
}

// OLD / NEW of the medians with its unpaired bootstrap interval, or a note why there is none.
std::optional<Interval> UnpairedInterval(const std::vector<double>& old_values, const std::vector<double>& new_values,
                                         const RunResult& new_run, const WorkloadResult& new_w, const char* what,
                                         std::vector<std::string>& notes,
                                         std::optional<stats::BootstrapResult>* keep = nullptr) {
  try {
    const stats::BootstrapOptions options{new_w.thresholds.confidence, new_run.settings.bootstrap_resamples,
                                          new_run.settings.seed};
    stats::BootstrapResult b = stats::BootstrapMedianRatioUnpaired(old_values, new_values, options);
    const std::optional<stats::Bounds> bounds = b.bca ? b.bca : b.percentile;
    std::optional<Interval> out;
    if (bounds) {
      out = Interval{b.estimate, bounds->low, bounds->high, b.level,
                     fmt::format("unpaired bootstrap {}, {} resamples, seed {}", b.bca ? "BCa" : "percentile",
                                 b.resamples, b.seed)};
    }
    if (!b.note.empty()) notes.push_back(fmt::format("bootstrap of the {}: {}", what, b.note));
    if (keep) *keep = std::move(b);
    return out;
  } catch (const stats::StatsError& e) {
    notes.push_back(fmt::format("no interval of the {}: {}", what, e.what()));
    return std::nullopt;
  }
}

WorkloadComparison Compare(const RunResult& old_run, const WorkloadResult& old_w, const RunResult& new_run,
                           const WorkloadResult& new_w) {
  WorkloadComparison c;
  c.workload = new_w.name;
  c.gate = new_w.gate;
  model::Comparison& f = c.figures;
  f.baseline = old_run.candidate;
  f.candidate = new_run.candidate;
  const std::vector<double> old_own = MeasuredWalls(old_w, old_run.candidate);
  const std::vector<double> new_own = MeasuredWalls(new_w, new_run.candidate);
  c.raw_speedup = stats::Median(old_own) / stats::Median(new_own);
  if (old_run.baseline == new_run.baseline && old_run.baseline != old_run.candidate &&
      new_run.baseline != new_run.candidate) {
    PairedRatios(old_run, old_w, c.old_wall, c.old_cpu);
    PairedRatios(new_run, new_w, c.new_wall, c.new_cpu);
    c.paired = !c.old_wall.empty() && !c.new_wall.empty();
  }
  if (c.paired) {
    c.figure = fmt::format(
        "per-round time ratios candidate / baseline '{}' (the rounds the gate's sequences read), OLD's against "
        "NEW's; speed-up = OLD median ratio / NEW median ratio",
        old_run.baseline);
    if (c.old_cpu.empty() || c.new_cpu.empty()) {
      c.old_cpu.clear();
      c.new_cpu.clear();
    }
  } else {
    c.old_wall = old_own;
    c.new_wall = new_own;
    c.old_cpu = MeasuredCpu(old_w, old_run.candidate);
    c.new_cpu = MeasuredCpu(new_w, new_run.candidate);
    c.figure =
        "the candidate's measured times, OLD's against NEW's (no baseline ran in both files to pair with); "
        "speed-up = OLD median / NEW median";
  }
  c.old_median = stats::Median(c.old_wall);
  c.new_median = stats::Median(c.new_wall);
  f.speedup = c.old_median / c.new_median;
  c.mann_whitney = stats::MannWhitneyU(c.old_wall, c.new_wall);
  c.superiority = c.mann_whitney.probability_x_greater;
  f.speedup_ci = UnpairedInterval(c.old_wall, c.new_wall, new_run, new_w, "speed-up", f.notes, &c.bootstrap);
  const bool cpu_positive = std::all_of(c.old_cpu.begin(), c.old_cpu.end(), [](double v) { return v > 0; }) &&
                            std::all_of(c.new_cpu.begin(), c.new_cpu.end(), [](double v) { return v > 0; });
  if (!c.old_cpu.empty() && !c.new_cpu.empty() && cpu_positive) {
    f.cpu_ratio = stats::Median(c.new_cpu) / stats::Median(c.old_cpu);
    // NEW / OLD: the OLD / NEW interval turned over.
    if (auto ci = UnpairedInterval(c.old_cpu, c.new_cpu, new_run, new_w, "CPU-time ratio", f.notes)) {
      f.cpu_ratio_ci = Interval{*f.cpu_ratio, 1 / ci->high, 1 / ci->low, ci->level, ci->method};
    }
  }
  const auto excludes_one = [](const std::optional<Interval>& i) { return i && (i->low > 1 || i->high < 1); };
  c.changed = excludes_one(f.speedup_ci) || excludes_one(f.cpu_ratio_ci);
  const std::vector<double> old_rss = MeasuredRss(old_w, old_run.candidate);
  const std::vector<double> new_rss = MeasuredRss(new_w, new_run.candidate);
  const auto old_rss_median = static_cast<std::int64_t>(stats::Median(old_rss));
  if (old_rss_median > 0) {
    f.rss_ratio =
        static_cast<double>(static_cast<std::int64_t>(stats::Median(new_rss))) / static_cast<double>(old_rss_median);
  } else {
    c.missing["rss_ratio"] = "OLD reported no peak RSS";
  }
  if (new_w.startup) {
    f.logic_note = "startup workload: start-up is what it measures";
  } else {
    const auto old_logic = LogicTime(old_run, old_w, "OLD", f.logic_note);
    const auto new_logic = old_logic ? LogicTime(new_run, new_w, "NEW", f.logic_note) : std::nullopt;
    if (old_logic && new_logic) f.logic_speedup = *old_logic / *new_logic;
  }
  f.instructions_ratio = CountRatio(old_run, old_w, new_run, new_w, &model::ContenderSummary::instructions,
                                    "instruction count", c.missing["instructions_ratio"]);
  f.allocations_ratio = CountRatio(old_run, old_w, new_run, new_w, &model::ContenderSummary::allocation_calls,
                                   "allocation count", c.missing["allocations_ratio"]);
  f.own_instructions_ratio = CountRatio(old_run, old_w, new_run, new_w, &model::ContenderSummary::own_instructions,
                                        "own-code instruction count", c.missing["own_instructions_ratio"]);
  if (new_w.kind != WorkloadResult::Kind::kServe) {
    c.missing["p99_ratio"] = "not a serve workload";
  } else {
    const std::optional<double> old_p99 = MedianP99(old_run, old_w);
    const std::optional<double> new_p99 = MedianP99(new_run, new_w);
    if (old_p99 && new_p99 && *old_p99 > 0) {
      f.p99_ratio = *new_p99 / *old_p99;
    } else {
      c.missing["p99_ratio"] =
          fmt::format("{} has no p99 latency of its candidate", old_p99 && *old_p99 > 0 ? "NEW" : "OLD");
    }
  }
  const int fewest = static_cast<int>(std::min(c.old_wall.size(), c.new_wall.size()));
  if (fewest < stats::kFewRounds) {
    f.notes.push_back(fmt::format("only {} run{} on one side: fewer than {} make p-values and intervals coarse", fewest,
                                  fewest == 1 ? "" : "s", stats::kFewRounds));
  }
  return c;
}

// A check read on an interval, in the gate's three states: shown met, shown missed, or neither
// (unresolved), which fails a claim that must be shown (kShowMet) and passes a no-regression
// check (kShowMissed), as gate::Judge has it for a run's sequences.
Check IntervalRead(const WorkloadComparison& w, const std::string& key, const std::string& label,
                   const Interval& interval, double bar, bool higher_is_better, Check::Burden burden) {
  Check c = gate::MakeCheck(w.workload, key, label, interval.estimate, bar, higher_is_better,
                            fmt::format("{} {} interval {} to {}, {}", units::FormatConfidence(interval.level),
                                        w.paired ? "paired-ratio" : "unpaired", units::FormatRatio(interval.low),
                                        units::FormatRatio(interval.high), interval.method));
  const bool met = higher_is_better ? interval.low >= bar : interval.high <= bar;
  const bool missed = higher_is_better ? interval.high < bar : interval.low > bar;
  c.state = met ? Check::State::kPass : missed ? Check::State::kFail : Check::State::kUnresolved;
  c.burden = burden;
  c.passed = met || (c.state == Check::State::kUnresolved && burden == Check::Burden::kShowMissed);
  return c;
}

// Why compare has no `row`'s point figure: what Compare noted, else the row's own words.
std::string MissingPoint(const WorkloadComparison& w, const model::ThresholdRow& row) {
  const auto note = w.missing.find(model::FigureOf(row)->name);
  return note != w.missing.end() && !note->second.empty() ? note->second : std::string(row.missing);
}

// How `compare` reads one threshold on the unpaired figures; the line format is gate::CheckLine's.
// A point row reads its own member of the comparison, as the gate does; a threshold that has no
// reading here is still checked by gate::CheckThresholds, as skipped.
std::optional<Check> ReadUnpaired(const WorkloadComparison& w, const model::ThresholdRow& row, double bar) {
  const model::Comparison& f = w.figures;
  const std::string key(row.key);
  if (row.point != nullptr) {
    const std::string label = std::string(row.label) + " NEW/OLD";
    const std::optional<double>& figure = f.*row.point;
    return figure ? gate::MakeCheck(w.workload, key, label, *figure, bar, row.higher_is_better)
                  : gate::SkippedCheck(w.workload, key, label, bar, MissingPoint(w, row));
  }
  // A speed-up is a claim to show, as the gate's sequences have it: its interval must lie above
  // the bar, for min_speedup as for min_speedup_ci.
  if (key == "min_speedup" || key == "min_speedup_ci") {
    const std::string label = w.paired ? "median speed-up over OLD (per-round ratios to the baseline)"
                                       : "median speed-up over OLD (unpaired times)";
    if (!f.speedup_ci) return gate::SkippedCheck(w.workload, key, label, bar, "no interval");
    return IntervalRead(w, key, label, *f.speedup_ci, bar, true, Check::Burden::kShowMet);
  }
  if (key == "min_win_rate") {
    return gate::MakeCheck(w.workload, key, "probability of superiority", w.superiority, bar, true,
                           "read for min_win_rate: the chance a NEW run beats an OLD one, ties half");
  }
  if (key == "min_logic_speedup") {
    const std::string label = "startup-adjusted speedup over OLD";
    return f.logic_speedup ? gate::MakeCheck(w.workload, key, label, *f.logic_speedup, bar, row.higher_is_better)
                           : gate::SkippedCheck(w.workload, key, label, bar, f.logic_note);
  }
  if (key == "max_slowdown") {
    // The gate reads CPU time here (a parallel candidate that burns more CPU in the same wall
    // time is a regression): NEW / OLD, failing only when all of its interval lies above the
    // tolerance, as the gate does with its sequence.
    const std::string label = w.paired ? "CPU-time ratio NEW/OLD (per-round ratios to the baseline)"
                                       : "CPU-time ratio NEW/OLD (unpaired times)";
    if (!f.cpu_ratio_ci) return gate::SkippedCheck(w.workload, key, label, bar, "no CPU-time interval");
    return IntervalRead(w, key, label, *f.cpu_ratio_ci, bar, false, Check::Burden::kShowMissed);
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

std::string CompareCheckLine(const Check& c) {
  if (c.state != Check::State::kUnresolved || c.skipped) return gate::CheckLine(c);
  const std::string measured = units::FormatRatio(c.measured);
  const std::string bar = units::FormatRatio(c.bar);
  if (c.burden == Check::Burden::kShowMissed) {
    return fmt::format("{}: {} {} ({}) is unresolved against the allowed {}: a regression is not shown, so it passes",
                       c.workload, c.label, measured, c.note, bar);
  }
  return fmt::format(
      "{}: {} {} ({}) is not shown to meet the required {}: unresolved; more rounds in each run would narrow the "
      "interval",
      c.workload, c.label, measured, c.note, bar);
}

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
  // 1 (a check shown missed, or a point figure beyond its bar) outranks 3 (a claim these files
  // cannot show either way), as in gate::Judge.
  bool missed = false, open = false;
  for (const Check& c : out.verdict.checks) {
    if (c.passed) continue;
    out.verdict.lines.push_back(CompareCheckLine(c));
    (c.state == Check::State::kUnresolved ? open : missed) = true;
  }
  if (missed) {
    out.verdict.exit = ExitCode::kThresholdMissed;
  } else if (open) {
    out.verdict.exit = ExitCode::kUnresolved;
  }
  return out;
}

}  // namespace pe::explain
