// The real ProcessRunner: spawn (spawn.h), wait with a deadline, reap with wait4, and leave
// nothing of the contender's process group behind.
#include <fmt/core.h>

#include <chrono>
#include <utility>

#include "engine/process/interrupt.h"
#include "engine/runner/held_child.h"
#include "engine/runner/process_runner.h"
#include "engine/runner/server_process.h"
#include "engine/runner/spawn.h"
#include "engine/runner/wait_and_reap.h"

namespace pe::runner {
namespace {

using Clock = std::chrono::steady_clock;

Outcome Failed(Outcome::Status status, std::string error) {
  Outcome outcome;
  outcome.status = status;
  outcome.error = std::move(error);
  return outcome;
}

class SystemProcessRunner final : public ProcessRunner {
 public:
  Outcome Run(const Command& command) override;
  StartedServer StartServer(const Command& command) override;
  Outcome RunHeld(const Command& command, const std::function<bool(int pid)>& attach) override {
    return runner::RunHeld(command, [&](pid_t pid) { return attach(pid); });
  }
};

Outcome SystemProcessRunner::Run(const Command& command) {
  if (interrupt::Interrupted()) {
    return Failed(Outcome::Status::kInterrupted, "interrupted before start");
  }
  // Quiet: the engine sleeps from the request to the child's end, so it takes no CPU while the
  // child starts (docs/reducing-variance.md, "A quiet start").
  Spawned spawned = SpawnInOwnGroup(command, Start::kQuiet);
  if (!spawned.error.empty()) return Failed(Outcome::Status::kSpawnFailed, spawned.error);

  auto [outcome, end] = WaitKillAndReap(spawned, command.timeout_s);

  if (end == WaitEnd::kTimedOut) {
    // The child's own clock stopped when we killed it; the time it was given is ours.
    outcome.wall_s = std::chrono::duration<double>(Clock::now() - spawned.start).count();
    outcome.status = Outcome::Status::kTimedOut;
    outcome.exit_code = 0;
    outcome.signal = 0;
    outcome.error = fmt::format("timed out after {:g} s; its process group was killed", command.timeout_s);
  } else if (end == WaitEnd::kInterrupted) {
    outcome.status = Outcome::Status::kInterrupted;
    outcome.exit_code = 0;
    outcome.signal = 0;
    outcome.error = fmt::format("interrupted by {}; its process group was killed", SignalName(interrupt::Signal()));
  }
  return outcome;
}

StartedServer SystemProcessRunner::StartServer(const Command& command) {
  auto server = std::make_unique<ServerProcess>();
  if (std::string error = server->Start(command); !error.empty()) return {nullptr, std::move(error)};
  return {std::move(server), ""};
}

}  // namespace

std::unique_ptr<ProcessRunner> MakeSystemProcessRunner() {
  interrupt::InstallHandlers();
  return std::make_unique<SystemProcessRunner>();
}

}  // namespace pe::runner
