// Per-function profiles: where a contender spends its instructions, by function self cost.
// Profiles come from valgrind's callgrind (exact instruction counts per function, debug
// symbols needed for names); perf record is not used, so figures are the same on every host.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/measure/call_graph.h"
#include "engine/runner/process_runner.h"

namespace pe::measure {

struct FunctionCost {
  std::string function;    // demangled name as callgrind reports it, e.g. "ParseRecords(int)"
  double share = 0;        // of the whole run's instructions, 0..1
  std::uint64_t cost = 0;  // self instructions (Ir), callees excluded
};

struct ProfileResult {
  std::vector<FunctionCost> functions;  // by cost, largest first; empty when not profiled
  std::uint64_t total = 0;              // every process's instructions together
  std::string note;                     // why there is no profile
  CallGraph graph;                      // every process's call graph merged, own objects marked
};

// Runs `command` once under callgrind (children included) and ranks functions by self
// cost, merging the same function across processes. callgrind_annotate (from valgrind)
// does the symbol work. The call graph is read from callgrind's files too, its objects under
// `own_dirs` marked own (MarkOwnObjects), for WhereTheGrowthWent.
ProfileResult ProfileCommand(const runner::Command& command, runner::ProcessRunner& runner,
                             const std::vector<std::filesystem::path>& own_dirs = {});

// The same profile from callgrind output files already written, without running anything but
// callgrind_annotate (through `runner`; it writes FILE.annotated beside each file). An
// instruction count taken with callgrind (CountInstructions with a callgrind_dir) ran the same
// command under the same options, so a profile read from its files is the one ProfileCommand
// would take, without a second callgrind run. ProfileCommand is RunCallgrind, then this.
ProfileResult ProfileCallgrindFiles(const std::vector<std::filesystem::path>& files, runner::ProcessRunner& runner,
                                    const std::vector<std::filesystem::path>& own_dirs = {});

// The ranking alone, with the system process runner; empty when it could not be made.
std::vector<FunctionCost> Profile(const runner::Command& command);

// Reads `callgrind_annotate --inclusive=no` output: "1,234 (45.6%)  file:function [object]"
// lines become {function, cost}; share is left 0 (the caller knows the total).
std::vector<FunctionCost> ParseCallgrindAnnotate(std::string_view text);

}  // namespace pe::measure
