#include "engine/runner/server_process.h"

#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <optional>

#include "engine/process/interrupt.h"
#include "engine/runner/process_group.h"
#include "engine/runner/spawn.h"
#include "engine/runner/wait_for_exit.h"

namespace pe::runner {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point In(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

ServerProcess::~ServerProcess() {
  if (pid_ > 0 && !reaped_) {
    KillGroup(pid_);
    Reap(false);
  }
}

std::string ServerProcess::Start(const Command& command) {
  if (pid_ > 0) return "server already started";
  // Idempotent; the engine may start a server before any ProcessRunner exists.
  interrupt::InstallHandlers();
  if (interrupt::Interrupted()) return "interrupted before start";
  Spawned spawned = SpawnInOwnGroup(command);
  if (!spawned.error.empty()) return spawned.error;
  pid_ = spawned.pid;
  spawned_ = std::move(spawned);
  return "";
}

bool ServerProcess::Running() const {
  if (pid_ <= 0 || reaped_) return false;
  return !IsDone(spawned_.done.get());
}

bool ServerProcess::ExitsWithin(double seconds) {
  if (pid_ <= 0 || reaped_) return true;
  return WaitForExit(spawned_.done.get(), In(seconds)) == WaitEnd::kExited || !Running();
}

Outcome ServerProcess::Stop(double grace_s) {
  if (reaped_ || pid_ <= 0) return outcome_;
  ::kill(-pid_, SIGTERM);
  const WaitEnd end = WaitForExit(spawned_.done.get(), In(grace_s));
  if (end != WaitEnd::kExited) KillGroup(pid_);
  Outcome outcome = Reap(end == WaitEnd::kInterrupted);
  if (end == WaitEnd::kTimedOut) {
    outcome.error = fmt::format("did not stop within {:g} s of SIGTERM; killed", grace_s);
    outcome_ = outcome;
  }
  return outcome;
}

Outcome ServerProcess::Wait() {
  if (reaped_ || pid_ <= 0) return outcome_;
  const WaitEnd end = WaitForExit(spawned_.done.get(), std::nullopt);
  if (end != WaitEnd::kExited) KillGroup(pid_);
  return Reap(end == WaitEnd::kInterrupted);
}

Outcome ServerProcess::Reap(bool interrupted) {
  Outcome outcome = ReapChild(spawned_);
  // The interrupt handler may have killed the group just before our wait noticed.
  if (interrupt::Interrupted() && outcome.status == Outcome::Status::kSignalled && outcome.signal == SIGKILL) {
    interrupted = true;
  }
  // Helpers the server started (workers, a daemonised child) were killed by the spawner.
  reaped_ = true;
  if (interrupted) {
    outcome.status = Outcome::Status::kInterrupted;
    outcome.exit_code = 0;
    outcome.signal = 0;
    outcome.error =
        fmt::format("interrupted by {}; the server's process group was killed", SignalName(interrupt::Signal()));
  }
  outcome_ = outcome;
  return outcome;
}

}  // namespace pe::runner
