// One execution of one contender on one workload, and what every part of the run loop shares
// to make one: the command (placeholders expanded, program resolved), its scratch directory,
// the fixture check after it, and the failure it becomes when it does not succeed. The parity
// checker, the round runner and the counts collector all run contenders through this, over
// the ProcessRunner seam, so a fake runner drives each of them in tests.
// Not a public interface: use experiment.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/model/result.h"
#include "engine/run/fixture_preparer.h"
#include "engine/run/progress.h"
#include "engine/run/serve_workload.h"
#include "engine/run/shared_objects.h"
#include "engine/runner/process_runner.h"
#include "engine/serve/serve_round.h"
#include "engine/spec/spec.h"

namespace pe::run::internal {

// The last lines of a child's stderr, for failure messages.
std::string Tail(const std::filesystem::path& path);
std::string FormatNumber(double value);

// What a file was before a contender ran, to tell a fresh output from a stale one.
struct FileStamp {
  bool existed = false;
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

// `file` as it is now; existed == false when it is not there.
FileStamp StampOfFile(const std::filesystem::path& file);

// The scratch directory name of a contender: the same length for every contender of a spec.
std::string ContenderDirectory(const spec::Spec& spec, const spec::Contender& c);

// Where one execution's files go.
struct ExecutionPaths {
  std::filesystem::path dir, stdout_path, stderr_path, out, workdir;
  std::filesystem::path output;  // the workload's `output` file (empty for stdout)
  FileStamp output_before;       // that file as it was just before the run
};

// What a run's executions share. `result` holds a WorkloadResult for every workload executed
// (by name); failures are recorded there, and each call that records one returns false.
struct ExecutionContext {
  const spec::Spec& spec;
  const model::Settings& settings;
  runner::ProcessRunner& runner;
  model::RunResult& result;
  FixturePreparer& fixtures;
  std::filesystem::path scratch;                                            // the run's scratch directory
  const std::map<std::string, std::filesystem::path>* worktrees = nullptr;  // contenders built from git
  Progress* progress = nullptr;
  ServeOverrides serve;
};

class Executor {
 public:
  explicit Executor(ExecutionContext context) : ctx_(std::move(context)) {}

  const spec::Spec& spec() const { return ctx_.spec; }
  const model::Settings& settings() const { return ctx_.settings; }
  runner::ProcessRunner& runner() { return ctx_.runner; }
  model::RunResult& result() { return ctx_.result; }
  Progress* progress() { return ctx_.progress; }
  const ServeOverrides& serve_overrides() const { return ctx_.serve; }

  model::WorkloadResult& ResultFor(const spec::Workload& w);

  // Records that the engine was interrupted; returns false, to stop the run.
  bool Interrupted();

  // False (with the failure recorded) when the contender just run wrote into w's generated
  // fixture. `writer`, when not empty, names what ran instead of the contender (its normalise
  // command), so the failure blames that.
  bool CheckFixtureUntouched(const spec::Contender& c, const spec::Workload& w, const std::string& writer = "");

  // A timed execution's directory under the scratch directory, emptied first.
  ExecutionPaths PathsFor(const spec::Contender& c, const spec::Workload& w);
  // A worker's directory (docs/workers.md), one per contender, emptied first: under a name no
  // workload's directory can have ('+' never survives PathComponent).
  ExecutionPaths WorkerPathsFor(const spec::Contender& c);
  // The worktree c was built in, or null when it is not built from git.
  const std::filesystem::path* WorktreeOf(const spec::Contender& c) const;
  // A parity execution's directory: new (mkdtemp), under a name no spec name maps to, so no
  // contender can have planted it (a symlink to where it could read the files later), and
  // removed with everything in it before the next contender runs (RemoveParityOutputs).
  ExecutionPaths ParityPathsFor();
  // Removes what one parity execution wrote: its directory, and an `output` outside it that
  // this execution wrote. No other contender's process ever runs while they exist.
  void RemoveParityOutputs(const ExecutionPaths& paths);

  std::map<std::string, std::string> Placeholders(const spec::Contender& c, const spec::Workload& w,
                                                  const ExecutionPaths& paths, int port = 0);
  std::filesystem::path SpecDir() const;

  runner::Command BuildCommand(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths,
                               int port = 0);

  // Runs one contender on one workload; records a failure and returns false unless it
  // succeeded. With paths_out, a parity execution: a fresh directory of its own, a command
  // built for it, the `output` file's stamp taken before; its paths are returned there.
  bool Execute(const spec::Contender& c, const spec::Workload& w, runner::Outcome* outcome, ExecutionPaths* paths_out);

  // What Execute does once `cmd` ran: progress, interrupt, fixture check, or the failure
  // recorded (a duet round runs its commands itself, engine/run/duet_round.h).
  // `timed`: a timed execution, whose reported counters (docs/counters.md) are read.
  bool Executed(const spec::Contender& c, const spec::Workload& w, const runner::Command& cmd,
                const runner::Outcome& outcome, bool timed);

  // What the last timed execution reported in its counters file, taken (left empty).
  std::vector<model::CounterValue> TakeCounters() { return std::move(last_counters_); }

  // BuildCommand's answer for a timed execution of `c` on `w`, built once: it is on the path of
  // every execution, and nothing it depends on changes during a run.
  // What an execution in `paths` (and its hooks and normaliser) may reach (execution_sandbox.h).
  runner::Sandbox SandboxFor(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths,
                             const std::map<std::string, std::string>& values) const;
  const runner::Command& CommandFor(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths);

  // The spec's hooks (engine/run/hooks.cc) around one execution of c on w: Prepare runs the
  // workload's `prepare`, then the contender's; Cleanup the contender's `cleanup`, then the
  // workload's. Each is an argv with the execution's placeholders, in its own process group,
  // outside the timed window. False, with the failure recorded (naming the contender, the
  // workload, the command and its stderr), when one did not exit 0.
  bool Prepare(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths);
  bool Cleanup(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths);

  // Every contender's own folders (`own_objects`, else its git worktree), for the isolation
  // check (engine/run/shared_objects.h).
  std::vector<ObjectOwner> ObjectOwners() const;

  // One serve round of one contender; records a failure and returns nullopt unless it succeeded.
  std::optional<serve::ServeRoundResult> ExecuteServe(const spec::Contender& c, const spec::Workload& w, bool parity);

 private:
  bool RunHook(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths,
               const std::vector<spec::Located>& argv, const char* which, bool contenders);

  ExecutionContext ctx_;
  std::vector<model::CounterValue> last_counters_;  // what the last timed execution reported
  std::map<std::pair<const spec::Contender*, const spec::Workload*>, runner::Command> commands_;
  std::set<std::pair<const spec::Contender*, const spec::Workload*>> noted_;  // servers' notes given
  std::set<const spec::Workload*> sandbox_noted_;  // workloads told that the kernel refused the sandbox
};

}  // namespace pe::run::internal
