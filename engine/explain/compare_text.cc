#include "engine/explain/compare_text.h"

#include <fmt/format.h>

#include "engine/explain/explain_text.h"
#include "engine/gate/gate.h"
#include "engine/gate/unresolved.h"
#include "engine/report/overview.h"
#include "engine/report/text.h"
#include "engine/report/text_table.h"
#include "engine/units/units.h"

namespace pe::explain {

using model::Check;
using model::ExitCode;
using model::RunResult;
using model::Verdict;

namespace {

using report::OneLine;
using units::FormatPercent;
using units::FormatPValue;
using units::FormatRatio;
using units::FormatSeconds;

std::string RunLine(const char* which, const std::string& file, const RunResult& run) {
  return fmt::format(
      "{} {}: started {}, {}, bootstrap {} resamples\n", which, OneLine(file), OneLine(run.started_at),
      fmt::format("{} + {} warm-up, seed {}", report::RoundsRun(run), run.settings.warmup_rounds, run.settings.seed),
      run.settings.bootstrap_resamples);
}

std::string IntervalCell(const std::optional<model::Interval>& i) {
  if (!i) return "-";
  return fmt::format("{} to {}", FormatRatio(i->low), FormatRatio(i->high));
}

// A median of what the comparison holds: a time, or a per-round ratio when paired.
std::string MedianCell(const WorkloadComparison& w, double median) {
  return w.paired ? FormatRatio(median, 3) : FormatSeconds(median);
}

std::string Table(const RunComparison& c) {
  std::vector<std::vector<std::string>> rows = {{"workload", "compared", "OLD median", "NEW median", "speed-up",
                                                 "interval", "CPU NEW/OLD", "interval", "change", "P(NEW faster)",
                                                 "Mann-Whitney"}};
  for (const WorkloadComparison& w : c.workloads) {
    rows.push_back({OneLine(w.workload), w.paired ? "paired ratios" : "unpaired times", MedianCell(w, w.old_median),
                    MedianCell(w, w.new_median), FormatRatio(w.figures.speedup), IntervalCell(w.figures.speedup_ci),
                    w.figures.cpu_ratio ? FormatRatio(*w.figures.cpu_ratio) : "-", IntervalCell(w.figures.cpu_ratio_ci),
                    w.changed ? "yes" : "no", FormatPercent(w.superiority), FormatPValue(w.mann_whitney.p_value)});
  }
  return report::FormatTable(rows, "llrrrrrrlrl", "  ");
}

std::string Detail(const WorkloadComparison& w) {
  const model::Comparison& f = w.figures;
  std::string out = fmt::format("\n== {}{} ==\n", OneLine(w.workload), w.gate ? "" : " (not gated)");
  out += fmt::format("  compared: {}\n", OneLine(w.figure));
  const char* what = w.paired ? "rounds" : "runs";
  out += fmt::format("  OLD: {} {}, median {}\n", w.old_wall.size(), what, MedianCell(w, w.old_median));
  out += fmt::format("  NEW: {} {}, median {}\n", w.new_wall.size(), what, MedianCell(w, w.new_median));
  out += fmt::format("  speed-up = OLD median / NEW median = {} / {} = {}\n", MedianCell(w, w.old_median),
                     MedianCell(w, w.new_median), FormatRatio(f.speedup));
  if (w.paired) {
    out += fmt::format(
        "  (the candidate's own median wall time, OLD / NEW: {}, before the baseline's drift is taken out)\n",
        FormatRatio(w.raw_speedup));
  }
  if (w.bootstrap) {
    const stats::BootstrapResult& b = *w.bootstrap;
    out += fmt::format("  {} bootstrap interval, each file's {} resampled on their own, {} resamples, seed {}:\n",
                       units::FormatConfidence(b.level), what, b.resamples, b.seed);
    if (b.bca) {
      out += fmt::format("    BCa {} to {} (z0 = {}, a = {})\n", FormatRatio(b.bca->low), FormatRatio(b.bca->high),
                         units::FormatFixed(b.bias_correction, 3), units::FormatFixed(b.acceleration, 4));
    }
    if (b.percentile) {
      out += fmt::format("    percentile {} to {}\n", FormatRatio(b.percentile->low), FormatRatio(b.percentile->high));
    }
  }
  if (f.cpu_ratio) {
    out += fmt::format("  CPU time (user + system) NEW / OLD{}: {}{}\n",
                       w.paired ? ", per-round ratios to the baseline" : "", FormatRatio(*f.cpu_ratio),
                       f.cpu_ratio_ci ? fmt::format(", {} interval {}", units::FormatConfidence(f.cpu_ratio_ci->level),
                                                    IntervalCell(f.cpu_ratio_ci))
                                      : "");
  }
  out += fmt::format("  change: {}\n", w.changed ? "yes: an interval above lies wholly on one side of 1.00x"
                                                 : "none shown: every interval above holds 1.00x");
  const stats::MannWhitneyResult& m = w.mann_whitney;
  out += fmt::format("  Mann-Whitney U = {} ({}{}), two-sided {} (descriptive; the change above reads the intervals)\n",
                     m.u1, m.exact ? "exact" : "normal approximation", m.ties ? ", ties" : "", FormatPValue(m.p_value));
  out += fmt::format("  probability of superiority: a NEW {} is faster than an OLD one {} of the time (ties half)\n",
                     w.paired ? "round (relative to its baseline)" : "run", FormatPercent(w.superiority));
  if (f.rss_ratio) out += fmt::format("  peak RSS NEW / OLD: {}\n", FormatRatio(*f.rss_ratio));
  if (f.logic_speedup) {
    out += fmt::format("  startup-adjusted speedup over OLD: {}\n", FormatRatio(*f.logic_speedup));
  } else if (!f.logic_note.empty()) {
    out += fmt::format("  no startup-adjusted speedup: {}\n", OneLine(f.logic_note));
  }
  for (const auto& note : f.notes) out += fmt::format("  note: {}\n", OneLine(note));
  return out;
}

std::string Summary(const Verdict& v) {
  switch (v.exit) {
    case ExitCode::kPass:
      // As the run's own summary line: a comparison that judged nothing says so.
      if (const std::string none = report::NothingGated(v); !none.empty()) return "PASS: " + none;
      return "PASS";
    case ExitCode::kThresholdMissed: {
      std::size_t missed = 0;
      for (const Check& c : v.checks) missed += c.passed || c.state == Check::State::kUnresolved ? 0 : 1;
      // Exit 1 with no miss: --unresolved=fail counted the open claims (never called missed).
      if (missed == 0 && gate::CountUnresolved(v) > 0) {
        return fmt::format("FAIL: {} unresolved (not shown either way), counted against the run by --unresolved=fail",
                           units::FormatCount(gate::CountUnresolved(v), "check"));
      }
      return fmt::format("FAIL: {} threshold{} missed", missed, missed == 1 ? "" : "s");
    }
    case ExitCode::kRunFailed:
      return "COMPARE FAILED";
    case ExitCode::kUnresolved:
      return gate::UnresolvedSummary(v, 0.95);
    case ExitCode::kInterrupted:
      return "INTERRUPTED";
  }
  return "";
}

}  // namespace

std::string CompareText(const RunResult& old_run, const std::string& old_file, const RunResult& new_run,
                        const std::string& new_file, const RunComparison& c) {
  std::string out = fmt::format("perfengine compare {} {}\n", OneLine(old_file), OneLine(new_file));
  out += RunLine("OLD", old_file, old_run);
  out += RunLine("NEW", new_file, new_run);
  out += old_run.spec_digest == new_run.spec_digest
             ? fmt::format("spec {} (sha256 {}) in both\n", OneLine(new_run.spec_path),
                           OneLine(new_run.spec_digest.substr(0, 12)))
             : fmt::format("specs differ (--allow-different-spec): OLD {} (sha256 {}), NEW {} (sha256 {})\n",
                           OneLine(old_run.spec_path), OneLine(old_run.spec_digest.substr(0, 12)),
                           OneLine(new_run.spec_path), OneLine(new_run.spec_digest.substr(0, 12)));
  out += fmt::format(
      "compared: the candidate ('{}' in OLD, '{}' in NEW). Where the baseline ran in both files, each round's "
      "candidate / baseline ratio (the paired rounds the gate's sequences read; the machine's drift between the runs "
      "cancels), else the candidate's own times, unpaired. speed-up: wall time, OLD median / NEW median, above 1.00x "
      "NEW is faster; CPU NEW/OLD: user + system time, what max_slowdown reads; change: only where an interval lies "
      "wholly on one side of 1.00x\n",
      OneLine(c.candidate_old), OneLine(c.candidate_new));
  if (!c.workloads.empty()) out += "\n" + Table(c);
  for (const WorkloadComparison& w : c.workloads) out += Detail(w);
  if (!c.only_in_old.empty())
    out += fmt::format("\nonly in OLD, not compared: {}\n", OneLine(fmt::format("{}", fmt::join(c.only_in_old, ", "))));
  if (!c.only_in_new.empty())
    out += fmt::format("\nonly in NEW, not compared: {}\n", OneLine(fmt::format("{}", fmt::join(c.only_in_new, ", "))));
  if (!c.verdict.checks.empty()) {
    out += "\nthresholds (NEW's, read on the figures above)\n";
    for (const Check& check : c.verdict.checks) {
      const std::string margin = Margin(check);
      out += fmt::format("  {}{}\n", OneLine(CompareCheckLine(check)),
                         margin.empty() ? "" : fmt::format(" [margin {}]", margin));
    }
  }
  if (!c.verdict.lines.empty()) {
    out += "\nverdict\n";
    for (const auto& line : c.verdict.lines) out += fmt::format("  {}\n", OneLine(line));
  }
  out += "\n" + Summary(c.verdict) + "\n";
  return out;
}

}  // namespace pe::explain
