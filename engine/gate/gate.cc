#include "engine/gate/gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "engine/gate/candidates.h"
#include "engine/gate/unresolved.h"
#include "engine/model/count_ratio.h"
#include "engine/model/final_look.h"
#include "engine/model/scaling_bounds.h"
#include "engine/model/threshold_table.h"
#include "engine/units/units.h"
#include "stats/detectable.h"
#include "stats/error.h"

namespace pe::gate {

using model::AxisValue;
using model::Check;
using model::Comparison;
using model::ContenderSummary;
using model::ExitCode;
using model::Failure;
using model::Interval;
using model::RunResult;
using model::ScalingEfficiency;
using model::ScalingFit;
using model::SweepResult;
using model::Thresholds;
using model::Verdict;
using model::WorkloadResult;

namespace {

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
        return check.workload == w.name && check.state == Check::State::kUnresolved && !check.futile;
      });
      const bool futile = std::any_of(v.checks.begin(), v.checks.end(),
                                      [&](const Check& check) { return check.workload == w.name && check.futile; });
      const std::string rounds = fmt::format("{} round{}", c.rounds, c.rounds == 1 ? "" : "s");
      if (!open && futile) {
        v.notes.push_back(
            fmt::format("{}: every check resolved or stopped for futility after {} (between {} and {} "
                        "allowed)",
                        w.name, rounds, result.settings.rounds, result.settings.max_rounds));
      } else if (!open) {
        v.notes.push_back(fmt::format("{}: every check resolved after {} (between {} and {} allowed)", w.name, rounds,
                                      result.settings.rounds, result.settings.max_rounds));
      } else if (!result.rounds_stopped.empty()) {  // why: the run's own note below
        v.notes.push_back(fmt::format("{}: still unresolved after {} of up to {}; more could not change the exit code",
                                      w.name, rounds, result.settings.max_rounds));
      } else {
        v.notes.push_back(
            fmt::format("{}: still unresolved after {}, the most [run] max_rounds allows", w.name, rounds));
      }
    }
    for (const std::string& note : c.notes) v.notes.push_back(fmt::format("{}: {}", w.name, note));
  }
  if (!result.rounds_stopped.empty()) v.notes.push_back(result.rounds_stopped);
}

// What a sequential check could have seen (stats/detectable.h), where a reader needs it: a
// no-regression check that passed or stayed unresolved, a claim left unresolved. Nothing for a
// check without a noise figure (a file from before noise was recorded). The noise is kept with
// the figure, and alone when no shift of any size could have been shown in these rounds, so the
// report can say so plainly (report::PowerLine).
bool WantsDetectable(const Check& c) {
  if (!c.interval || c.state == Check::State::kFail) return false;
  return c.burden != Check::Burden::kShowMet || c.state == Check::State::kUnresolved;
}

// `final_round` > 0: max_slowdown under a final look (model/final_look.h), whose sequence runs at
// half the check's alpha every round and whose final round adds the Hodges-Lehmann interval at
// the other half: what it could have seen is the better of the two where both were read. A check
// stopped for futility ([run] futility) states what the run would have seen by its final round,
// at the noise of its rounds so far: that is the power the stop gave up only where the data lay
// well below the bar (docs/statistics.md, "Stopping for futility").
void AddDetectable(Check& c, std::optional<double> noise, int final_round = 0) {
  if (!noise || !WantsDetectable(c)) return;
  try {
    if (final_round > 0) {
      const double half = model::FinalLookLevel(c.interval->level);
      const int rounds = c.futile ? final_round : c.rounds;
      std::optional<double> seen = stats::DetectableRatioAbove(*noise, rounds, c.bar, half);
      if (rounds == final_round) {
        const std::optional<double> last = stats::SignedRankDetectableRatioAbove(*noise, rounds, c.bar, half);
        if (last && (!seen || *last < *seen)) seen = last;
      }
      c.detectable = seen;
    } else {
      c.detectable = stats::DetectableRatioAbove(*noise, c.rounds, c.bar, c.interval->level);
    }
    c.noise = noise;
  } catch (const stats::StatsError&) {
    c.detectable.reset();  // a level or noise without meaning states nothing
  }
}

