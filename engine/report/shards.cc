#include "engine/report/shards.h"

#include <fmt/format.h>

namespace pe::report {

using model::MachineInfo;
using model::RunResult;
using model::ShardInfo;

std::vector<std::string> ShardLines(const RunResult& result) {
  std::vector<std::string> lines;
  for (const ShardInfo& s : result.shards) {
    const MachineInfo& m = s.machine;
    lines.push_back(fmt::format("shard {} of {}: {} of {} workload{} on {} ({}, {}, {} core{}), started {}", s.index,
                                s.count, s.workloads.size(), s.selection.size(), s.selection.size() == 1 ? "" : "s",
                                m.hostname, m.os, m.cpu, m.cores, m.cores == 1 ? "" : "s", s.started_at));
  }
  return lines;
}

}  // namespace pe::report
