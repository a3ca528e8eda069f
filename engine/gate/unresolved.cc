#include "engine/gate/unresolved.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/gate/gate.h"
#include "engine/units/units.h"

namespace pe::gate {

using model::Check;
using model::ExitCode;
using model::RoundLoad;
using model::RunResult;
using model::Verdict;

std::optional<UnresolvedPolicy> ParseUnresolvedPolicy(std::string_view text) {
  if (text == "exit3") return UnresolvedPolicy::kExit3;
  if (text == "fail") return UnresolvedPolicy::kFail;
  if (text == "pass") return UnresolvedPolicy::kPass;
  return std::nullopt;
}

namespace {

// "the machine was busy (load average up to 3.2 on 2 cores, other processes up to 40% of CPU
// time)", or "" when the run recorded no load or the machine was quiet (load below its cores).
std::string BusyMachine(const RunResult& result) {
  double load = 0, others = 0;
  bool any = false;
  for (const RoundLoad& r : result.load) {
    if (r.load_1m) load = std::max(load, *r.load_1m), any = true;
    if (r.others_share) others = std::max(others, *r.others_share), any = true;
  }
  if (!any) return "";
  const int cores = std::max(1, result.machine.cores);
  if (load < cores && others < 0.1) {
    return fmt::format("the machine was quiet (load average up to {} on {})", units::FormatFixed(load, 1),
                       units::FormatCount(cores, "core"));
  }
  return fmt::format(
      "the machine was busy (load average up to {} on {}, other processes up to {} of CPU time): a quieter runner "
      "narrows the spread",
      units::FormatFixed(load, 1), units::FormatCount(cores, "core"), units::FormatPercent(others));
}

std::string Bar(const Check& c) {
  if (c.unit == Check::Unit::kRate) return units::FormatPercent(c.bar);
  if (c.unit == Check::Unit::kNumber) return units::FormatFixed(c.bar, 2);
  return units::FormatRatio(c.bar, units::DecimalsToShow(c.bar, 2));
}

}  // namespace

std::string UnresolvedAdvice(const RunResult& result, const Check& c) {
  const int cap = std::max(result.settings.max_rounds, result.settings.rounds);
  std::string rounds;
  if (TooWideToJudge(c)) {
    rounds = fmt::format("its interval is too wide to judge after {}: raise rounds or add points to the sweep's axis",
                         units::FormatCount(cap, "round"));
  } else if (c.rounds == 0 && !c.rounds_needed) {
    rounds = fmt::format("its interval straddles the bar after {}: raise rounds or add points to the sweep's axis",
                         units::FormatCount(cap, "round"));
  } else if (c.rounds_needed) {
    rounds = *c.rounds_needed > cap
                 ? fmt::format("about {} would resolve it and [run] max_rounds is {}: raise max_rounds",
                               units::FormatCount(*c.rounds_needed, "round"), cap)
                 : fmt::format("about {} would resolve it (max_rounds {})",
                               units::FormatCount(*c.rounds_needed, "round"), cap);
  } else {
    rounds = fmt::format("no number of rounds would resolve it at this spread ({} run)",
                         units::FormatCount(c.rounds, "round"));
  }
  std::string line = fmt::format("{}: {} unresolved: {}", c.workload, c.threshold, rounds);
  if (std::string busy = BusyMachine(result); !busy.empty()) line += "; " + busy;
  return line + fmt::format("; or loosen {} (now {})", c.threshold, Bar(c));
}

std::string UnresolvedSummary(const Verdict& verdict, double confidence) {
  const int open = CountUnresolved(verdict);
  for (const Check& c : verdict.checks) {
    if (!c.passed && !c.skipped && c.state == Check::State::kUnresolved && c.interval) {
      confidence = c.interval->level;  // the checks' own confidence
      break;
    }
  }
  return fmt::format(
      "UNRESOLVED: {} could not be shown either way at {} confidence (exit 3; --unresolved=fail or pass to count "
      "{} otherwise)",
      units::FormatCount(open, "check"), units::FormatConfidence(confidence), open == 1 ? "it" : "them");
}

int CountUnresolved(const Verdict& verdict) {
  return static_cast<int>(std::count_if(verdict.checks.begin(), verdict.checks.end(), [](const Check& c) {
    return !c.passed && !c.skipped && c.state == Check::State::kUnresolved;
  }));
}

void ApplyUnresolvedPolicy(Verdict& verdict, UnresolvedPolicy policy, const std::string& by) {
  if (verdict.exit != ExitCode::kUnresolved || policy == UnresolvedPolicy::kExit3) return;
  const int open = CountUnresolved(verdict);
  if (policy == UnresolvedPolicy::kFail) {
    verdict.exit = ExitCode::kThresholdMissed;
    verdict.notes.push_back(
        fmt::format("{}: {} counted against the run (exit 1)", by, units::FormatCount(open, "unresolved check")));
    return;
  }
  verdict.exit = ExitCode::kPass;
  verdict.notes.push_back(fmt::format("{}: {} counted as passed", by, units::FormatCount(open, "unresolved check")));
}

}  // namespace pe::gate