// min_win_rate reads the proportion of rounds won; what it could have seen is the speed-up
// (of wall time, at its per-round noise) whose win probability would have shown the bar met.
void AddWinDetectable(Check& c, std::optional<double> wall_noise) {
  if (!wall_noise || !WantsDetectable(c)) return;
  try {
    c.detectable = stats::DetectableWinSpeedup(*wall_noise, c.rounds, c.bar, c.interval->level);
    c.noise = wall_noise;
  } catch (const stats::StatsError&) {
    c.detectable.reset();
  }
}

// A check that reads a confidence sequence: pass and fail must each be shown at the
// sequence's level; in between it is unresolved, which fails a claim that must be shown
// (kShowMet) and passes a check that fails only on a shown miss (kShowMissed).
Check SequentialCheck(const WorkloadResult& w, std::string threshold, std::string label, const Interval& cs, double bar,
                      bool higher_is_better, Check::Burden burden, std::optional<int> rounds_needed) {
  Check c = MakeCheck(w.name, std::move(threshold), std::move(label), cs.estimate, bar, higher_is_better);
  const bool met = higher_is_better ? cs.low >= bar : cs.high <= bar;
  const bool missed = higher_is_better ? cs.high < bar : cs.low > bar;
  c.state = met ? Check::State::kPass : missed ? Check::State::kFail : Check::State::kUnresolved;
  c.burden = burden;
  c.passed =
      c.state == Check::State::kPass || (c.state == Check::State::kUnresolved && burden == Check::Burden::kShowMissed);
  c.interval = cs;
  c.rounds = w.comparison ? w.comparison->rounds : 0;
  if (c.state == Check::State::kUnresolved) c.rounds_needed = rounds_needed;
  return c;
}

using B = Check::Burden;
using U = Check::Unit;
using model::kThresholdRows;
using model::ThresholdRow;

// The sweep thresholds (CheckSweep) and their units.
constexpr std::pair<std::string_view, Check::Unit> kSweepUnits[] = {
    {"max_cost_exponent", U::kNumber},
    {"min_scaling_efficiency", U::kRate},
};

std::string Wins(const Comparison& c) {
  return c.sign_test_p ? fmt::format("{} of {} rounds, sign test p = {:.3g}", c.wins, c.rounds, *c.sign_test_p)
                       : fmt::format("{} of {} rounds", c.wins, c.rounds);
}

std::string Missing(const ThresholdRow& row, const WorkloadResult& w) {
  if (row.missing_note && !(*w.comparison.*row.missing_note).empty()) return *w.comparison.*row.missing_note;
  if (row.needs_counts) return MeasureNote(w, std::string(row.missing));
  return std::string(row.missing);
}

bool AnyThreshold(const Thresholds& t) {
  return std::any_of(std::begin(kThresholdRows), std::end(kThresholdRows),
                     [&](const ThresholdRow& row) { return (t.*row.bar).has_value(); });
}

// A run's reading of one row: the figure the row names in the workload's paired comparison.
Check RowCheck(const ThresholdRow& row, const WorkloadResult& w, double bar, bool power, int final_round) {
  const Comparison& c = *w.comparison;
  const std::string key(row.key), label(row.label);
  if (row.after_startup && w.kind == WorkloadResult::Kind::kServe) {
    // A server's requests are its work after start-up already; its logic column shows
    // time-to-ready, which is a different figure and not what this threshold promises.
    return SkippedCheck(w.name, key, label, bar, "a serve workload's latency is already measured after start-up");
  }
  if (row.burden == B::kPoint) {
    const std::optional<double>& figure = c.*row.point;
    if (!figure) return SkippedCheck(w.name, key, label, bar, Missing(row, w));
    return MakeCheck(w.name, key, label, *figure, bar, row.higher_is_better);
  }
  const std::optional<Interval>& cs = c.*row.sequence;
  if (!cs) return SkippedCheck(w.name, key, label, bar, Missing(row, w));
  Check check = SequentialCheck(w, key, label, *cs, bar, row.higher_is_better, row.burden,
                                row.rounds_needed ? c.*row.rounds_needed : std::nullopt);
  if (row.shows_wins) check.note = Wins(c);
  if (row.bar == &Thresholds::max_slowdown && check.state == Check::State::kUnresolved && c.cpu_futility_chance) {
    check.futile = true;  // [run] futility: no round is added for it (engine/run/round_runner.cc)
    check.rounds_needed.reset();
  }
  if (!power) return check;
  if (row.noise) AddDetectable(check, c.*row.noise, row.bar == &Thresholds::max_slowdown ? final_round : 0);
  if (row.bar == &Thresholds::min_win_rate) AddWinDetectable(check, c.speedup_noise);
  return check;
}

