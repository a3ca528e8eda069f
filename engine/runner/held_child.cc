#include "engine/runner/held_child.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "engine/process/interrupt.h"
#include "engine/process/program_lookup.h"
#include "engine/runner/process_group.h"
#include "engine/runner/spawn.h"
#include "engine/runner/wait_and_reap.h"

namespace pe::runner {

namespace {

Outcome NotStarted(std::string error) {
  Outcome outcome;
  outcome.status = Outcome::Status::kSpawnFailed;
  outcome.error = std::move(error);
  return outcome;
}

}  // namespace

Outcome RunHeld(const Command& command, const std::function<bool(pid_t)>& attach) {
  if (interrupt::Interrupted()) return NotStarted("interrupted before start");
  if (command.argv.empty()) return NotStarted("empty command");
  process::ResolvedProgram program = process::ResolveProgram(command.argv[0], command.cwd, PathVariable(command.env));
  if (!program.error.empty()) return NotStarted(program.error);
  std::error_code fs_error;
  if (!command.cwd.empty() && !std::filesystem::is_directory(command.cwd, fs_error)) {
    return NotStarted("working directory not found: " + command.cwd.string());
  }
  auto open_stream = [](const std::filesystem::path& path, bool for_reading) {
    if (path.empty()) return UniqueFd(::open("/dev/null", (for_reading ? O_RDONLY : O_WRONLY) | O_CLOEXEC));
    return UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  };
  UniqueFd in = open_stream({}, true);
  UniqueFd out = open_stream(command.stdout_path, false);
  UniqueFd err = open_stream(command.stderr_path, false);
  if (in.get() < 0 || out.get() < 0 || err.get() < 0) {
    return NotStarted("cannot open the command's output files: " +
                      std::error_code(errno, std::system_category()).message());
  }
  StartRequest request;
  request.program = program.path;
  request.argv = command.argv;
  request.env = ChildEnvironment(command.env);
  request.cwd = command.cwd;
  request.stdin_fd = in.get();
  request.stdout_fd = out.get();
  request.stderr_fd = err.get();
  request.hold = true;
  request.sandbox = command.sandbox;
  Spawned spawned = StartProcess(request);
  if (!spawned.error.empty()) return NotStarted(spawned.error);
  const pid_t pid = spawned.pid;
  const bool attached = attach(pid);
  // A child that must not run is killed while it still waits, before it can exec.
  if (!attached) KillGroup(pid);
  Release(spawned);

  auto [outcome, end] = WaitKillAndReap(spawned, command.timeout_s);
  if (!attached) return NotStarted("not started: could not attach to the child");
  if (outcome.status == Outcome::Status::kSpawnFailed) {
    outcome.error = fmt::format("cannot start {}: {}", command.argv[0], outcome.error);
  } else if (end == WaitEnd::kTimedOut) {
    outcome.status = Outcome::Status::kTimedOut;
    outcome.signal = 0;
    outcome.error = fmt::format("timed out after {:g} s; its process group was killed", command.timeout_s);
  } else if (end == WaitEnd::kInterrupted) {
    outcome.status = Outcome::Status::kInterrupted;
    outcome.signal = 0;
    outcome.error = "interrupted; its process group was killed";
  } else if (outcome.status == Outcome::Status::kSignalled) {
    outcome.error = fmt::format("killed by signal {}", outcome.signal);
  }
  return outcome;
}

}  // namespace pe::runner
