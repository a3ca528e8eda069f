#include "engine/report/confidence_lines.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/model/threshold_table.h"
#include "engine/units/units.h"

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

std::string PowerLine(const Check& c) {
  if (!c.detectable || !c.interval) return "";
  const std::string rounds = units::FormatCount(c.rounds, "round");
  const std::string level = units::FormatConfidence(c.interval->level);
  if (c.burden == Check::Burden::kShowMissed) {
    return fmt::format(
        "{}: {}: would have shown a regression of {} or more with 80% power at {} confidence in these {}", c.workload,
        c.label, ChangePercent(*c.detectable - 1), level, rounds);
  }
  return fmt::format(
      "{}: {}: unresolved; would have shown a speed-up of {} or more with 80% power at {} confidence in "
      "these {}",
      c.workload, c.label, units::FormatRatio(*c.detectable), level, rounds);
}

std::vector<std::string> ReportNotes(const RunResult& result) {
  std::vector<std::string> notes;
  if (std::string family = FamilyLine(result); !family.empty()) notes.push_back(std::move(family));
  for (const Check& c : result.verdict.checks) {
    if (std::string power = PowerLine(c); !power.empty()) notes.push_back(std::move(power));
  }
  notes.insert(notes.end(), result.verdict.notes.begin(), result.verdict.notes.end());
  return notes;
}

}  // namespace pe::report