// The checks of the counters a workload's contenders report (docs/counters.md), each under the
// key "counters.NAME": an exact counter reads its ratio of medians as a point row does
// (max_allocations_ratio), a noisy one its confidence sequence as max_slowdown does.
std::vector<Check> CounterChecks(const WorkloadResult& w, bool power) {
  std::vector<Check> checks;
  for (const model::Counter& counter : w.counters) {
    if (!counter.max_ratio) continue;
    const std::string key = fmt::format("{}.{}", model::kCountersKey, counter.name);
    const std::string label = fmt::format("{} ratio", counter.name);
    const double bar = *counter.max_ratio;
    const auto found = std::find_if(w.comparison->counters.begin(), w.comparison->counters.end(),
                                    [&](const model::CounterComparison& c) { return c.name == counter.name; });
    if (found == w.comparison->counters.end()) {
      checks.push_back(SkippedCheck(w.name, key, label, bar, "not compared"));
      continue;
    }
    const model::CounterComparison& cc = *found;
    const std::string medians =
        fmt::format("candidate {} {}, baseline {} {}", cc.candidate, counter.unit, cc.baseline, counter.unit);
    if (counter.exact && cc.ratio) {
      // Growth from 0 has no finite ratio (model::CountRatio): the line gives both counts.
      const std::string counts =
          model::GrewFromZero(*cc.ratio)
              ? fmt::format("grew from {} to {} {}, baseline to candidate", cc.baseline, cc.candidate, counter.unit)
              : medians;
      Check check = MakeCheck(w.name, key, label, *cc.ratio, bar, false, counts);
      if (!cc.note.empty()) check.note += "; " + cc.note;
      checks.push_back(std::move(check));
    } else if (!counter.exact && cc.ratio_cs) {
      Check check =
          SequentialCheck(w, key, label, *cc.ratio_cs, bar, false, Check::Burden::kShowMissed, cc.rounds_needed);
      check.note = medians;
      if (power) AddDetectable(check, cc.noise);
      checks.push_back(std::move(check));
    } else {
      checks.push_back(SkippedCheck(w.name, key, label, bar, cc.note.empty() ? "no ratio" : cc.note));
    }
  }
  return checks;
}

std::string Configuration(const std::vector<AxisValue>& fixed) {
  std::vector<std::string> parts;
  for (const AxisValue& v : fixed) parts.push_back(v.axis + "=" + v.value);
  return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", "));
}

// A sweep check reads its figure's interval with the burden of a claim: it passes only when
// the whole interval is within the bar, fails only when the whole interval is beyond it, and
// is unresolved (counted against the run, exit 3) otherwise, or when there is no interval.
Check IntervalCheck(std::string name, std::string threshold, std::string label, double estimate, double low,
                    double high, double level, double bar, bool higher_is_better, const std::string& why_none) {
  Check c = MakeCheck(std::move(name), std::move(threshold), std::move(label), estimate, bar, higher_is_better);
  c.burden = Check::Burden::kShowMet;
  if (std::isnan(low) || std::isnan(high)) {
    c.state = Check::State::kUnresolved;
    c.passed = false;
    c.note = why_none.empty() ? "no interval to show it with" : why_none;
    return c;
  }
  const bool met = higher_is_better ? low >= bar : high <= bar;
  const bool missed = higher_is_better ? high < bar : low > bar;
  c.state = met ? Check::State::kPass : missed ? Check::State::kFail : Check::State::kUnresolved;
  c.passed = met;
  c.interval = Interval{estimate, low, high, level, "the sweep figure's own interval"};
  // What it could have seen (docs/statistics.md): passed, the figure beyond the bar that would
  // have failed it; unresolved, the figure on the good side that would have passed it.
  if (c.state != Check::State::kFail) {
    try {
      const bool above = (c.state == Check::State::kPass) != higher_is_better;
      c.detectable = stats::DetectableBeyondInterval(estimate, low, high, level, bar, above);
    } catch (const stats::StatsError&) {
      c.detectable.reset();
    }
  }
  c.note = c.unit == Check::Unit::kRate ? fmt::format("{} interval {} to {}", units::FormatConfidence(level),
                                                      units::FormatPercent(low), units::FormatPercent(high))
                                        : fmt::format("{} interval {} to {}", units::FormatConfidence(level),
                                                      units::FormatFixed(low, 2), units::FormatFixed(high, 2));
  return c;
}

