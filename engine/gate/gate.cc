#include "engine/gate/gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace pe::gate {

namespace {

std::string Ratio(double x) { return fmt::format("{:.2f}x", x); }
std::string Percent(double x) { return fmt::format("{:.0f}%", 100 * x); }

// Why a count is missing, in the contenders' own words ("not measurable: statically linked").
std::string MeasureNote(const WorkloadResult& w, const std::string& fallback) {
  std::vector<std::string> notes;
  for (const ContenderSummary& s : w.summaries) {
    if (!s.measure_note.empty()) notes.push_back(fmt::format("{}: {}", s.contender, s.measure_note));
  }
  return notes.empty() ? fallback : fmt::format("{}", fmt::join(notes, "; "));
}

void CheckWorkload(const WorkloadResult& w, std::vector<Check>& checks) {
  const Comparison& c = *w.comparison;
  const Thresholds& t = w.thresholds;
  if (t.min_speedup) checks.push_back(MakeCheck(w.name, "min_speedup", "median speedup", c.speedup, *t.min_speedup, true));
  if (t.min_win_rate) {
    Check check = MakeCheck(w.name, "min_win_rate", "win rate", c.win_rate, *t.min_win_rate, true);
    check.note = fmt::format("{} of {} rounds", c.wins, c.rounds);
    checks.push_back(check);
  }
  if (t.min_logic_speedup) {
    if (w.kind == "serve") {
      // A server's requests are its work after start-up already; its logic column shows
      // time-to-ready, which is a different figure and not what this threshold promises.
      checks.push_back(SkippedCheck(w.name, "min_logic_speedup", "startup-adjusted speedup", *t.min_logic_speedup,
                                    "a serve workload's latency is already measured after start-up"));
    } else if (c.logic_speedup) {
      checks.push_back(MakeCheck(w.name, "min_logic_speedup", "startup-adjusted speedup", *c.logic_speedup,
                                 *t.min_logic_speedup, true));
    } else {
      checks.push_back(SkippedCheck(w.name, "min_logic_speedup", "startup-adjusted speedup", *t.min_logic_speedup, c.logic_note));
    }
  }
  if (t.max_rss_ratio) {
    if (c.rss_ratio) {
      checks.push_back(MakeCheck(w.name, "max_rss_ratio", "peak RSS ratio", *c.rss_ratio, *t.max_rss_ratio, false));
    } else {
      checks.push_back(SkippedCheck(w.name, "max_rss_ratio", "peak RSS ratio", *t.max_rss_ratio, "the baseline reported no peak RSS"));
    }
  }
  if (t.min_speedup_ci) {
    if (c.speedup_ci) {
      Check check = MakeCheck(w.name, "min_speedup_ci",
                              fmt::format("lower end of the {:.0f}% speedup interval", 100 * c.speedup_ci->level),
                              c.speedup_ci->low, *t.min_speedup_ci, true);
      check.note = fmt::format("{}, {} to {}", c.speedup_ci->method, Ratio(c.speedup_ci->low), Ratio(c.speedup_ci->high));
      checks.push_back(check);
    } else {
      checks.push_back(SkippedCheck(w.name, "min_speedup_ci", "speedup interval", *t.min_speedup_ci, "no interval: too few rounds"));
    }
  }
  if (t.max_slowdown) {
    if (c.cpu_ratio_ci) {
      // Fail only when the whole interval of the paired CPU-time ratio lies above the
      // tolerance: noise alone cannot do that at the chosen confidence.
      Check check = MakeCheck(w.name, "max_slowdown",
                              fmt::format("lower end of the {:.0f}% paired CPU-time ratio interval", 100 * c.cpu_ratio_ci->level),
                              c.cpu_ratio_ci->low, *t.max_slowdown, false);
      check.note = fmt::format("{}, {} to {}", c.cpu_ratio_ci->method, Ratio(c.cpu_ratio_ci->low),
                               Ratio(c.cpu_ratio_ci->high));
      checks.push_back(check);
    } else {
      checks.push_back(SkippedCheck(w.name, "max_slowdown", "paired CPU-time ratio interval", *t.max_slowdown,
                               "no interval: fewer than 2 paired rounds with CPU time"));
    }
  }
  if (t.max_p99_ratio) {
    if (c.p99_ratio) {
      checks.push_back(MakeCheck(w.name, "max_p99_ratio", "p99 latency ratio", *c.p99_ratio, *t.max_p99_ratio, false));
    } else {
      checks.push_back(SkippedCheck(w.name, "max_p99_ratio", "p99 latency ratio", *t.max_p99_ratio, "not a serve workload"));
    }
  }
  if (t.max_instructions_ratio) {
    if (c.instructions_ratio) {
      checks.push_back(MakeCheck(w.name, "max_instructions_ratio", "instruction count ratio", *c.instructions_ratio,
                                 *t.max_instructions_ratio, false));
    } else {
      checks.push_back(SkippedCheck(w.name, "max_instructions_ratio", "instruction count ratio", *t.max_instructions_ratio,
                               MeasureNote(w, "instructions not measured")));
    }
  }
  if (t.max_allocations_ratio) {
    if (c.allocations_ratio) {
      checks.push_back(MakeCheck(w.name, "max_allocations_ratio", "allocation count ratio", *c.allocations_ratio,
                                 *t.max_allocations_ratio, false));
    } else {
      checks.push_back(SkippedCheck(w.name, "max_allocations_ratio", "allocation count ratio", *t.max_allocations_ratio,
                               MeasureNote(w, "allocations not measured")));
    }
  }
}

std::string Configuration(const std::vector<AxisValue>& fixed) {
  std::vector<std::string> parts;
  for (const AxisValue& v : fixed) parts.push_back(v.axis + "=" + v.value);
  return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", "));
}

