#include "engine/merge/consistency.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace pe::merge {

using model::RunResult;
using model::Sample;
using model::WorkloadResult;

namespace {

struct Runs {
  std::set<int> rounds;  // timed samples, warm-ups included
  int rss_only = 0;
};

std::string WorkloadProblem(const RunResult& r, const WorkloadResult& w) {
  const int warmup = r.settings.warmup_rounds;
  const int most = warmup + std::max(r.settings.rounds, r.settings.max_rounds);
  std::map<std::string, Runs> runs;
  for (const auto& c : r.contenders) runs[c.name];
  for (const Sample& s : w.samples) {
    auto it = runs.find(s.contender);
    if (it == runs.end()) return fmt::format("a sample of '{}', which is not a contender of the run", s.contender);
    if (s.rss_only) {
      ++it->second.rss_only;
      continue;
    }
    if (s.round < 0 || s.round >= most) {
      return fmt::format("'{}' has a sample in round {}, outside the {} round{} the settings allow", s.contender,
                         s.round, most, most == 1 ? "" : "s");
    }
    if (s.warmup != (s.round < warmup)) {
      return fmt::format("'{}' has round {} marked as {}, but the settings have {} warm-up round{}", s.contender,
                         s.round, s.warmup ? "a warm-up" : "measured", warmup, warmup == 1 ? "" : "s");
    }
    if (!it->second.rounds.insert(s.round).second) {
      return fmt::format("'{}' has two samples in round {}", s.contender, s.round);
    }
  }
  // Pairing: every contender ran in exactly the rounds the first one did.
  const auto& [first, first_runs] = *std::find_if(
      runs.begin(), runs.end(), [&](const auto& entry) { return entry.first == r.contenders.front().name; });
  for (const auto& [name, own] : runs) {
    for (int round : first_runs.rounds) {
      if (!own.rounds.count(round)) {
        return fmt::format("'{}' has no sample in round {}, which '{}' has", name, round, first);
      }
    }
    for (int round : own.rounds) {
      if (!first_runs.rounds.count(round)) {
        return fmt::format("'{}' has no sample in round {}, which '{}' has", first, round, name);
      }
    }
  }
  // Every workload runs in the first warmup + rounds rounds; later ones only while one of its
  // checks is unresolved (engine/run), which can leave gaps there but not before.
  const int measured = static_cast<int>(
      std::count_if(first_runs.rounds.begin(), first_runs.rounds.end(), [&](int round) { return round >= warmup; }));
  if (measured < r.settings.rounds) {
    return fmt::format("'{}' has {} measured round{}, fewer than the {} the settings say", first, measured,
                       measured == 1 ? "" : "s", r.settings.rounds);
  }
  for (int round = 0; round < warmup + r.settings.rounds; ++round) {
    if (!first_runs.rounds.count(round)) return fmt::format("no contender has a sample in round {}", round);
  }
  if (w.kind == WorkloadResult::Kind::kProcess) {
    for (const auto& [name, own] : runs) {
      if (own.rss_only != w.thresholds.rss_runs) {
        return fmt::format("'{}' has {} RSS-only run{}, not the {} its thresholds say", name, own.rss_only,
                           own.rss_only == 1 ? "" : "s", w.thresholds.rss_runs);
      }
    }
  }
  return "";
}

}  // namespace

std::string SamplesProblem(const RunResult& result) {
  if (result.contenders.empty()) return "it names no contenders";
  for (const WorkloadResult& w : result.workloads) {
    if (!w.failures.empty()) continue;  // a failed workload fails the run whatever its samples
    if (const std::string problem = WorkloadProblem(result, w); !problem.empty()) {
      return fmt::format("workload '{}': {}", w.name, problem);
    }
  }
  return "";
}

}  // namespace pe::merge