// Why a sweep figure means nothing (engine/model/scaling_bounds.h), as the check's note: "no
// scaling law fits these points (its 95% interval for k, -1.17 to 5.19, is wider than 1.0)".
std::string WhyTooWide(const std::string& threshold, double low, double high, double level,
                       const std::string& fit_note) {
  if (threshold == "max_cost_exponent") {
    if (!std::isfinite(low) || !std::isfinite(high)) {
      return fmt::format("no scaling law fits these points ({})", fit_note.empty() ? "no interval for k" : fit_note);
    }
    return fmt::format("no scaling law fits these points (its {} interval for k, {} to {}, is wider than {})",
                       units::FormatConfidence(level), units::FormatFixed(low, 2), units::FormatFixed(high, 2),
                       units::FormatFixed(model::kMaxExponentIntervalWidth, 1));
  }
  return fmt::format(
      "no scaling efficiency can be read from these rounds (its {} interval, {} to {}, is wider than {})",
      units::FormatConfidence(level), units::FormatPercent(low), units::FormatPercent(high),
      units::FormatPoints(model::kMaxEfficiencyIntervalWidth));
}

// A sweep check whose figure means nothing: unresolved whatever the bar (a law that does not fit
// the points is not shown within any bar), its numbers kept for the results file, its note why.
Check CannotJudge(std::string name, std::string threshold, std::string label, double estimate, double low, double high,
                  double level, double bar, bool higher_is_better, const std::string& fit_note) {
  Check c = MakeCheck(std::move(name), threshold, std::move(label), estimate, bar, higher_is_better);
  c.burden = Check::Burden::kShowMet;
  c.state = Check::State::kUnresolved;
  c.passed = false;
  if (std::isfinite(low) && std::isfinite(high)) {
    c.interval = Interval{estimate, low, high, level, "the sweep figure's own interval"};
  }
  c.note = WhyTooWide(threshold, low, high, level, fit_note);
  return c;
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
      if (model::NoScalingLaw(fit)) {
        checks.push_back(CannotJudge(sweep.name, "max_cost_exponent", label, fit.exponent, fit.low, fit.high, fit.level,
                                     *sweep.max_cost_exponent, false, fit.note));
        continue;
      }
      checks.push_back(IntervalCheck(sweep.name, "max_cost_exponent", label, fit.exponent, fit.low, fit.high, fit.level,
                                     *sweep.max_cost_exponent, false, fit.note));
    }
  }
  if (sweep.min_scaling_efficiency) {
    bool found = false;
    for (const ScalingEfficiency& e : sweep.efficiencies) {
      if (e.contender != run.candidate || e.threads != sweep.efficiency_threads) continue;
      found = true;
      const double nan = std::numeric_limits<double>::quiet_NaN();
      const std::string label = fmt::format("median per-round scaling efficiency of {} at {} threads{}", e.contender,
                                            e.threads, Configuration(e.fixed));
      if (e.interval &&
          model::TooWideToMeanAnything(e.interval->low, e.interval->high, model::kMaxEfficiencyIntervalWidth)) {
        checks.push_back(CannotJudge(sweep.name, "min_scaling_efficiency", label, e.interval->estimate, e.interval->low,
                                     e.interval->high, e.interval->level, *sweep.min_scaling_efficiency, true, ""));
        continue;
      }
      checks.push_back(IntervalCheck(sweep.name, "min_scaling_efficiency", label,
                                     e.interval ? e.interval->estimate : e.efficiency,
                                     e.interval ? e.interval->low : nan, e.interval ? e.interval->high : nan,
                                     e.interval ? e.interval->level : 0.95, *sweep.min_scaling_efficiency, true,
                                     "no round measured both the 1-thread and this point"));
    }
    if (!found) {
      checks.push_back(SkippedCheck(sweep.name, "min_scaling_efficiency", "scaling efficiency",
                                    *sweep.min_scaling_efficiency, "no 1-thread point to compare with"));
    }
  }
}

}  // namespace

