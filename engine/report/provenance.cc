#include "engine/report/provenance.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "engine/units/units.h"

namespace pe::report {

using model::ContenderInfo;
using model::RunResult;

namespace {

std::string Role(const RunResult& result, const ContenderInfo& c) {
  if (c.name == result.baseline) return "baseline";
  if (c.name == result.candidate) return "candidate";
  return "";
}

std::string ShortCommit(const std::string& commit) { return commit.substr(0, 12); }

// The argv as a reader would type it: words with spaces or quotes quoted.
std::string Command(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const std::string& a : argv) {
    words.push_back(a.find_first_of(" \t'\"") == std::string::npos && !a.empty() ? a : fmt::format("'{}'", a));
  }
  return fmt::format("{}", fmt::join(words, " "));
}

}  // namespace

std::string ContenderHeading(const RunResult& result, const ContenderInfo& c) {
  std::vector<std::string> about;
  const std::string role = Role(result, c);
  if (!role.empty() && role != c.name) about.push_back(role);
  if (!c.commit.empty()) {
    about.push_back(fmt::format("git {} @ {}{}", c.git, ShortCommit(c.commit), c.dirty ? ", dirty" : ""));
  }
  return about.empty() ? c.name : fmt::format("{} ({})", c.name, fmt::join(about, ", "));
}

std::string ContendersLine(const RunResult& result) {
  std::vector<const ContenderInfo*> order;
  for (const ContenderInfo& c : result.contenders) {
    if (c.name == result.baseline) order.insert(order.begin(), &c);
  }
  for (const ContenderInfo& c : result.contenders) {
    if (c.name != result.baseline) order.push_back(&c);
  }
  if (order.empty()) {  // a results file without its contenders: the two names it has
    return fmt::format("{} (baseline) against {} (candidate)", result.baseline, result.candidate);
  }
  std::vector<std::string> others;
  for (std::size_t i = 1; i < order.size(); ++i) others.push_back(ContenderHeading(result, *order[i]));
  if (others.empty()) return ContenderHeading(result, *order[0]);
  return fmt::format("{} against {}", ContenderHeading(result, *order[0]), fmt::join(others, ", "));
}

std::vector<std::string> RevisionLines(const RunResult& result) {
  std::vector<std::string> lines;
  for (const ContenderInfo& c : result.contenders) {
    const std::string role = Role(result, c);
    const std::string who = role.empty() ? fmt::format("'{}'", c.name) : fmt::format("{} '{}'", role, c.name);
    if (c.commit.empty()) {
      lines.push_back(
          fmt::format("{}: not built from git by perfengine (commit unknown); runs `{}`", who, Command(c.argv)));
      continue;
    }
    lines.push_back(
        fmt::format("{}: git ref {}, commit {}, {}, {}", who, c.git, c.commit,
                    c.dirty ? "dirty (the build changed tracked files)" : "clean worktree",
                    c.build.empty() ? "no build command" : fmt::format("built with `{}`", Command(c.build))));
  }
  return lines;
}

std::string FormatWallTime(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "n/a";
  if (seconds < 60) return units::FormatSeconds(seconds);
  const long long whole = std::llround(seconds);
  if (whole < 3600) return fmt::format("{} min {} s", whole / 60, whole % 60);
  return fmt::format("{} h {:02} min", whole / 3600, (whole % 3600) / 60);
}

std::string FormatRunnerMinutes(double seconds) {
  const double minutes = seconds / 60;
  // One decimal from a minute up; below it, enough decimals that a short run does not read as
  // costing nothing ("0.0"): a 2 s run is 0.033, not 0.0.
  return units::FormatFixed(minutes, minutes >= 1 ? 1 : minutes >= 0.1 ? 2 : 3);
}

std::string PhasesLine(const RunResult& result) {
  if (!result.phases) return "";
  const model::PhaseTimes& p = *result.phases;
  const double in_phases = p.build_s + p.fixtures_s + p.parity_s + p.measuring_s + p.analysis_s;
  std::string line = fmt::format("run time {}: ", FormatWallTime(p.total_s));
  // Builds happen only for contenders built from git: elsewhere the phase is a clock's tick.
  const bool built = std::any_of(result.contenders.begin(), result.contenders.end(),
                                 [](const ContenderInfo& c) { return !c.commit.empty(); });
  if (built) line += fmt::format("build {}, ", FormatWallTime(p.build_s));
  line += fmt::format("fixtures {}, parity {}, measuring {}, analysis {}", FormatWallTime(p.fixtures_s),
                      FormatWallTime(p.parity_s), FormatWallTime(p.measuring_s), FormatWallTime(p.analysis_s));
  if (p.total_s > in_phases) line += fmt::format(", other {}", FormatWallTime(p.total_s - in_phases));
  return line + fmt::format("; this verdict cost {} runner-minutes (one runner)", FormatRunnerMinutes(p.total_s));
}

}  // namespace pe::report