// Gates that read across a sweep's points, on the candidate.
void CheckSweep(const RunResult& run, const SweepResult& sweep, std::vector<Check>& checks) {
  if (sweep.max_cost_exponent) {
    for (const ScalingFit& fit : sweep.fits) {
      if (fit.contender != run.candidate) continue;
      const std::string label = fmt::format("cost exponent of {}{}", fit.contender, Configuration(fit.fixed));
      if (std::isnan(fit.exponent)) {
        checks.push_back(SkippedCheck(sweep.name, "max_cost_exponent", label, *sweep.max_cost_exponent, fit.note));
        continue;
      }
      Check check = MakeCheck(sweep.name, "max_cost_exponent", label, fit.exponent, *sweep.max_cost_exponent, false);
      check.note = std::isnan(fit.low) ? fit.note
                                        : fmt::format("{:.0f}% interval {:.2f} to {:.2f}", 100 * fit.level, fit.low, fit.high);
      checks.push_back(check);
    }
  }
  if (sweep.min_scaling_efficiency) {
    bool found = false;
    for (const ScalingEfficiency& e : sweep.efficiencies) {
      if (e.contender != run.candidate || e.threads != sweep.efficiency_threads) continue;
      found = true;
      checks.push_back(MakeCheck(sweep.name, "min_scaling_efficiency",
                                 fmt::format("scaling efficiency of {} at {} threads{}", e.contender, e.threads,
                                             Configuration(e.fixed)),
                                 e.efficiency, *sweep.min_scaling_efficiency, true));
    }
    if (!found) {
      checks.push_back(SkippedCheck(sweep.name, "min_scaling_efficiency", "scaling efficiency", *sweep.min_scaling_efficiency,
                               "no 1-thread point to compare with"));
    }
  }
}

}  // namespace

Check MakeCheck(std::string workload, std::string threshold, std::string label, double measured, double bar,
                bool higher_is_better, std::string note) {
  Check c;
  c.workload = std::move(workload);
  c.threshold = std::move(threshold);
  c.label = std::move(label);
  c.measured = measured;
  c.bar = bar;
  c.higher_is_better = higher_is_better;
  c.passed = higher_is_better ? measured >= bar : measured <= bar;
  c.note = std::move(note);
  return c;
}

