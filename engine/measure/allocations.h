// Exact allocation counts: the project's LD_PRELOAD interposer (libperfengine-alloccount.so)
// counts malloc-family calls and requested bytes in the contender and every dynamically
// linked child it starts. Unlike time, these counts do not vary from run to run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "engine/runner/process_runner.h"

namespace pe::measure {

inline constexpr const char* kAllocCountLibrary = "libperfengine-alloccount.so";
inline constexpr const char* kNotMeasurableStatic = "not measurable: statically linked";
inline constexpr const char* kNotMeasurableOwnMalloc =
    "not measurable: the program defines its own malloc (an allocator linked into it)";

// Calls by kind; memalign covers posix_memalign, aligned_alloc, memalign, valloc, pvalloc.
struct AllocationKinds {
  std::uint64_t malloc = 0;
  std::uint64_t calloc = 0;
  std::uint64_t realloc = 0;
  std::uint64_t memalign = 0;
};

struct AllocationCount {
  std::optional<std::uint64_t> calls;  // every allocating call (kinds summed); empty: not measured
  std::optional<std::uint64_t> bytes;  // bytes requested by those calls
  std::optional<std::uint64_t> frees;  // free() of a non-null pointer
  AllocationKinds kinds;
  int processes = 0;  // processes that reported (each exit of a dynamically linked process)
  std::string note;   // why there are no figures, or a caveat
};

// Runs `command` once with the interposer preloaded (ahead of any LD_PRELOAD it already has,
// so it also counts through a preloaded allocator) and sums every process's report. A
// statically linked program gets empty figures and kNotMeasurableStatic, never zeros; one
// that defines malloc itself gets kNotMeasurableOwnMalloc.
AllocationCount CountAllocations(const runner::Command& command, runner::ProcessRunner& runner);

// Where the interposer is: $PERFENGINE_ALLOCCOUNT when set, else beside this executable
// (build/bin/), else ../lib/perfengine/ relative to it (an installed layout).
std::filesystem::path AllocCountLibraryPath();

// Sums the interposer's report lines ("pid malloc calloc realloc memalign free bytes");
// malformed lines are skipped and named in the note. Any "pid own-malloc" line makes the
// whole count kNotMeasurableOwnMalloc: that process's allocations were invisible.
AllocationCount ParseAllocationReport(std::string_view text);

}  // namespace pe::measure
