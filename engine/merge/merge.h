// `perfengine merge`: the results files of `run --shard K/N` jobs back into one result and one
// verdict. A shard file is data from a job that ran the pull request's code: every figure is
// computed again from its samples (engine/analysis/, as `run` does), each workload with its own
// shard's startup workload (its rounds were paired on that machine); sweep-wide figures are
// fitted over every point, and the verdict is the gate's (engine/gate/gate.h) on the whole.
// docs/ci.md describes it.
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::merge {

struct ShardFile {
  std::string path;  // as the user named it, for messages
  model::RunResult result;
};

// Combines one results file per shard into the result one unsharded run would have had: the
// startup workload from shard 1 first (every shard runs its own; a failure in another shard's
// startup is kept, as a failure of the run), then each workload from its shard in run order.
// Throws base::UsageError, naming the files, when they are not shards of one run: different
// specs (digest), seeds or other settings, engine versions or contenders (commits included),
// different shard counts or selections, a shard given twice or missing, a workload in two
// shards or in none; a shard marked incomplete that records no failure, or was interrupted;
// samples a complete run cannot have left (engine/merge/consistency.h). Stored figures, checks
// and verdicts are never read. The verdict is filled; accepting a regression is left to the caller.
model::RunResult MergeShards(const std::vector<ShardFile>& files);

}  // namespace pe::merge
