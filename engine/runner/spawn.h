// The two halves of a child's life that every runner shares: spawning a Command in its own
// process group without waiting, and reaping it with wait4 for its own rusage. What happens
// in between (wait for exit with a timeout, or keep a server running and stop it later) is
// the caller's.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "engine/runner/process_runner.h"

namespace pe {

struct Spawned {
  pid_t pid = -1;  // also the child's process group id; -1 when nothing was spawned
  std::chrono::steady_clock::time_point start;  // just before the spawn, for wall time
  std::string error;  // why nothing was spawned ("program not found: X", ...); empty on success
};

// Resolves argv[0], opens the child's streams (stdin /dev/null, stdout and stderr to the
// command's files or /dev/null) and spawns it with the command's argv, environment and working
// directory, in a new process group, which is registered with interrupt::RegisterGroup so
// Ctrl-C kills it. Returns at once. The caller must reap the child (ReapChild), then kill and
// reap what is left of its group (KillGroup, ReapGroup) and unregister the group.
// command.timeout_s is not looked at here.
Spawned SpawnInOwnGroup(const Command& command);

// Waits for `pid` (blocking, retried on EINTR) and returns its exit as an Outcome: kExited
// with exit_code, or kSignalled with signal and "killed by SIGKILL"; wall_s from `start`;
// user_s, sys_s and max_rss_kib from wait4, so they are this child's alone.
Outcome ReapChild(pid_t pid, std::chrono::steady_clock::time_point start);

// "SIGTERM", "SIGKILL", ... or "signal N" for numbers without a name.
std::string SignalName(int signal);

}  // namespace pe
