// The system runner's ProcessRunner::RunHeld (process_runner.h): running a command as Run does (own process group,
// stdin from /dev/null, output files, cwd, environment, timeout, SIGINT/SIGTERM), but holding the child between fork
// and exec so the caller can attach to its pid first: a perf counter opened then with enable_on_exec counts the program
// from its first instruction and nothing before.
#pragma once

#include <sys/types.h>

#include <functional>

#include "engine/runner/process_runner.h"

namespace pe::runner {

// Calls `attach(pid)` while the child waits, then lets it exec. When `attach` returns false
// the child is killed before exec and the outcome is kSpawnFailed ("not started: ...").
// wall_s, user_s, sys_s and max_rss_kib are the child's own, as in the process runner.
Outcome RunHeld(const Command& command, const std::function<bool(pid_t)>& attach);

}  // namespace pe::runner
