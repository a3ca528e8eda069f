// The shards a result covers (`run --shard`, `merge`), one plain line each, for every reporter.
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::report {

// e.g. "shard 2 of 4: 3 of 11 workloads on ci-7 (Linux 6.1, AMD EPYC 7763, 4 cores), started
// 2026-12-03T08:00:00Z". Empty for an unsharded run. Text from the file is not escaped here.
std::vector<std::string> ShardLines(const model::RunResult& result);

}  // namespace pe::report
