#include "engine/report/confidence_lines.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/threshold_table.h"
#include "engine/units/units.h"
#include "stats/detectable.h"
#include "stats/error.h"
#include "stats/sequential.h"

namespace pe::report {

using model::Check;
using model::RunResult;
using model::WorkloadResult;

namespace {

// A relative change with the digits a small one needs: "3.4%", "12%".
std::string ChangePercent(double fraction) {
  const double percent = 100 * fraction;
  return std::abs(percent) < 10 ? fmt::format("{:.1f}%", percent) : fmt::format("{:.0f}%", percent);
}

bool InFamily(const WorkloadResult& w) {
  if (!w.gate || w.startup) return false;
  if (model::SequentialChecks(w.thresholds) > 0) return true;
  for (const model::Counter& c : w.counters) {
    if (!c.exact && c.max_ratio) return true;
  }
  return false;
}

}  // namespace

std::string FamilyLine(const RunResult& result) {
  const model::Settings& s = result.settings;
  if (s.family_checks <= 0 || !(s.check_confidence > 0)) return "";
  std::string line = fmt::format(
      "confidence: {} for the whole verdict ([run] confidence), split across {} that read an interval: each at {} "
      "(union bound, docs/statistics.md)",
      units::FormatConfidence(s.confidence), units::FormatCount(s.family_checks, "check"),
      units::FormatConfidence(s.check_confidence));
  std::map<double, std::vector<std::string>> overrides;  // level -> workloads
  for (const WorkloadResult& w : result.workloads) {
    if (InFamily(w) && std::abs(w.thresholds.confidence - s.check_confidence) > 1e-12) {
      overrides[w.thresholds.confidence].push_back(w.name);
    }
  }
  for (const auto& [level, names] : overrides) {
    line += fmt::format("; per-check override (per_check_confidence) on {}: {}", fmt::join(names, ", "),
                        units::FormatConfidence(level));
  }
  if (s.family_confidence > 0 && std::abs(s.family_confidence - s.confidence) > 1e-12) {
    line += fmt::format("; with the overrides the checks hold together at {}",
                        units::FormatConfidence(s.family_confidence));
  }
  return line;
}

namespace {

// The rule for a figure "beyond anything meaningful" (docs/statistics.md, "Power in every
// report"): a check that could only have shown a change that doubles its figure beyond the bar.
// The figure is a normal-model extrapolation of the noise seen in a few rounds (stats/detectable.h);
// once it asks for a doubling it no longer measures the gate's reach, only that the rounds were
// too few or too noisy (a three-compressor run at 8 rounds said "a regression of 110907%"), and a
// gate exists for changes of a few percent to a few tens. So the line says that plainly, with
// the noise and the rounds that would show a change worth gating: 5% beyond the bar.
constexpr double kMeaningless = 2;
constexpr double kWorthGating = 1.05;
// Rounds beyond which "about N rounds" is no practical answer.
constexpr int kRoundsCap = 100000;

bool IsSweep(const Check& c) { return c.threshold == "max_cost_exponent" || c.threshold == "min_scaling_efficiency"; }

// A stats call for "about N rounds" that states nothing rather than throw on a figure without
// meaning (a hand-edited results file).
template <typename F>
std::optional<int> Try(F f) {
  try {
    return f();
  } catch (const stats::StatsError&) {
    return std::nullopt;
  }
}

std::string Rounds(std::optional<int> rounds) {
  return rounds ? fmt::format("about {}", units::FormatCount(*rounds, "round"))
                : fmt::format("more than {} rounds", kRoundsCap);
}

// "(noise 41% per round; about 60 rounds would show a regression of 6.1%)", with the first
// round a unanimous series resolves at when these rounds were fewer.
std::string NoiseAndRounds(const Check& c, const std::string& worth, std::optional<int> rounds) {
  std::string first;
  const std::optional<int> fewest = Try([&] { return stats::MinTrialsToExclude(0.5, c.interval->level); });
  if (fewest && c.rounds < *fewest)
    first = fmt::format("a unanimous series first resolves after {}; ", units::FormatCount(*fewest, "round"));
  return fmt::format("({}noise {} per round; {} would show {})", first, ChangePercent(std::exp(*c.noise) - 1),
                     Rounds(rounds), worth);
}

// A sweep check reads its figure's interval: what it would have shown beyond the bar (passed:
// the miss; unresolved: the figure that would have shown it met).
std::string SweepPowerLine(const Check& c, const std::string& level) {
  const bool exponent = c.threshold == "max_cost_exponent";
  auto figure = [&](double x) { return exponent ? units::FormatFixed(x, 2) : units::FormatPercent(x); };
  const double d = *c.detectable;
  const bool meaningless = !std::isfinite(d) || (exponent ? std::abs(d - c.bar) >= 1 : !(d > 0 && d <= 1));
  const std::string what = exponent ? "an exponent" : "an efficiency";
  if (meaningless) {
    return fmt::format(
        "{}: {}: {}could not have shown {} at any sensible {} at {} confidence: its interval ({}) is too wide; more "
        "rounds or more points on the axis would narrow it",
        c.workload, c.label, c.state == Check::State::kUnresolved ? "unresolved; " : "",
        c.state == Check::State::kUnresolved ? "it met" : "a miss", exponent ? "exponent" : "efficiency", level,
        c.note);
  }
  const bool up = d > c.bar;
  if (c.state == Check::State::kUnresolved) {
    return fmt::format("{}: {}: unresolved; would have shown it met at {} of {} or {} with 80% power at {} confidence",
                       c.workload, c.label, what, figure(d), up ? "more" : "less", level);
  }
  return fmt::format("{}: {}: would have shown a miss at {} of {} or {} with 80% power at {} confidence", c.workload,
                     c.label, what, figure(d), up ? "more" : "less", level);
}

// min_win_rate: what speed-up would have shown its win rate above the bar.
std::string WinRatePowerLine(const Check& c, const std::string& level, const std::string& rounds) {
  const std::string rate = units::FormatPercent(c.bar);
  if (c.detectable && std::isfinite(*c.detectable) && *c.detectable < kMeaningless) {
    return fmt::format(
        "{}: {}: unresolved; would have shown a win rate above {} for a speed-up of {} or more with 80% power at {} "
        "confidence in these {}",
        c.workload, c.label, rate, units::FormatRatio(*c.detectable), level, rounds);
  }
  return fmt::format(
      "{}: {}: unresolved; could not have shown a win rate above {} for a speed-up {} in these {} at {} confidence {}",
      c.workload, c.label, rate,
      c.detectable ? fmt::format("smaller than {}", units::FormatRatio(kMeaningless)) : std::string("of any size"),
      rounds, level,
      NoiseAndRounds(c, fmt::format("it for a speed-up of {}", units::FormatRatio(kWorthGating)), Try([&] {
                       return stats::RoundsToShowWins(*c.noise, std::log(kWorthGating), c.bar, c.interval->level,
                                                      kRoundsCap);
                     })));
}

}  // namespace

std::string PowerLine(const Check& c) {
  if (!c.interval || (!c.detectable && !c.noise)) return "";
  const std::string rounds = units::FormatCount(c.rounds, "round");
  const std::string level = units::FormatConfidence(c.interval->level);
  if (IsSweep(c)) return c.detectable ? SweepPowerLine(c, level) : "";
  if (!c.noise && !c.detectable) return "";
  // A proportion of rounds (min_win_rate): its own power line (the table's unit says which).
  if (const model::ThresholdRow* row = model::FindThresholdRow(c.threshold);
      row != nullptr && row->unit == Check::Unit::kRate) {
    return c.noise ? WinRatePowerLine(c, level, rounds) : "";
  }
  const bool regression = c.burden == Check::Burden::kShowMissed;
  const bool meaningful = c.detectable && std::isfinite(*c.detectable) && *c.detectable / c.bar < kMeaningless;
  if (meaningful || !c.noise) {
    if (!c.detectable) return "";
    if (regression && c.futile) {  // its figure is the final round's (gate.cc, AddDetectable)
      return fmt::format(
          "{}: {}: would have shown a regression of {} or more with 80% power at {} confidence by the run's last "
          "round, at the noise of its {}, which stopped for futility (docs/statistics.md, \"Stopping for futility\")",
          c.workload, c.label, ChangePercent(*c.detectable - 1), level, rounds);
    }
    if (regression) {
      return fmt::format(
          "{}: {}: would have shown a regression of {} or more with 80% power at {} confidence in these {}", c.workload,
          c.label, ChangePercent(*c.detectable - 1), level, rounds);
    }
    return fmt::format(
        "{}: {}: unresolved; would have shown a speed-up of {} or more with 80% power at {} confidence in "
        "these {}",
        c.workload, c.label, units::FormatRatio(*c.detectable), level, rounds);
  }
  // Beyond anything meaningful, or no shift of any size in these rounds: say so plainly.
  const double worth = c.bar * kWorthGating;
  const std::optional<int> needed =
      Try([&] { return stats::RoundsToShowShift(*c.noise, std::log(kWorthGating), c.interval->level, kRoundsCap); });
  const std::string size = c.detectable ? fmt::format("smaller than {}", units::FormatRatio(c.bar * kMeaningless))
                                        : std::string("of any size");
  if (regression) {
    return fmt::format("{}: {}: could not have shown a regression {} in these {} at {} confidence {}", c.workload,
                       c.label, size, rounds, level,
                       NoiseAndRounds(c, fmt::format("a regression of {}", ChangePercent(worth - 1)), needed));
  }
  return fmt::format("{}: {}: unresolved; could not have shown a speed-up {} in these {} at {} confidence {}",
                     c.workload, c.label, size, rounds, level,
                     NoiseAndRounds(c, fmt::format("a speed-up of {}", units::FormatRatio(worth)), needed));
}

std::vector<std::string> ReportNotes(const RunResult& result) {
  std::vector<std::string> notes;
  if (std::string family = FamilyLine(result); !family.empty()) notes.push_back(std::move(family));
  for (const Check& c : result.verdict.checks) {
    if (std::string power = PowerLine(c); !power.empty()) notes.push_back(std::move(power));
  }
  notes.insert(notes.end(), result.verdict.notes.begin(), result.verdict.notes.end());
  // What measuring a workload showed (a run without a sandbox); a serve workload's are with its
  // server's figures (ServeLines).
  for (const model::WorkloadResult& w : result.workloads) {
    if (w.kind == model::WorkloadResult::Kind::kServe) continue;
    for (const std::string& note : w.notes) notes.push_back(fmt::format("{}: {}", w.name, note));
  }
  return notes;
}

}  // namespace pe::report
