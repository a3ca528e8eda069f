#include "engine/run/executor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "engine/measure/scratch_dir.h"
#include "engine/run/counters_file.h"
#include "engine/run/execution_dir.h"
#include "engine/run/execution_sandbox.h"
#include "engine/run/path_component.h"
#include "engine/run/scratch.h"
#include "engine/run/serve_checkout.h"
#include "engine/runner/file_tail.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"

namespace pe::run::internal {

namespace fs = std::filesystem;
using model::Failure;
using runner::Command;
using runner::Outcome;

std::string Tail(const fs::path& path) { return runner::FileTail(path, 12, 2000); }

std::string FormatNumber(double value) { return fmt::format("{}", value); }

FileStamp StampOfFile(const fs::path& file) {
  FileStamp stamp;
  struct stat info = {};
  if (::stat(file.c_str(), &info) != 0) return stamp;
  stamp.existed = true;
  stamp.device = info.st_dev;
  stamp.inode = info.st_ino;
  stamp.size = static_cast<std::uint64_t>(info.st_size);
  stamp.mtime_ns = info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec;
  stamp.ctime_ns = info.st_ctim.tv_sec * 1'000'000'000LL + info.st_ctim.tv_nsec;
  return stamp;
}

model::WorkloadResult& Executor::ResultFor(const spec::Workload& w) {
  for (auto& wr : ctx_.result.workloads) {
    if (wr.name == w.name) return wr;
  }
  throw std::logic_error("workload not in result: " + w.name);
}

bool Executor::Interrupted() {
  ctx_.result.failures.push_back({Failure::Kind::kInterrupted, "", "",
                                  fmt::format("interrupted by signal {} ({}); the results are incomplete",
                                              interrupt::Signal(), ::strsignal(interrupt::Signal())),
                                  ""});
  return false;
}

bool Executor::CheckFixtureUntouched(const spec::Contender& c, const spec::Workload& w, const std::string& writer) {
  const std::optional<std::string> what = ctx_.fixtures.Written(w);
  if (!what) return true;
  ResultFor(w).failures.push_back(
      {Failure::Kind::kFixture, w.name, writer.empty() ? c.name : "",
       writer.empty() ? fmt::format("{}. Fixtures are read-only to contenders, so that no run can read back what an "
                                    "earlier one left there",
                                    *what)
                      : fmt::format("{}, run on the output of contender '{}', {}. Fixtures are read-only to it as well",
                                    writer, c.name, *what),
       ""});
  return false;
}

// A contender's scratch directory is named by its place in the spec, padded ("c0", "c1", ...
// "c10"), not by its name: every path a contender is given ({out}, {workdir}, its working
// directory, $PERFENGINE_COUNTERS) then has the same length on both sides of a pair. "baseline"
// and "candidate" differ by a byte, and the size of the environment and argv moves the initial
// stack, which alone can shift a program's time (Mytkowicz et al., "Producing Wrong Data Without
// Doing Anything Obviously Wrong!", ASPLOS 2009): an A/A pair must differ in nothing.
std::string ContenderDirectory(const spec::Spec& spec, const spec::Contender& c) {
  const std::size_t count = spec.contenders.size();
  for (std::size_t i = 0; i < count; ++i) {
    if (spec.contenders[i].name == c.name) return fmt::format("c{:0{}}", i, std::to_string(count - 1).size());
  }
  return PathComponent(c.name);  // not one of the spec's contenders (none today): still one component
}

namespace {

// The files of an execution in `dir`, which is emptied first: every run starts from an empty
// scratch directory and no stale output.
ExecutionPaths FreshPathsIn(const fs::path& dir) {
  ExecutionPaths p;
  p.dir = dir;
  p.stdout_path = p.dir / "stdout";
  p.stderr_path = p.dir / "stderr";
  p.out = p.dir / "out";
  p.workdir = p.dir / "work";
  ResetExecutionDir(p.dir);
  return p;
}

}  // namespace

ExecutionPaths Executor::PathsFor(const spec::Contender& c, const spec::Workload& w) {
  // Names carry sweep values, which are free text: escaped, they stay inside the scratch directory.
  return FreshPathsIn(ctx_.scratch / PathComponent(w.name) / ContenderDirectory(ctx_.spec, c));
}

ExecutionPaths Executor::WorkerPathsFor(const spec::Contender& c) {
  return FreshPathsIn(ctx_.scratch / "worker+" / ContenderDirectory(ctx_.spec, c));
}

const fs::path* Executor::WorktreeOf(const spec::Contender& c) const {
  if (!ctx_.worktrees) return nullptr;
  const auto it = ctx_.worktrees->find(c.name);
  return it == ctx_.worktrees->end() ? nullptr : &it->second;
}

ExecutionPaths Executor::ParityPathsFor() {
  // '+' never survives PathComponent (it becomes %2B), so no workload's directory has this name.
  const std::optional<fs::path> dir = measure::MakePrivateDirectory(ctx_.scratch, "parity+");
  if (!dir) {
    throw fs::filesystem_error("cannot make a parity directory", ctx_.scratch / "parity+XXXXXX",
                               std::error_code(errno, std::generic_category()));
  }
  ExecutionPaths p;
  p.dir = *dir;
  p.stdout_path = p.dir / "stdout";
  p.stderr_path = p.dir / "stderr";
  p.out = p.dir / "out";
  p.workdir = p.dir / "work";
  fs::create_directory(p.workdir);
  return p;
}

void Executor::RemoveParityOutputs(const ExecutionPaths& paths) {
  std::error_code ec;
  // An `output` outside the directory is removed only when this execution wrote it: a file
  // that is as it was before the contender ran is the user's.
  if (!paths.output.empty() && fs::absolute(paths.output).lexically_relative(paths.dir).string().starts_with("..")) {
    const FileStamp now = StampOfFile(paths.output);
    if (now.existed && !(paths.output_before.existed && now == paths.output_before)) fs::remove(paths.output, ec);
  }
  fs::remove_all(paths.dir, ec);
}

fs::path Executor::SpecDir() const {
  return ctx_.spec.path.parent_path().empty() ? fs::path(".") : ctx_.spec.path.parent_path();
}

std::map<std::string, std::string> Executor::Placeholders(const spec::Contender& c, const spec::Workload& w,
                                                          const ExecutionPaths& paths, int port) {
  std::map<std::string, std::string> values = {
      {"fixture", ctx_.fixtures.DirectoryOf(w).string()},
      {"out", paths.out.string()},
      {"workdir", paths.workdir.string()},
      {"scale", FormatNumber(ctx_.settings.scale * w.scale_factor)},
      {"seed", std::to_string(ctx_.settings.seed)},
      {"contender", c.name},
      {"spec_dir", fs::absolute(SpecDir()).lexically_normal().string()},
  };
  for (const auto& [axis, value] : w.point) {
    if (axis != "scale") values[axis] = value;
  }
  if (w.serve) values["port"] = std::to_string(port);
  if (w.serve) values["checkout"] = (paths.dir / "checkout").string();  // made by ExecuteServe
  return values;
}

Command Executor::BuildCommand(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths,
                               int port) {
  const auto values = Placeholders(c, w, paths, port);
  Command cmd;
  const auto& prefix = w.startup ? c.startup_argv : c.argv;
  for (const auto& a : prefix) cmd.argv.push_back(spec::Expand(a.value, values));
  if (!w.startup) {
    for (const auto& a : w.args) cmd.argv.push_back(spec::Expand(a.value, values));
  }
  // A contender built from git runs its programs from its revision's worktree.
  const fs::path* worktree = nullptr;
  if (ctx_.worktrees) {
    const auto it = ctx_.worktrees->find(c.name);
    if (it != ctx_.worktrees->end()) worktree = &it->second;
  }
  const fs::path base = worktree ? *worktree : SpecDir();
  std::string why;
  if (auto program = spec::ResolveProgram(cmd.argv[0], base, &why)) {
    cmd.argv[0] = fs::absolute(*program).lexically_normal().string();
  }
  for (const auto& [k, v] : c.env) cmd.env[k] = spec::Expand(v, values);
  for (const auto& [k, v] : w.env) cmd.env[k] = spec::Expand(v, values);  // a sweep point's, e.g. LD_PRELOAD
  if (!spec::EffectiveCounters(ctx_.spec, w).empty()) cmd.env[kCountersEnv] = CountersFile(paths.dir).string();
  cmd.cwd = c.workdir.empty() && worktree ? *worktree : c.workdir;
  cmd.stdout_path = paths.stdout_path;
  cmd.stderr_path = paths.stderr_path;
  cmd.timeout_s = w.timeout_s.value_or(ctx_.settings.timeout_s);
  cmd.sandbox = SandboxFor(c, w, paths, values);
  GiveTemporaryDirectory(cmd, paths.workdir);
  return cmd;
}

runner::Sandbox Executor::SandboxFor(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths,
                                     const std::map<std::string, std::string>& values) const {
  fs::path fixed_output;
  if (!w.serve && w.output != "stdout") fixed_output = spec::Expand(w.output, values);
  return ExecutionSandbox(ctx_.scratch, paths.dir, fixed_output, c.writable);
}

const Command& Executor::CommandFor(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths) {
  const auto key = std::make_pair(&c, &w);
  auto it = commands_.find(key);
  if (it == commands_.end()) it = commands_.emplace(key, BuildCommand(c, w, paths)).first;
  return it->second;
}

bool Executor::Execute(const spec::Contender& c, const spec::Workload& w, Outcome* outcome, ExecutionPaths* paths_out) {
  // Parity (paths_out) runs in a fresh directory of its own, with a command built for it.
  ExecutionPaths paths = paths_out ? ParityPathsFor() : PathsFor(c, w);
  Command parity_command;
  if (paths_out) parity_command = BuildCommand(c, w, paths);
  // isolated = true: the parity execution (never a timed one) is traced for what it maps.
  if (paths_out && c.isolated) parity_command.record_maps = true;
  const Command& cmd = paths_out ? parity_command : CommandFor(c, w, paths);
  // Hooks run outside the timed window: the outcome's times are the contender's alone.
  if (!Prepare(c, w, paths)) {
    if (paths_out) *paths_out = paths;
    return false;
  }
  if (paths_out && w.output != "stdout") {
    paths.output = spec::Expand(w.output, Placeholders(c, w, paths));
    paths.output_before = StampOfFile(paths.output);
  }
  *outcome = ctx_.runner.Run(cmd);
  if (paths_out) *paths_out = paths;
  bool ok = Executed(c, w, cmd, *outcome, /*timed=*/paths_out == nullptr);
  if (ok && cmd.record_maps) {
    const std::vector<std::string> problems = IsolationProblems(outcome->mapped, c.name, ObjectOwners());
    if (!problems.empty()) {
      ResultFor(w).failures.push_back({Failure::Kind::kIsolation, w.name, c.name, IsolationMessage(problems),
                                       fmt::format("{}", fmt::join(problems, "\n"))});
      ok = false;
    }
  }
  // A parity execution's cleanup waits until its output was compared (the caller runs it).
  if (ok && paths_out) return true;
  if (!ok && (outcome->status == Outcome::Status::kInterrupted || interrupt::Interrupted())) return false;
  return Cleanup(c, w, paths) && ok;
}

std::vector<ObjectOwner> Executor::ObjectOwners() const {
  std::vector<ObjectOwner> owners;
  for (const spec::Contender& c : ctx_.spec.contenders) {
    ObjectOwner owner{c.name, {}};
    const fs::path* worktree = nullptr;
    if (ctx_.worktrees) {
      const auto it = ctx_.worktrees->find(c.name);
      if (it != ctx_.worktrees->end()) worktree = &it->second;
    }
    // Relative folders are the build's: in its worktree when built from git, else beside the spec.
    const fs::path base = worktree ? *worktree : SpecDir();
    for (const spec::Located& dir : c.own_objects) owner.dirs.push_back(fs::absolute(base / dir.value));
    if (owner.dirs.empty() && worktree) owner.dirs.push_back(fs::absolute(*worktree));
    owners.push_back(std::move(owner));
  }
  return owners;
}

bool Executor::Executed(const spec::Contender& c, const spec::Workload& w, const Command& cmd, const Outcome& result,
                        bool timed) {
  const Outcome* outcome = &result;
  if (ctx_.progress) ctx_.progress->Step(w.name);
  if (!outcome->sandbox_refused.empty() && sandbox_noted_.insert(&w).second) {
    // Said in the results (every report shows a workload's notes) and where the progress goes.
    const std::string note = fmt::format(
        "not sandboxed: {}; the code under test ran with the engine's view of the "
        "file system and processes (docs/threat-model.md)",
        outcome->sandbox_refused);
    ResultFor(w).notes.push_back(note);
    if (ctx_.progress) ctx_.progress->Note(fmt::format("{}: {}", w.name, note));
  }
  if (outcome->status == Outcome::Status::kInterrupted || interrupt::Interrupted()) return Interrupted();
  if (outcome->ok() && !CheckFixtureUntouched(c, w)) return false;
  // Counters the contender reported itself (docs/counters.md), read by timed executions.
  last_counters_.clear();
  const auto counters_env = cmd.env.find(kCountersEnv);
  if (outcome->ok() && timed && counters_env != cmd.env.end() && !ResultFor(w).counters.empty()) {
    if (auto error = ReadCountersFile(counters_env->second, ResultFor(w).counters, last_counters_)) {
      ResultFor(w).failures.push_back({Failure::Kind::kCounters, w.name, c.name, *error, Tail(cmd.stderr_path)});
      return false;
    }
  }
  if (outcome->ok()) return true;
  Failure f;
  f.workload = w.name;
  f.contender = c.name;
  switch (outcome->status) {
    case Outcome::Status::kExited:
      f.kind = Failure::Kind::kExit;
      f.message = fmt::format("exited with status {}", outcome->exit_code);
      break;
    case Outcome::Status::kSignalled:
      f.kind = Failure::Kind::kSignal;
      f.message = fmt::format("was killed by signal {} ({})", outcome->signal, ::strsignal(outcome->signal));
      break;
    case Outcome::Status::kTimedOut:
      f.kind = Failure::Kind::kTimeout;
      f.message = fmt::format("timed out after {} s; its process group was killed", FormatNumber(cmd.timeout_s));
      break;
    case Outcome::Status::kSpawnFailed:
      f.kind = Failure::Kind::kSpawn;
      f.message = fmt::format("could not be started: {}", outcome->error);
      break;
    case Outcome::Status::kInterrupted:
      break;
  }
  if (auto full = ScratchOutOfSpace(ctx_.scratch, fmt::format("contender '{}' {}", c.name, f.message))) {
    f.message = *full;  // the engine's scratch ran out, not the contender
    f.contender.clear();
  }
  f.detail = Tail(cmd.stderr_path);
  if (w.startup && !f.contender.empty()) {
    // The default startup command (PROGRAM --version) does not fit every tool: say which key
    // replaces it, rather than leave "--version: No such file or directory" to be decoded.
    std::vector<std::string> shown;
    for (const spec::Located& a : c.startup_argv) shown.push_back(a.value);
    f.message += fmt::format(
        " running its startup command '{}'; set [contenders.{}] startup = [...] to a command that exits 0 quickly "
        "(docs/spec.md)",
        fmt::join(shown, " "), c.name);
  }
  ResultFor(w).failures.push_back(std::move(f));
  return false;
}

std::optional<serve::ServeRoundResult> Executor::ExecuteServe(const spec::Contender& c, const spec::Workload& w,
                                                              bool parity) {
  const ExecutionPaths paths = PathsFor(c, w);
  if (UsesCheckout(w)) {
    // A clone of the fixture's repository per server start (engine/run/serve_checkout.h).
    try {
      MakeCheckout(ctx_.runner, ctx_.fixtures.DirectoryOf(w), paths.dir / "checkout", paths.dir,
                   w.serve_options.ready_timeout_s);
    } catch (const std::exception& e) {
      ResultFor(w).failures.push_back({Failure::Kind::kFixture, w.name, c.name, e.what(), ""});
      return std::nullopt;
    }
  }
  if (!Prepare(c, w, paths)) return std::nullopt;
  serve::ServeRoundResult round = serve::RunServeRound(
      ctx_.runner, [&](int port) { return BuildCommand(c, w, paths, port); }, ServeRequests(w, ctx_.serve, parity),
      ServeOptions(w, parity));
  if (ctx_.progress) ctx_.progress->Step(w.name);
  if (interrupt::Interrupted()) {
    Interrupted();
    return std::nullopt;
  }
  if (round.ok) {
    // Said once per server and workload: in the results (every report shows it) and where the
    // run's progress goes.
    if (!round.note.empty() && noted_.insert({&c, &w}).second) {
      const std::string note = fmt::format("contender '{}': {}", c.name, round.note);
      ResultFor(w).notes.push_back(note);
      if (ctx_.progress) ctx_.progress->Note(fmt::format("{}: {}", w.name, note));
    }
    if (!CheckFixtureUntouched(c, w) || !Cleanup(c, w, paths)) return std::nullopt;
    return round;
  }
  Cleanup(c, w, paths);  // its own failure is recorded beside the server's
  ResultFor(w).failures.push_back(
      {round.failed == serve::ServeRoundResult::Failure::kNotStarted ? Failure::Kind::kSpawn : Failure::Kind::kExit,
       w.name, c.name, fmt::format("(server) {}", round.failure), round.detail});
  return std::nullopt;
}

}  // namespace pe::run::internal
