// Splitting a run across machines: `perfengine run SPEC --shard K/N` runs one N-th of the
// workloads (sweep points count as workloads), and `perfengine merge` puts the shards back
// together (engine/merge/). docs/ci.md shows it on CI matrices.
#pragma once

#include <string>
#include <vector>

namespace pe::run {

struct Shard {
  int index = 1;  // 1-based, as CI matrices and Slurm array indices usually count
  int count = 1;
};

// Parses "K/N" with 1 <= K <= N. Throws base::UsageError, e.g.
// "--shard: '5/4' must be K/N with 1 <= K <= N".
Shard ParseShard(const std::string& text);

// The names shard `shard` runs, in the order given. Round-robin over the names sorted
// bytewise: shard K takes sorted names K-1, K-1+N, K-1+2N, ... Sorting makes the split
// independent of the order in the spec file; round-robin keeps shard sizes within one of each
// other (a hash of the name would keep a workload on its shard when others are added, but can
// leave one shard with twice the work of another, or none, on the few workloads a spec has).
// Neighbouring points of one sweep sort next to each other and so land on different shards.
std::vector<std::string> ShardNames(const std::vector<std::string>& names, const Shard& shard);

}  // namespace pe::run