Check SkippedCheck(std::string workload, std::string threshold, std::string label, double bar, std::string note) {
  Check c;
  c.workload = std::move(workload);
  c.threshold = std::move(threshold);
  c.label = std::move(label);
  c.bar = bar;
  c.skipped = true;
  c.passed = true;
  c.note = std::move(note);
  return c;
}

namespace {
// "6%", or "0.3%" where a whole number would say a miss was no miss at all.
std::string MarginPercent(double percent) {
  return percent < 1 ? fmt::format("{:.1f}%", percent) : fmt::format("{:.0f}%", percent);
}
}  // namespace

std::string CheckLine(const Check& c) {
  const bool is_rate = c.threshold == "min_win_rate" || c.threshold == "min_scaling_efficiency";
  const bool is_plain = c.threshold == "max_cost_exponent";
  // Enough digits that a miss never prints as equal to its bar ("0.997x", not "1.00x").
  int digits = 2;
  while (!c.passed && !c.skipped && !is_rate && digits < 6 &&
         fmt::format("{:.{}f}", c.measured, digits) == fmt::format("{:.{}f}", c.bar, digits)) {
    ++digits;
  }
  auto format = [&](double x) {
    return is_rate ? Percent(x) : is_plain ? fmt::format("{:.{}f}", x, digits) : fmt::format("{:.{}f}x", x, digits);
  };
  const std::string measured = format(c.measured);
  const std::string bar = format(c.bar);
  const std::string detail = c.note.empty() || c.skipped ? "" : fmt::format(" ({})", c.note);
  if (c.skipped) return fmt::format("{}: {} not checked against {}: {}", c.workload, c.label, bar, c.note);
  if (c.passed) {
    return fmt::format("{}: {} {}{} meets the {} {}", c.workload, c.label, measured, detail,
                       c.higher_is_better ? "required" : "allowed", bar);
  }
  std::string margin;
  if (is_rate) {
    margin = fmt::format("short by {:.0f} points", 100 * (c.bar - c.measured));
  } else if (c.higher_is_better) {
    margin = "short by " + MarginPercent(100 * (c.bar - c.measured) / c.bar);
  } else {
    margin = "over by " + MarginPercent(100 * (c.measured - c.bar) / c.bar);
  }
  return fmt::format("{}: {} {}{} is {} the {} {} ({})", c.workload, c.label, measured, detail,
                     c.higher_is_better ? "below" : "above", c.higher_is_better ? "required" : "allowed", bar,
                     margin);
}

void Accept(Verdict& verdict, const std::string& accepted_by) {
  if (verdict.exit != ExitCode::kThresholdMissed) return;
  verdict.exit = ExitCode::kPass;
  verdict.accepted = true;
  verdict.accepted_by = accepted_by;
}

std::string FailureLine(const Failure& f) {
  std::string line = f.workload.empty() ? "" : f.workload + ": ";
  if (!f.contender.empty()) line += fmt::format("contender '{}' ", f.contender);
  return line + f.message;
}

Verdict Judge(const RunResult& result) {
  Verdict v;
  bool interrupted = false, failed = false;
  for (const Failure& f : result.failures) {
    v.lines.push_back(FailureLine(f));
    (f.kind == Failure::Kind::kInterrupted ? interrupted : failed) = true;
  }
  for (const WorkloadResult& w : result.workloads) {
    for (const Failure& f : w.failures) {
      v.lines.push_back(FailureLine(f));
      failed = true;
    }
  }
  if (interrupted) {
    v.exit = ExitCode::kInterrupted;
    return v;
  }
  if (failed) {
    v.exit = ExitCode::kRunFailed;
    return v;
  }
  for (const WorkloadResult& w : result.workloads) {
    if (w.gate && w.comparison) CheckWorkload(w, v.checks);
  }
  for (const SweepResult& sweep : result.sweeps) CheckSweep(result, sweep, v.checks);
  for (const Check& c : v.checks) {
    if (!c.passed) {
      v.lines.push_back(CheckLine(c));
      v.exit = ExitCode::kThresholdMissed;
    }
  }
  return v;
}

}  // namespace pe::gate
