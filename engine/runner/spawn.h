// The one way the engine starts a process. Every child (contenders through the runner,
// servers, held children for perf counters, generators' helpers such as git) is started by
// perfengine-spawner (spawner_protocol.h says why: a child's ru_maxrss must be its own, not
// the engine's), in its own process group, with PR_SET_PDEATHSIG, and reaped there with wait4;
// whatever it leaves behind, in any group or session, is killed before its result arrives.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::runner {

// A descriptor closed when its owner goes.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }
  int get() const { return fd_; }
  void Reset();

 private:
  int fd_;
};

struct ResourceLimit {
  int resource = 0;  // RLIMIT_*
  rlim_t soft = RLIM_INFINITY;
  rlim_t hard = RLIM_INFINITY;
};

// Everything the child is given, already resolved: no PATH lookup happens after this.
struct StartRequest {
  std::filesystem::path program;  // absolute path of the file to exec
  std::vector<std::string> argv;  // argv[0] as the spec wrote it
  std::vector<std::string> env;   // the whole environment, NAME=VALUE
  std::filesystem::path cwd;      // empty: the engine's working directory
  int stdin_fd = -1;              // the engine keeps ownership of these three
  int stdout_fd = -1;
  int stderr_fd = -1;
  std::vector<ResourceLimit> limits;  // setrlimit in the child before exec
  bool hold = false;                  // the child waits before exec until Release()
  bool quiet_start = false;           // nothing comes back until the end (spawner_protocol.h, kSpawnQuietStart)
  int maps_fd = -1;                   // >= 0: the child and all it starts are traced; their mapped files go here
  Sandbox sandbox;                    // Command::sandbox (spawner_protocol.h, kSpawnSandbox)
};

struct Spawned {
  pid_t pid = -1;                               // also the child's process group id; -1 when nothing was spawned
  std::chrono::steady_clock::time_point start;  // just before the spawn, for deadlines
  std::string error;  // why nothing was spawned ("program not found: X", ...); empty on success
  UniqueFd done;      // readable once the child exited and its leftovers were killed
  UniqueFd go;        // a held child's go signal: closing it lets the child exec
  UniqueFd maps;      // Command::record_maps: the file the spawner writes mapped files to
  bool quiet = false;  // a quiet start (StartRequest::quiet_start)
  UniqueFd pid_pipe;   // a quiet start's: pid is -1 until KnownPid reads it from here
  std::string name;    // a quiet start's argv[0], for a failure that only ReapChild learns
};

// Starts the child and returns once it exec'd (or, held, once it waits before exec). The
// group is registered with interrupt::RegisterGroup so Ctrl-C kills it; ReapChild unregisters.
// A quiet start returns as soon as the request is sent, with pid -1 and nothing registered: the
// caller waits on `done`, learns the pid with KnownPid when it must signal the child, and a start
// that failed is ReapChild's kSpawnFailed.
// Errors: "cannot start X: <errno text>" when exec or the child's setup failed, or why the
// spawner could not be reached.
Spawned StartProcess(const StartRequest& request);

// A held child may exec now.
void Release(Spawned& spawned);

// The child's pid (its group's id): after a quiet start, read from the pid pipe the first time,
// waiting until the child was created; -1 when it never was.
pid_t KnownPid(Spawned& spawned);

// How SpawnInOwnGroup hands back the child: once it is running (the pid known, Ctrl-C kills its
// group from the signal handler), or quietly (StartProcess), for a caller that only waits for it
// to end. Pinned and traced children are always started the first way.
enum class Start { kAwaited, kQuiet };

// Resolves argv[0], opens the child's streams (stdin /dev/null, stdout and stderr to the
// command's files or /dev/null) and starts it with StartProcess; command.record_maps traces it
// (spawner_protocol.h, kSpawnTraceMaps). command.timeout_s is not looked at here.
Spawned SpawnInOwnGroup(const Command& command, Start start = Start::kAwaited);

// Waits for the child's result (blocking) and returns its exit as an Outcome: kExited with
// exit_code, or kSignalled with signal and "killed by SIGKILL"; wall_s, user_s, sys_s and
// max_rss_kib are the child's own, measured by the spawner around its clone and wait4. A
// failed exec of a held child is kSpawnFailed. With `maps`, fills outcome.mapped. Unregisters the group; by the time
// this returns nothing the child started is alive.
Outcome ReapChild(Spawned& spawned);

// The engine's environment with `overrides` added or replaced, as NAME=VALUE.
std::vector<std::string> ChildEnvironment(const std::map<std::string, std::string>& overrides);

// $PATH as the child will see it: the command's own, else the engine's.
std::string PathVariable(const std::map<std::string, std::string>& env);

// "SIGTERM", "SIGKILL", ... or "signal N" for numbers without a name.
std::string SignalName(int signal);

// The spawner's "PID PATH" lines (kSpawnTraceMaps) as MappedFiles: each path once per process,
// in the order first seen.
std::vector<MappedFile> ParseMappedFiles(std::string_view text);

// The spawner's pid, or -1 when none is running; for tests that count our children.
pid_t SpawnerPid();

}  // namespace pe::runner
