#include "engine/explain/rounds.h"

#include <map>

namespace pe::explain {

using model::Measured;
using model::RunResult;
using model::Sample;
using model::WorkloadResult;

std::vector<RoundRow> RoundRows(const RunResult& result, const WorkloadResult& workload) {
  std::map<int, RoundRow> rows;  // ordered by round
  for (const Sample& s : workload.samples) {
    if (s.rss_only) continue;
    const bool is_baseline = s.contender == result.baseline;
    if (!is_baseline && s.contender != result.candidate) continue;
    RoundRow& row = rows[s.round];
    row.round = s.round;
    row.warmup = s.warmup;
    (is_baseline ? row.baseline_s : row.candidate_s) = s.wall_s;
    (is_baseline ? row.baseline_cpu_s : row.candidate_cpu_s) = s.user_s + s.sys_s;
    if (s.position == 0) row.first = s.contender;
  }
  // A process workload's time after start-up, round by round, as engine/analysis pairs them.
  const WorkloadResult* startup = StartupWorkload(result);
  if (!workload.startup && workload.kind == WorkloadResult::Kind::kProcess && startup != nullptr) {
    for (const Sample& s : startup->samples) {
      if (s.rss_only) continue;
      auto row = rows.find(s.round);
      if (row == rows.end()) continue;
      const bool is_baseline = s.contender == result.baseline;
      if (!is_baseline && s.contender != result.candidate) continue;
      const std::optional<double>& wall = is_baseline ? row->second.baseline_s : row->second.candidate_s;
      if (wall) (is_baseline ? row->second.baseline_logic_s : row->second.candidate_logic_s) = *wall - s.wall_s;
    }
  }
  std::vector<RoundRow> out;
  for (auto& [round, row] : rows) out.push_back(std::move(row));
  return out;
}

std::vector<double> MeasuredWalls(const WorkloadResult& workload, const std::string& contender) {
  std::vector<double> out;
  for (const Sample& s : workload.samples) {
    if (Measured(s) && s.contender == contender) out.push_back(s.wall_s);
  }
  return out;
}

std::vector<double> MeasuredRss(const WorkloadResult& workload, const std::string& contender) {
  std::vector<double> out;
  for (const Sample& s : workload.samples) {
    if (!s.warmup && s.contender == contender) out.push_back(static_cast<double>(s.max_rss_kib));
  }
  return out;
}

std::string Winner(const RunResult& result, const RoundRow& row) {
  if (!row.baseline_s || !row.candidate_s) return "-";
  if (*row.candidate_s < *row.baseline_s) return result.candidate;
  if (*row.baseline_s < *row.candidate_s) return result.baseline;
  return "tie";
}

const WorkloadResult* StartupWorkload(const RunResult& result) {
  for (const WorkloadResult& w : result.workloads) {
    if (w.startup) return &w;
  }
  return nullptr;
}

}  // namespace pe::explain
