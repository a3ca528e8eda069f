#include "engine/explain/compare_text.h"

#include <fmt/format.h>

#include "engine/explain/explain_text.h"
#include "engine/gate/gate.h"
#include "engine/gate/unresolved.h"
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
  return fmt::format("{} {}: started {}, {}, bootstrap {} resamples\n", which, OneLine(file), OneLine(run.started_at),
                     fmt::format("{} rounds + {} warm-up, seed {}", run.settings.rounds, run.settings.warmup_rounds,
                                 run.settings.seed),
                     run.settings.bootstrap_resamples);
}

std::string IntervalCell(const WorkloadComparison& w) {
  if (!w.speedup_ci) return "-";
  return fmt::format("{} to {}", FormatRatio(w.speedup_ci->low), FormatRatio(w.speedup_ci->high));
}

std::string Table(const RunComparison& c) {
  std::vector<std::vector<std::string>> rows = {
      {"workload", "OLD median", "NEW median", "speedup", "interval", "P(NEW faster)", "Mann-Whitney"}};
  for (const WorkloadComparison& w : c.workloads) {
    rows.push_back({OneLine(w.workload), FormatSeconds(w.old_median), FormatSeconds(w.new_median),
                    FormatRatio(w.speedup), IntervalCell(w), FormatPercent(w.superiority),
                    FormatPValue(w.mann_whitney.p_value)});
  }
  return report::FormatTable(rows, "lrrrrrl", "  ");
}

std::string Detail(const WorkloadComparison& w) {
  std::string out = fmt::format("\n== {}{} ==\n", OneLine(w.workload), w.gate ? "" : " (not gated)");
  out += fmt::format("  OLD: {} runs, median {}\n", w.old_wall.size(), FormatSeconds(w.old_median));
  out += fmt::format("  NEW: {} runs, median {}\n", w.new_wall.size(), FormatSeconds(w.new_median));
  out += fmt::format("  speedup = OLD median / NEW median = {} / {} = {}\n", FormatSeconds(w.old_median),
                     FormatSeconds(w.new_median), FormatRatio(w.speedup));
  if (w.bootstrap) {
    const stats::BootstrapResult& b = *w.bootstrap;
    out += fmt::format("  {} bootstrap interval, each run's times resampled on their own, {} resamples, seed {}:\n",
                       units::FormatConfidence(b.level), b.resamples, b.seed);
    if (b.bca) {
      out += fmt::format("    BCa {} to {} (z0 = {:.3f}, a = {:.4f})\n", FormatRatio(b.bca->low),
                         FormatRatio(b.bca->high), b.bias_correction, b.acceleration);
    }
    if (b.percentile) {
      out += fmt::format("    percentile {} to {}\n", FormatRatio(b.percentile->low), FormatRatio(b.percentile->high));
    }
  }
  const stats::MannWhitneyResult& m = w.mann_whitney;
  out += fmt::format("  Mann-Whitney U = {} ({}{}), two-sided {}: {} at asv's p < 0.002\n", m.u1,
                     m.exact ? "exact" : "normal approximation", m.ties ? ", ties" : "", FormatPValue(m.p_value),
                     m.p_value < 0.002 ? "a change" : "no change");
  out += fmt::format("  probability of superiority: a NEW run is faster than an OLD one {} of the time (ties half)\n",
                     FormatPercent(w.superiority));
  if (w.rss_ratio) out += fmt::format("  peak RSS NEW / OLD: {}\n", FormatRatio(*w.rss_ratio));
  if (w.logic_speedup) {
    out += fmt::format("  startup-adjusted speedup over OLD: {}\n", FormatRatio(*w.logic_speedup));
  } else if (!w.logic_note.empty()) {
    out += fmt::format("  no startup-adjusted speedup: {}\n", OneLine(w.logic_note));
  }
  for (const auto& note : w.notes) out += fmt::format("  note: {}\n", OneLine(note));
  return out;
}

std::string Summary(const Verdict& v) {
  switch (v.exit) {
    case ExitCode::kPass:
      return "PASS";
    case ExitCode::kThresholdMissed: {
      std::size_t missed = 0;
      for (const Check& c : v.checks) missed += c.passed ? 0 : 1;
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
      "compared: the candidate ('{}' in OLD, '{}' in NEW), measured wall times, unpaired; speedup = OLD median / NEW "
      "median, above 1.00x NEW is faster\n",
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
      out += fmt::format("  {}{}\n", OneLine(gate::CheckLine(check)),
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