bool TooWideToJudge(const Check& c) {
  if (c.skipped || c.state != Check::State::kUnresolved) return false;
  if (c.threshold == "max_cost_exponent") {
    return !c.interval ||
           model::TooWideToMeanAnything(c.interval->low, c.interval->high, model::kMaxExponentIntervalWidth);
  }
  return c.threshold == "min_scaling_efficiency" && c.interval &&
         model::TooWideToMeanAnything(c.interval->low, c.interval->high, model::kMaxEfficiencyIntervalWidth);
}

Check MakeCheck(std::string workload, std::string threshold, std::string label, double measured, double bar,
                bool higher_is_better, std::string note) {
  Check c;
  c.workload = std::move(workload);
  c.threshold = std::move(threshold);
  c.label = std::move(label);
  c.measured = measured;
  c.bar = bar;
  c.unit = UnitOf(c.threshold);
  c.higher_is_better = higher_is_better;
  c.passed = higher_is_better ? measured >= bar : measured <= bar;
  c.state = c.passed ? Check::State::kPass : Check::State::kFail;
  c.note = std::move(note);
  return c;
}

std::vector<Check> CheckThresholds(const std::string& workload, const Thresholds& thresholds, const ReadRow& read) {
  std::vector<Check> checks;
  for (const ThresholdRow& row : kThresholdRows) {
    const std::optional<double>& bar = thresholds.*row.bar;
    if (!bar) continue;
    std::optional<Check> check = read(row, *bar);
    checks.push_back(check ? std::move(*check)
                           : SkippedCheck(workload, std::string(row.key), std::string(row.label), *bar,
                                          "not evaluated here: nothing in these results can judge it"));
  }
  return checks;
}

Check SkippedCheck(std::string workload, std::string threshold, std::string label, double bar, std::string note) {
  Check c;
  c.workload = std::move(workload);
  c.threshold = std::move(threshold);
  c.label = std::move(label);
  c.unit = UnitOf(c.threshold);
  c.bar = bar;
  c.skipped = true;
  c.passed = true;
  c.note = std::move(note);
  return c;
}

namespace {
// "6%", or "0.3%" where a whole number would say a miss was no miss at all.
// A check that reads a ratio of two counts (model::CountRatio), whose growth from 0 is unbounded:
// a row of the threshold table that reads a count, or a counter.
bool IsCountRatio(std::string_view threshold) {
  const model::ThresholdRow* row = model::FindThresholdRow(threshold);
  return (row != nullptr && row->needs_counts) || threshold.starts_with(std::string(model::kCountersKey) + ".");
}

// Under 1% with a decimal, so a small margin never prints as "0%".
std::string MarginPercent(double fraction) { return units::FormatPercentFixed(fraction, fraction < 0.01 ? 1 : 0); }
}  // namespace

Check::Unit UnitOf(std::string_view threshold) {
  if (const ThresholdRow* row = model::FindThresholdRow(threshold)) return row->unit;
  for (const auto& [key, unit] : kSweepUnits) {
    if (key == threshold) return unit;
  }
  return Check::Unit::kRatio;
}

bool ProfileExplains(const Check& check) {
  const ThresholdRow* row = model::FindThresholdRow(check.threshold);
  return row && row->profile_explains;
}

