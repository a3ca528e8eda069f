// The one way the engine starts a process. Every child (contenders through the runner,
// servers, held children for perf counters, generators' helpers such as git) is started by
// perfengine-spawner (spawner_protocol.h says why: a child's ru_maxrss must be its own, not
// the engine's), from an argv, never a shell, in its own process group, with PR_SET_PDEATHSIG,
// and reaped there with wait4; whatever it leaves behind, in any group or session, is killed
// before its result arrives. The runner's commands (engine/runner/spawn.h) are built on this.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/process/sandbox.h"

namespace pe::process {

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
  Sandbox sandbox;                    // spawner_protocol.h, kSpawnSandbox
  bool no_aslr = false;               // spawner_protocol.h, kSpawnNoAslr
};

struct Spawned {
  pid_t pid = -1;                               // also the child's process group id; -1 when nothing was spawned
  std::chrono::steady_clock::time_point start;  // just before the spawn, for deadlines
  std::string error;   // why nothing was spawned ("program not found: X", ...); empty on success
  UniqueFd done;       // readable once the child exited and its leftovers were killed
  UniqueFd go;         // a held child's go signal: closing it lets the child exec
  UniqueFd maps;       // the file the spawner writes mapped files to (StartRequest::maps_fd), for its caller
  bool quiet = false;  // a quiet start (StartRequest::quiet_start)
  UniqueFd pid_pipe;   // a quiet start's: pid is -1 until KnownPid reads it from here
  std::string name;    // a quiet start's argv[0], for a failure that only Reap learns
};

// Starts the child and returns once it exec'd (or, held, once it waits before exec). The
// group is registered with interrupt::RegisterGroup so Ctrl-C kills it; Reap unregisters.
// A quiet start returns as soon as the request is sent, with pid -1 and nothing registered: the
// caller waits on `done`, learns the pid with KnownPid when it must signal the child, and a start
// that failed is Reap's start_error.
// Errors: "cannot start X: <errno text>" when exec or the child's setup failed, or why the
// spawner could not be reached.
Spawned StartProcess(const StartRequest& request);

// A start that did not happen, with why: what StartProcess and the runner's starts return.
Spawned NotSpawned(std::string error);

// strerror's text for an errno value, thread-safe.
std::string ErrnoText(int error);

// A held child may exec now.
void Release(Spawned& spawned);

// The child's pid (its group's id): after a quiet start, read from the pid pipe the first time,
// waiting until the child was created; -1 when it never was.
pid_t KnownPid(Spawned& spawned);

// How a started child ended, as the spawner measured it around its clone and wait4.
struct Exit {
  std::string start_error;    // a quiet start that failed: "cannot start X: ..."; nothing below is set
  bool spawner_lost = false;  // no result came: the spawner was killed (its minder killed the child first)
  int wait_status = 0;        // as from wait4
  int exec_errno = 0;         // a held child's exec failed, found only after it was let go
  double wall_s = 0;          // from just before the child was created to its reaping
  double user_s = 0;          // the child's own rusage, from wait4 on its pid
  double sys_s = 0;
  std::int64_t max_rss_kib = 0;
  int sandbox_errno = 0;  // a sandbox was asked, but the kernel refused namespaces: why

  // The status it exited with, when it ran and was not killed by a signal.
  std::optional<int> ExitCode() const;
};

// Waits for the child's result (blocking) and unregisters its group: by the time this returns
// nothing the child started is alive. Leaves spawned.maps for the caller to read. With
// spawner_lost, wall_s is the time since spawned.start.
Exit Reap(Spawned& spawned);

// The engine's environment with `overrides` added or replaced, as NAME=VALUE.
std::vector<std::string> ChildEnvironment(const std::map<std::string, std::string>& overrides);

// $PATH as the child will see it: the command's own, else the engine's.
std::string PathVariable(const std::map<std::string, std::string>& env);

// The spawner's pid, or -1 when none is running; for tests that count our children.
pid_t SpawnerPid();

}  // namespace pe::process
