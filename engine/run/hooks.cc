// `prepare` and `cleanup` (docs/spec.md, "Hooks"): commands around each execution of a
// contender on a workload, outside its timed window. Each is started through the ProcessRunner
// like any contender (an argv, its own process group, killed with it on timeout or Ctrl-C).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

#include "engine/run/execution_sandbox.h"
#include "engine/run/executor.h"
#include "engine/runner/file_tail.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"

namespace pe::run::internal {

namespace fs = std::filesystem;
using model::Failure;
using runner::Command;
using runner::Outcome;

bool Executor::Prepare(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths) {
  return RunHook(c, w, paths, w.hooks.prepare, "prepare", false) &&
         RunHook(c, w, paths, c.hooks.prepare, "prepare", true);
}

bool Executor::Cleanup(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths) {
  // Both run even when the first fails: each undoes its own prepare.
  const bool contender = RunHook(c, w, paths, c.hooks.cleanup, "cleanup", true);
  if (!contender && interrupt::Interrupted()) return false;
  const bool workload = RunHook(c, w, paths, w.hooks.cleanup, "cleanup", false);
  return contender && workload;
}

bool Executor::RunHook(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths,
                       const std::vector<spec::Located>& argv, const char* which, bool contenders) {
  if (argv.empty()) return true;
  const auto values = Placeholders(c, w, paths);
  Command cmd;
  for (const spec::Located& a : argv) cmd.argv.push_back(spec::Expand(a.value, values));
  const fs::path* worktree = nullptr;
  if (ctx_.worktrees) {
    const auto it = ctx_.worktrees->find(c.name);
    if (it != ctx_.worktrees->end()) worktree = &it->second;
  }
  std::string why;
  if (auto program = spec::ResolveProgram(cmd.argv[0], worktree ? *worktree : SpecDir(), &why)) {
    cmd.argv[0] = fs::absolute(*program).lexically_normal().string();
  }
  for (const auto& [k, v] : c.env) cmd.env[k] = spec::Expand(v, values);
  for (const auto& [k, v] : w.env) cmd.env[k] = spec::Expand(v, values);
  cmd.cwd = c.workdir.empty() && worktree ? *worktree : c.workdir;
  // Beside the execution's own captures, in its directory (emptied before each execution).
  cmd.stdout_path = paths.dir / fmt::format("{}.stdout", which);
  cmd.stderr_path = paths.dir / fmt::format("{}.stderr", which);
  cmd.timeout_s = w.timeout_s.value_or(ctx_.settings.timeout_s);
  cmd.sandbox = SandboxFor(c, w, paths, values);
  GiveTemporaryDirectory(cmd, paths.workdir);
  const Outcome outcome = ctx_.runner.Run(cmd);
  if (outcome.status == Outcome::Status::kInterrupted || interrupt::Interrupted()) return Interrupted();
  if (outcome.ok()) return true;
  Failure f;
  f.workload = w.name;
  f.contender = c.name;
  std::string what;
  switch (outcome.status) {
    case Outcome::Status::kSignalled:
      f.kind = Failure::Kind::kSignal;
      what = fmt::format("was killed by signal {} ({})", outcome.signal, ::strsignal(outcome.signal));
      break;
    case Outcome::Status::kTimedOut:
      f.kind = Failure::Kind::kTimeout;
      what = fmt::format("timed out after {} s; its process group was killed", FormatNumber(cmd.timeout_s));
      break;
    case Outcome::Status::kSpawnFailed:
      f.kind = Failure::Kind::kSpawn;
      what = fmt::format("could not be started: {}", outcome.error);
      break;
    default:
      f.kind = Failure::Kind::kExit;
      what = fmt::format("exited with status {}", outcome.exit_code);
  }
  std::vector<std::string> shown;
  for (const spec::Located& a : argv) shown.push_back(a.value);
  const std::string last_line = runner::FileTail(cmd.stderr_path, 1, 400);
  const bool before = std::string_view(which) == "prepare";
  f.message =
      fmt::format("{} command '{}' ([{}.{}] {}, run {} each execution) {}{}", which, fmt::join(shown, " "),
                  contenders ? "contenders" : "workloads",
                  contenders        ? c.name
                  : w.sweep.empty() ? w.name
                                    : w.sweep,
                  which, before ? "before" : "after", what, last_line.empty() ? "" : fmt::format(" ({})", last_line));
  f.detail = Tail(cmd.stderr_path);
  ResultFor(w).failures.push_back(std::move(f));
  return false;
}

}  // namespace pe::run::internal
