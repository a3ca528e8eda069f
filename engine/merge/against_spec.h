// `merge --spec SPEC`: what a shard says of its spec, held against the spec itself. A shard
// file's thresholds and gated flags are claims like its figures (a shard comes from a job that
// ran the pull request's code): one that drops a threshold or ungates a workload would merge
// as it says. Given the spec from the trusted side, merge refuses that.
#pragma once

#include <vector>

#include "engine/merge/merge.h"
#include "engine/spec/spec.h"

namespace pe::merge {

// Throws base::UsageError naming the file when a shard was not run from `spec` (another
// SHA-256, baseline or candidate), or records for a workload or sweep another gate flag,
// startup flag or thresholds than the spec gives it (e.g. "s2.json: workload 'bravo':
// thresholds are not spec.toml's: min_speedup none vs 1.0"). Settings are not compared:
// `run --rounds` and the like may override them on purpose.
void CheckAgainstSpec(const std::vector<ShardFile>& files, const spec::Spec& spec);

}  // namespace pe::merge