bool MissIsSettled(const Check& check) {
  if (check.passed || check.state != Check::State::kFail || check.skipped) return false;
  if (check.burden != Check::Burden::kPoint) return true;                                 // shown by its sequence
  if (check.threshold.starts_with(fmt::format("{}.", model::kCountersKey))) return true;  // an exact counter
  const ThresholdRow* row = model::FindThresholdRow(check.threshold);
  return row && !row->count.empty();
}

std::string CheckLine(const Check& c) {
  // A further candidate's check names it beside the workload: "compress (lz4): ...".
  const std::string where = c.contender.empty() ? c.workload : fmt::format("{} ({})", c.workload, c.contender);
  const bool is_rate = c.unit == Check::Unit::kRate;
  const bool is_plain = c.unit == Check::Unit::kNumber;
  const bool missed = !c.passed || c.state == Check::State::kFail;
  // Each figure prints with its unit's decimals, the bar with as many as the spec wrote it
  // with ("1.005x"); `extra` raises them all until a miss never prints as equal to its bar
  // ("0.997x is below the required 1.000x", not "1.00x ... 1.00x").
  int extra = 0;
  auto own = [&](double x) { return is_plain ? 2 : units::RatioDecimals(x); };
  auto text = [&](double x, int decimals) {
    if (std::isinf(x)) return std::string(x > 0 ? "unbounded" : "-unbounded");
    if (is_rate) return units::FormatPercent(x);
    decimals = std::max(decimals, extra);
    return is_plain ? units::FormatFixed(x, decimals) : units::FormatRatio(x, decimals);
  };
  const int bar_decimals = units::DecimalsToShow(c.bar, own(c.bar));
  // A miss prints its figures with at least the bar's decimals, so they compare digit by digit.
  auto format = [&](double x) { return text(x, missed ? std::max(own(x), bar_decimals) : own(x)); };
  while (missed && !c.skipped && !is_rate && extra < 6 && format(c.measured) == text(c.bar, bar_decimals)) {
    extra = std::max({extra, own(c.measured), bar_decimals}) + 1;
  }
  const std::string measured = format(c.measured);
  const std::string bar = text(c.bar, bar_decimals);
  const std::string allowed = c.higher_is_better ? "required" : "allowed";
  if (c.skipped) return fmt::format("{}: {} not checked against {}: {}", where, c.label, bar, c.note);
  // A figure that means nothing is not printed as if it did: the note says why it cannot judge.
  if (TooWideToJudge(c)) {
    return fmt::format(
        "{}: {}: {}, so it cannot be judged against the {} {}: unresolved; more rounds or more points "
        "on the axis would narrow its interval",
        where, c.label, c.note, allowed, bar);
  }
  std::vector<std::string> details;
  const bool sweep = std::any_of(std::begin(kSweepUnits), std::end(kSweepUnits),
                                 [&](const auto& s) { return s.first == c.threshold; });
  if (c.interval && !sweep) {  // a sweep check's note names its interval
    details.push_back(
        fmt::format("{} {} {} to {}, {}", units::FormatConfidence(c.interval->level),
                    model::FromFinalLook(*c.interval) ? "interval (confidence sequence and signed-rank final look)"
                                                      : "confidence sequence",
                    format(c.interval->low), format(c.interval->high), units::FormatCount(c.rounds, "round")));
  }
  if (!c.note.empty()) details.push_back(c.note);
  const std::string detail = details.empty() ? "" : fmt::format(" ({})", fmt::join(details, "; "));
  if (c.state == Check::State::kUnresolved) {
    const std::string need =
        sweep             ? "more rounds or more points on the axis would narrow its interval"
        : c.futile        ? "its rounds stopped for futility, as its final look could not have shown a regression"
        : c.rounds_needed ? fmt::format("about {} would resolve it", units::FormatCount(*c.rounds_needed, "round"))
                          : "no number of rounds would resolve it at this spread";
    if (c.burden == Check::Burden::kShowMissed) {
      return fmt::format("{}: {} {}{} is unresolved against the {} {}: a regression is not shown, so it passes; {}",
                         where, c.label, measured, detail, allowed, bar, need);
    }
    return fmt::format("{}: {} {}{} is not shown to meet the {} {}: unresolved; {}", where, c.label, measured, detail,
                       allowed, bar, need);
  }
  const std::string shown = c.burden == Check::Burden::kPoint ? "" : "shown ";
  if (c.passed) {
    return fmt::format("{}: {} {}{} {} the {} {}", where, c.label, measured, detail,
                       c.burden == Check::Burden::kPoint ? "meets" : "is shown to meet", allowed, bar);
  }
  std::string margin;
  if (is_rate) {
    margin = "short by " + units::FormatPoints(c.bar - c.measured);
  } else if (c.higher_is_better) {
    margin = "short by " + MarginPercent((c.bar - c.measured) / c.bar);
  } else if (model::GrewFromZero(c.measured) && IsCountRatio(c.threshold)) {
    margin = "growth from 0 fails any ratio bar";
  } else {
    margin = "over by " + MarginPercent((c.measured - c.bar) / c.bar);
  }
  return fmt::format("{}: {} {}{} is {}{} the {} {} ({})", where, c.label, measured, detail, shown,
                     c.higher_is_better ? "below" : "above", allowed, bar, margin);
}

