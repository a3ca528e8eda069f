// Counting a command's user-space instructions with a hardware counter (perf_event_open):
// exact for the program and every child it starts, at no slowdown. Kernels in containers and
// VMs often refuse it (ENOENT, EOPNOTSUPP, EACCES with perf_event_paranoid > 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/runner/process_runner.h"

namespace pe::measure {

struct PerfCount {
  bool available = false;              // false: the kernel refused the counter (see note)
  runner::Outcome outcome;             // the command's exit, when it ran
  std::optional<std::uint64_t> count;  // user-space instructions, children included
  std::string note;                    // why there is no count, or how it was scaled
};

// Why perf_event_open cannot count instructions here ("perf_event_open: No such file or
// directory"), or an empty string when it can. Opens and closes a counter on this process.
std::string PerfEventUnavailableReason();

// Through runner.RunHeld (process_runner.h): forks, opens the counter on the child (inherit: its children count too;
// enable_on_exec: counting starts at exec), then lets it exec the command's argv with its env, cwd and streams, in its
// own process group. Timeouts and SIGINT/SIGTERM end it as in the process runner; only a command that exits with status
// 0 yields a count.
PerfCount CountWithPerfEvent(const runner::Command& command, runner::ProcessRunner& runner);

}  // namespace pe::measure
