// A contender that keeps running while the engine measures it: an HTTP server started for one
// round, asked questions, then stopped. Unlike ProcessRunner::Run, starting does not wait;
// stopping is SIGTERM to the server's process group, SIGKILL after a grace period, and wait4
// for the server's own rusage. Nothing it started outlives it: not on Stop, not on Ctrl-C, not
// when the caller forgets (the destructor kills and reaps). The system ProcessRunner's
// StartServer returns one of these.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "engine/runner/process_runner.h"
#include "engine/runner/spawn.h"

namespace pe::runner {

class ServerProcess final : public RunningServer {
 public:
  ServerProcess() = default;
  // Kills the group and reaps it if the server was started and not yet reaped.
  ~ServerProcess() override;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Spawns `command` as SystemProcessRunner does (argv, env, cwd, stdout/stderr files, stdin
  // /dev/null, its own process group registered for Ctrl-C) and returns without waiting.
  // command.timeout_s is ignored: a server runs until stopped. Returns why the server could
  // not be started ("program not found: X", "interrupted before start", ...), or "" when it
  // was. A ServerProcess starts at most once.
  std::string Start(const Command& command);

  // The server's pid, which is also its process group id; -1 before Start.
  pid_t pid() const { return pid_; }
  // True from a successful Start until the server exits. Does not reap, so Stop and Wait
  // still collect its status and rusage.
  bool Running() const override;
  // Waits up to `seconds` for the server to exit by itself, without signalling or reaping it.
  // True when it has exited. For telling a server that just died (its sockets close a moment
  // before it becomes reapable) from one that is alive but stopped answering.
  bool ExitsWithin(double seconds) override;

  // SIGTERM to the whole group, up to `grace_s` for the server to exit, then SIGKILL to the
  // group; reaps the server with wait4, then kills and reaps whatever is left in its group.
  // Returns kExited or kSignalled (a server that dies of the SIGTERM is kSignalled SIGTERM);
  // when SIGKILL was needed, error says "did not stop within 5 s of SIGTERM; killed". An
  // interrupt while waiting kills the group at once and returns kInterrupted. wall_s is from
  // the spawn to the reap. Calling it again returns the same Outcome.
  Outcome Stop(double grace_s) override;
  // For a server that died by itself: waits for it to exit (an interrupt kills it), reaps it
  // and its group. Returns the same kind of Outcome as Stop.
  Outcome Wait() override;

 private:
  // Reaps the server (already exited or killed), then the rest of its group; unregisters it.
  Outcome Reap(bool interrupted);

  pid_t pid_ = -1;
  bool reaped_ = false;
  Spawned spawned_;
  Outcome outcome_;
};

}  // namespace pe::runner
