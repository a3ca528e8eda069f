// Instruction counts: a deterministic figure beside wall time. Two programs that do the same
// work execute the same instructions run after run, so one count per contender per workload
// is enough and a 1% difference is a real difference, not noise.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::measure {

inline constexpr const char* kSourcePerfEvent = "perf_event_open";
inline constexpr const char* kSourceCallgrind = "valgrind callgrind";

struct InstructionCount {
  std::optional<std::uint64_t> count;  // empty: not measured (note says why)
  std::string source;                  // kSourcePerfEvent or kSourceCallgrind; empty if neither ran
  std::string note;                    // why there is no count, or a caveat about it
  // The callgrind output files the count was read from, left in place when the caller gave a
  // directory for them (callgrind_dir below); a profile of the same command can be read from
  // them (ProfileCallgrindFiles, engine/measure/profile.h) instead of running it again.
  std::vector<std::filesystem::path> callgrind_files;
};

enum class InstructionSource {
  kAuto,       // perf_event_open where the kernel allows it, else valgrind
  kPerfEvent,  // only perf_event_open
  kCallgrind,  // only valgrind (slow, but available without kernel support)
};

// Counts the user-space instructions `command` and its children execute, through `runner`
// either way: perf_event_open with runner.RunHeld, valgrind with runner.Run. A command that does not exit 0
// gives no count, with a note saying how it ended. Callgrind writes its files into
// `callgrind_dir` (an existing, empty directory the caller owns) and they stay there, listed in
// callgrind_files when the count was read from them; with no directory they go to a scratch
// directory removed before this returns.
InstructionCount CountInstructions(const runner::Command& command, runner::ProcessRunner& runner,
                                   InstructionSource source = InstructionSource::kAuto,
                                   const std::filesystem::path& callgrind_dir = {});

// The same with the system process runner.
InstructionCount CountInstructions(const runner::Command& command);

}  // namespace pe::measure
