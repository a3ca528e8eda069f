// Exact counts of worker benchmarks (issue 41, items 3 and 4; docs/workers.md, "Counts"): each
// contender's worker is started once under callgrind (instructions) and once with the
// allocation counter preloaded (allocations), and asked for a warm-up batch and a counted batch
// of every benchmark. The worker calls getppid() just before and just after each batch's loop
// (the protocol's markers): callgrind zeroes its counts and dumps them at each call
// (--zero-before=getppid --dump-before=getppid), the counter writes its running totals, so a
// batch's counts are its loop's alone, without the runtime's start or the protocol's reading
// and writing. Counts are the counted batch's, whose iterations are the same for every
// contender (CountedIterations of the shared batch size), so their ratios are exact; not
// divided per iteration, where rounding would blur a count of a few allocations.
// Not a public interface: use experiment.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/run/executor.h"
#include "engine/spec/spec.h"

namespace pe::run::internal {

struct WorkerCount {
  std::optional<std::uint64_t> instructions;           // of the counted batch
  std::vector<std::filesystem::path> callgrind_files;  // the counted batch's dump, for a profile
  std::optional<std::uint64_t> allocation_calls;       // of the counted batch
  std::optional<std::uint64_t> allocated_bytes;        // of the counted batch
  std::string note;                                    // why a count is missing
};

// The iterations of a counted batch for a measured batch of `iterations`: callgrind runs a
// program tens of times slower, so a fiftieth of it (at least one).
std::int64_t CountedIterations(std::int64_t iterations);

// The batch dumps of a callgrind run with the markers, numbered from 1: the dump at batch
// `index`'s (0-based) second marker, its loop's counts alone.
int CountedDump(int batch_index);

// The counts of every (workload, contender) asked for.
using WorkerCounts = std::map<std::pair<const spec::Workload*, const spec::Contender*>, WorkerCount>;

// The contenders' workers under callgrind, started side by side, one counted batch per workload
// and contender, the files in `out_dir` (kept for a profile). False with the failure recorded
// when a worker failed; a missing valgrind or a worker that did not call the markers as the
// protocol says is a note in each count instead.
bool CountWorkerInstructions(Executor& ex, const std::vector<const spec::Contender*>& contenders,
                             const std::vector<const spec::Workload*>& workloads, const std::filesystem::path& out_dir,
                             WorkerCounts& counts);

// The contenders' workers with the allocation counter preloaded, one counted batch per workload.
bool CountWorkerAllocations(Executor& ex, const std::vector<const spec::Contender*>& contenders,
                            const std::vector<const spec::Workload*>& workloads, const std::filesystem::path& out_dir,
                            WorkerCounts& counts);

// The profiles the contenders' workers report themselves ($PERFENGINE_PROFILE; docs/counters.md,
// "Profiles a contender reports", docs/workers.md "Profiles"): each contender's worker started for
// `w` alone, the variable naming a file in a folder of its own under `out_dir`, and asked for a
// warm-up batch and a counted batch, as for counts; `texts` gets each file as the counted batch
// left it, nullopt where the worker wrote none. False with the failure recorded when a worker failed.
bool ReportWorkerProfiles(Executor& ex, const std::vector<const spec::Contender*>& contenders, const spec::Workload& w,
                          const std::filesystem::path& out_dir,
                          std::map<std::string, std::optional<std::string>>& texts);

// The allocation counter's marks file: one line per getppid() call, "calls bytes" of the
// process's running totals. Each pair of lines is one batch. nullopt when a line is malformed.
std::optional<std::vector<std::pair<std::uint64_t, std::uint64_t>>> ParseAllocationMarks(const std::string& text);

}  // namespace pe::run::internal
