#include "engine/gate/gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace pe::gate {

namespace {

std::string Percent(double x) { return fmt::format("{:.0f}%", 100 * x); }

// Why a count is missing, in the contenders' own words ("not measurable: statically linked").
std::string MeasureNote(const WorkloadResult& w, const std::string& fallback) {
  std::vector<std::string> notes;
  for (const ContenderSummary& s : w.summaries) {
    if (!s.measure_note.empty()) notes.push_back(fmt::format("{}: {}", s.contender, s.measure_note));
  }
  return notes.empty() ? fallback : fmt::format("{}", fmt::join(notes, "; "));
}

// Rounds used where the run could add them, and each workload's statistical caveats.
void AddNotes(const RunResult& result, Verdict& v) {
  for (const WorkloadResult& w : result.workloads) {
    if (!w.comparison || w.startup) continue;
    const Comparison& c = *w.comparison;
    if (result.settings.max_rounds > result.settings.rounds && w.gate) {
      const bool open = std::any_of(v.checks.begin(), v.checks.end(), [&](const Check& check) {
        return check.workload == w.name && check.state == Check::State::kUnresolved;
      });
      v.notes.push_back(open ? fmt::format("{}: still unresolved after {} rounds, the most [run] max_rounds allows",
                                           w.name, c.rounds)
                             : fmt::format("{}: every check resolved after {} rounds (between {} and {} allowed)",
                                           w.name, c.rounds, result.settings.rounds, result.settings.max_rounds));
    }
    for (const std::string& note : c.notes) v.notes.push_back(fmt::format("{}: {}", w.name, note));
  }
}

bool AnyThreshold(const Thresholds& t) {
  return t.min_speedup || t.min_win_rate || t.min_logic_speedup || t.max_rss_ratio || t.min_speedup_ci ||
         t.max_slowdown || t.max_instructions_ratio || t.max_allocations_ratio || t.max_p99_ratio;
}

// A check that reads a confidence sequence: pass and fail must each be shown at the
// sequence's level; in between it is unresolved, which fails a claim that must be shown
// (kShowMet) and passes a check that fails only on a shown miss (kShowMissed).
Check SequentialCheck(const WorkloadResult& w, std::string threshold, std::string label, const Interval& cs,
                      double bar, bool higher_is_better, Check::Burden burden, std::optional<int> rounds_needed) {
  Check c = MakeCheck(w.name, std::move(threshold), std::move(label), cs.estimate, bar, higher_is_better);
  const bool met = higher_is_better ? cs.low >= bar : cs.high <= bar;
  const bool missed = higher_is_better ? cs.high < bar : cs.low > bar;
  c.state = met ? Check::State::kPass : missed ? Check::State::kFail : Check::State::kUnresolved;
  c.burden = burden;
  c.passed = c.state == Check::State::kPass || (c.state == Check::State::kUnresolved && burden == Check::Burden::kShowMissed);
  c.interval = cs;
  c.rounds = w.comparison ? w.comparison->rounds : 0;
  if (c.state == Check::State::kUnresolved) c.rounds_needed = rounds_needed;
  return c;
}

void CheckWorkload(const WorkloadResult& w, std::vector<Check>& checks) {
  const Comparison& c = *w.comparison;
  const Thresholds& t = w.thresholds;
  const std::string level = fmt::format("{:.0f}%", 100 * t.confidence);
  const auto speedup_key = [&](const char* key, const std::optional<double>& bar) {
    if (!bar) return;
    if (!c.speedup_cs) {
      checks.push_back(SkippedCheck(w.name, key, "median speedup", *bar, "no paired rounds"));
      return;
    }
    checks.push_back(SequentialCheck(w, key, "median speedup", *c.speedup_cs, *bar, true, Check::Burden::kShowMet,
                                     c.speedup_rounds_needed));
  };
  speedup_key("min_speedup", t.min_speedup);
  speedup_key("min_speedup_ci", t.min_speedup_ci);
  if (t.min_win_rate) {
    if (c.win_rate_cs) {
      Check check = SequentialCheck(w, "min_win_rate", "win rate", *c.win_rate_cs, *t.min_win_rate, true,
                                    Check::Burden::kShowMet, c.win_rounds_needed);
      check.note = c.sign_test_p ? fmt::format("{} of {} rounds, sign test p = {:.3g}", c.wins, c.rounds, *c.sign_test_p)
                                 : fmt::format("{} of {} rounds", c.wins, c.rounds);
      checks.push_back(check);
    } else {
      checks.push_back(SkippedCheck(w.name, "min_win_rate", "win rate", *t.min_win_rate, "no paired rounds"));
    }
  }
  if (t.min_logic_speedup) {
    if (w.kind == "serve") {
      // A server's requests are its work after start-up already; its logic column shows
      // time-to-ready, which is a different figure and not what this threshold promises.
      checks.push_back(SkippedCheck(w.name, "min_logic_speedup", "startup-adjusted speedup", *t.min_logic_speedup,
                                    "a serve workload's latency is already measured after start-up"));
    } else if (c.logic_speedup_cs) {
      checks.push_back(SequentialCheck(w, "min_logic_speedup", "startup-adjusted speedup", *c.logic_speedup_cs,
                                       *t.min_logic_speedup, true, Check::Burden::kShowMet, std::nullopt));
    } else {
      checks.push_back(SkippedCheck(w.name, "min_logic_speedup", "startup-adjusted speedup", *t.min_logic_speedup,
                                    c.logic_note.empty() ? "no startup-adjusted figure" : c.logic_note));
    }
  }
  if (t.max_slowdown) {
    if (c.cpu_ratio_cs) {
      // Fail only when the regression is shown: noise alone cannot push the whole sequence
      // above the tolerance at the chosen confidence, however many rounds are looked at.
      checks.push_back(SequentialCheck(w, "max_slowdown", "paired CPU-time ratio", *c.cpu_ratio_cs, *t.max_slowdown,
                                       false, Check::Burden::kShowMissed, c.cpu_rounds_needed));
    } else {
      checks.push_back(SkippedCheck(w.name, "max_slowdown", "paired CPU-time ratio", *t.max_slowdown,
                                    "no CPU time: no paired rounds reported any"));
    }
  }
  if (t.max_rss_ratio) {
    if (c.rss_ratio) {
      checks.push_back(MakeCheck(w.name, "max_rss_ratio", "peak RSS ratio", *c.rss_ratio, *t.max_rss_ratio, false));
    } else {
      checks.push_back(SkippedCheck(w.name, "max_rss_ratio", "peak RSS ratio", *t.max_rss_ratio, "the baseline reported no peak RSS"));
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
  c.state = c.passed ? Check::State::kPass : Check::State::kFail;
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
  const bool missed = !c.passed || c.state == Check::State::kFail;
  // Enough digits that a miss never prints as equal to its bar ("0.997x", not "1.00x").
  int digits = 2;
  while (missed && !c.skipped && !is_rate && digits < 6 &&
         fmt::format("{:.{}f}", c.measured, digits) == fmt::format("{:.{}f}", c.bar, digits)) {
    ++digits;
  }
  auto format = [&](double x) {
    if (std::isinf(x)) return std::string(x > 0 ? "unbounded" : "-unbounded");
    return is_rate ? Percent(x) : is_plain ? fmt::format("{:.{}f}", x, digits) : fmt::format("{:.{}f}x", x, digits);
  };
  const std::string measured = format(c.measured);
  const std::string bar = format(c.bar);
  const std::string allowed = c.higher_is_better ? "required" : "allowed";
  if (c.skipped) return fmt::format("{}: {} not checked against {}: {}", c.workload, c.label, bar, c.note);
  std::vector<std::string> details;
  if (c.interval) {
    details.push_back(fmt::format("{:.0f}% confidence sequence {} to {}, {} rounds", 100 * c.interval->level,
                                  format(c.interval->low), format(c.interval->high), c.rounds));
  }
  if (!c.note.empty()) details.push_back(c.note);
  const std::string detail = details.empty() ? "" : fmt::format(" ({})", fmt::join(details, "; "));
  if (c.state == Check::State::kUnresolved) {
    const std::string need = c.rounds_needed ? fmt::format("about {} rounds would resolve it", *c.rounds_needed)
                                             : "no number of rounds would resolve it at this spread";
    if (c.burden == Check::Burden::kShowMissed) {
      return fmt::format("{}: {} {}{} is unresolved against the {} {}: a regression is not shown, so it passes; {}",
                         c.workload, c.label, measured, detail, allowed, bar, need);
    }
    return fmt::format("{}: {} {}{} is not shown to meet the {} {}: unresolved; {}", c.workload, c.label, measured,
                       detail, allowed, bar, need);
  }
  const std::string shown = c.burden == Check::Burden::kPoint ? "" : "shown ";
  if (c.passed) {
    return fmt::format("{}: {} {}{} {} the {} {}", c.workload, c.label, measured, detail,
                       c.burden == Check::Burden::kPoint ? "meets" : "is shown to meet", allowed, bar);
  }
  std::string margin;
  if (is_rate) {
    margin = fmt::format("short by {:.0f} points", 100 * (c.bar - c.measured));
  } else if (c.higher_is_better) {
    margin = "short by " + MarginPercent(100 * (c.bar - c.measured) / c.bar);
  } else {
    margin = "over by " + MarginPercent(100 * (c.measured - c.bar) / c.bar);
  }
  return fmt::format("{}: {} {}{} is {}{} the {} {} ({})", c.workload, c.label, measured, detail, shown,
                     c.higher_is_better ? "below" : "above", allowed, bar, margin);
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
  // A gated workload with thresholds and nothing measured is a failed run, never a pass.
  for (const WorkloadResult& w : result.workloads) {
    if (w.gate && !w.startup && !w.comparison && AnyThreshold(w.thresholds)) {
      v.lines.push_back(fmt::format("{}: no measured rounds to check its thresholds against", w.name));
      v.exit = ExitCode::kRunFailed;
    }
  }
  if (v.exit == ExitCode::kRunFailed) return v;
  for (const WorkloadResult& w : result.workloads) {
    if (w.gate && w.comparison) CheckWorkload(w, v.checks);
  }
  for (const SweepResult& sweep : result.sweeps) CheckSweep(result, sweep, v.checks);
  for (const Check& c : v.checks) {
    if (!c.passed) {
      v.lines.push_back(CheckLine(c));
      v.exit = ExitCode::kThresholdMissed;
    } else if (c.state == Check::State::kUnresolved) {
      v.notes.push_back(CheckLine(c));
    }
  }
  AddNotes(result, v);
  return v;
}

}  // namespace pe::gate
