// Commands as children: the runner's way to start a Command (argv[0] looked up on its PATH, its
// streams opened, pinned or traced as asked) and to learn how it ended as an Outcome. Built on
// engine/process/spawn.h, the one way the engine starts a process (every child through
// perfengine-spawner, in its own process group); its names are the runner's too (runner::Spawned
// is process::Spawned), as the engine's code spells them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/process/spawn.h"
#include "engine/runner/process_runner.h"

namespace pe::runner {

using process::ChildEnvironment;
using process::KnownPid;
using process::PathVariable;
using process::Release;
using process::ResourceLimit;
using process::Spawned;
using process::SpawnerPid;
using process::StartProcess;
using process::StartRequest;
using process::UniqueFd;

// How SpawnInOwnGroup hands back the child: once it is running (the pid known, Ctrl-C kills its
// group from the signal handler), or quietly (StartProcess), for a caller that only waits for it
// to end. Pinned and traced children are always started the first way.
enum class Start { kAwaited, kQuiet };

// Resolves argv[0], opens the child's streams (stdin /dev/null, stdout and stderr to the
// command's files or /dev/null) and starts it with StartProcess; command.record_maps traces it
// (engine/process/spawner_protocol.h, kSpawnTraceMaps). command.timeout_s is not looked at here.
Spawned SpawnInOwnGroup(const Command& command, Start start = Start::kAwaited);

// Waits for the child's result (blocking; process::Reap) and returns its exit as an Outcome: kExited with
// exit_code, or kSignalled with signal and "killed by SIGKILL"; wall_s, user_s, sys_s and
// max_rss_kib are the child's own, measured by the spawner around its clone and wait4. A
// failed exec of a held child is kSpawnFailed. With `maps`, fills outcome.mapped. Unregisters the group; by the time
// this returns nothing the child started is alive.
Outcome ReapChild(Spawned& spawned);

// "SIGTERM", "SIGKILL", ... or "signal N" for numbers without a name.
std::string SignalName(int signal);

// The spawner's "PID PATH" lines (kSpawnTraceMaps) as MappedFiles: each path once per process,
// in the order first seen.
std::vector<MappedFile> ParseMappedFiles(std::string_view text);

}  // namespace pe::runner