void Accept(Verdict& verdict, const std::string& accepted_by) {
  if (verdict.exit != ExitCode::kThresholdMissed) return;
  // Accepting a miss accepts only the miss: a claim left unresolved beside it still makes the
  // run exit 3 (docs/exit-codes.md), never a pass.
  verdict.exit = CountUnresolved(verdict) > 0 ? ExitCode::kUnresolved : ExitCode::kPass;
  verdict.accepted = true;
  verdict.accepted_by = accepted_by;
}

std::string FailureLine(const Failure& f) {
  std::string line = f.workload.empty() ? "" : f.workload + ": ";
  if (!f.contender.empty()) line += fmt::format("contender '{}' ", f.contender);
  return line + f.message;
}

Verdict Judge(const RunResult& result, const JudgeOptions& options) {
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
    if (!w.gate || !w.comparison) continue;
    std::vector<Check> checks = CheckThresholds(w.name, w.thresholds, [&](const ThresholdRow& row, double bar) {
      return RowCheck(row, w, bar, options.power, model::FinalLookRound(result.settings));
    });
    v.checks.insert(v.checks.end(), checks.begin(), checks.end());
    const std::vector<Check> counters = CounterChecks(w, options.power);
    v.checks.insert(v.checks.end(), counters.begin(), counters.end());
    // A third contender and beyond: the same rows against the baseline, each check naming it.
    for (const CandidateView& other : FurtherCandidates(result, w)) {
      std::vector<Check> more = CheckThresholds(w.name, w.thresholds, [&](const ThresholdRow& row, double bar) {
        return RowCheck(row, other.workload, bar, options.power, model::FinalLookRound(result.settings));
      });
      const std::vector<Check> more_counters = CounterChecks(other.workload, options.power);
      more.insert(more.end(), more_counters.begin(), more_counters.end());
      for (Check& c : more) c.contender = other.contender;
      v.checks.insert(v.checks.end(), more.begin(), more.end());
    }
  }
  for (const SweepResult& sweep : result.sweeps) CheckSweep(result, sweep, v.checks);
  // 1 (a check shown worse, or a point figure beyond its bar) outranks 3 (a claim that had to
  // be shown and was not): docs/exit-codes.md. Each open claim's line is followed by what it
  // would need.
  bool missed = false, open = false;
  for (const Check& c : v.checks) {
    if (!c.passed) {
      v.lines.push_back(CheckLine(c));
      if (c.state == Check::State::kUnresolved) {
        v.lines.push_back(UnresolvedAdvice(result, c));
        open = true;
      } else {
        missed = true;
      }
    } else if (c.state == Check::State::kUnresolved) {
      v.notes.push_back(CheckLine(c));
    }
  }
  if (missed) {
    v.exit = ExitCode::kThresholdMissed;
  } else if (open) {
    v.exit = ExitCode::kUnresolved;
  }
  AddNotes(result, v);
  return v;
}

}  // namespace pe::gate
