// The run loop's internals, shared by the files that implement it: experiment.cc (set-up,
// fixtures, rounds), experiment_parity.cc (parity before timing) and experiment_measure.cc
// (git builds, deterministic counts, profiles). Not a public interface: use experiment.h.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/run/experiment.h"
#include "engine/run/fixture_guard.h"
#include "engine/run/output_digest.h"
#include "engine/run/progress.h"
#include "engine/run/scratch.h"
#include "engine/runner/process_runner.h"
#include "engine/serve/serve_round.h"
#include "engine/spec/spec.h"
#include "generators/fixture_cache.h"

namespace pe::run::internal {

namespace fs = std::filesystem;

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

// One run of an experiment: every phase records its failures in the result and returns false
// to stop the run; nothing here exits the process.

class Experiment {
 public:
  Experiment(const spec::Spec& spec, const Options& options, runner::ProcessRunner& runner)
      : spec_(spec), options_(options), runner_(runner) {}

  model::RunResult Run();

 private:
  void InitResult();

  model::WorkloadResult& ResultFor(const spec::Workload& w);

  // Contenders built from git: a worktree per revision under the cache, built once per commit.
  bool BuildContenders();

  fs::path CacheRoot() const { return options_.cache_root.empty() ? gen::DefaultCacheRoot() : options_.cache_root; }

  bool WantsInstructions(const spec::Workload& w);

  bool WantsAllocations(const spec::Workload& w);

  // Instruction and allocation counts are deterministic: one run per contender and workload.
  bool RunCounts();

  // Where the extra time went: callgrind profiles of both contenders on each workload that
  // missed a no-regression threshold.
  void ProfileRegressions();

  bool PrepareFixtures();

  // False (with the failure recorded) when the contender just run wrote into w's generated
  // fixture. `writer`, when not empty, names what ran instead of the contender (its normalise
  // command), so the failure blames that.
  bool CheckFixtureUntouched(const spec::Contender& c, const spec::Workload& w, const std::string& writer = "");

  struct Paths {
    fs::path dir, stdout_path, stderr_path, out, workdir;
    fs::path output;          // the workload's `output` file (empty for stdout)
    FileStamp output_before;  // that file as it was just before the run
  };

  Paths PathsFor(const spec::Contender& c, const spec::Workload& w);
  // A parity execution's directory: new (mkdtemp), under a name no spec name maps to, so no
  // contender can have planted it (a symlink to where it could read the files later), and
  // removed with everything in it before the next contender runs (RemoveParityOutputs).
  Paths ParityPathsFor();
  // Removes what one parity execution wrote: its directory, and an `output` outside it that
  // this execution wrote. No other contender's process ever runs while they exist.
  void RemoveParityOutputs(const Paths& paths);

  std::map<std::string, std::string> Placeholders(const spec::Contender& c, const spec::Workload& w, const Paths& paths,
                                                  int port = 0);

  fs::path SpecDir() const { return spec_.path.parent_path().empty() ? fs::path(".") : spec_.path.parent_path(); }

  runner::Command BuildCommand(const spec::Contender& c, const spec::Workload& w, const Paths& paths, int port = 0);
  // BuildCommand's answer for an execution of `c` on `w`, built once: it is on the path of
  // every execution, and nothing it depends on changes during a run.
  const runner::Command& CommandFor(const spec::Contender& c, const spec::Workload& w, const Paths& paths);

  // One serve round of one contender; records a failure and returns nullopt unless it succeeded.
  std::optional<serve::ServeRoundResult> ExecuteServe(const spec::Contender& c, const spec::Workload& w, bool parity);

  // Parity of a serve workload: every request once to each contender, bodies compared in order.
  bool CheckServeParity(const spec::Workload& w);

  // Runs one contender on one workload; records a failure and returns false unless it succeeded.
  bool Execute(const spec::Contender& c, const spec::Workload& w, runner::Outcome* outcome, Paths* paths_out);

  bool Interrupted();

  // The file holding the output parity compares, checked to be this run's: the stdout capture
  // must still be there, `output` must be a regular file written (or rewritten) by this run.
  // Throws std::runtime_error saying what is wrong.
  fs::path OutputFile(const spec::Workload& w, const Paths& paths) const;
  std::map<std::pair<const spec::Contender*, const spec::Workload*>, runner::Command> commands_;
  std::set<std::pair<const spec::Contender*, const spec::Workload*>> noted_;  // servers' notes given

  // Each contender runs each workload once; normalised outputs must agree before any timing.
  bool CheckParity();

  // One parity execution's output against the baseline's, which it keeps in *baseline when `c`
  // is the baseline. False after recording a failure (or an interrupt).
  bool CompareParityOutput(const spec::Contender& c, const spec::Workload& w, const Paths& paths,
                           std::optional<KeptOutput>* baseline);

  // The baseline first, so every other output is compared against it.
  std::vector<const spec::Contender*> ParityOrder() const;
  // Runs the workload's normalise command on `output`; its stdout's path, or nullopt after
  // recording a parity failure (or an interrupt).
  std::optional<fs::path> RunNormaliseCommand(const spec::Contender& c, const spec::Workload& w, const Paths& paths,
                                              const fs::path& output);

  bool RunRounds();
  std::vector<const spec::Workload*> Unresolved(std::vector<OpenCheck>* open_checks = nullptr) const;

  // Extra runs for peak RSS only, after the timed rounds, so they never disturb timing.
  bool RunRssOnly();

  const spec::Spec& spec_;
  const Options& options_;
  runner::ProcessRunner& runner_;
  model::Settings settings_;
  int next_round_ = 0;  // the index the next round would take, warm-ups included
  model::RunResult result_;
  std::vector<const spec::Workload*> workloads_;
  std::map<std::string, fs::path> fixtures_;
  std::map<fs::path, std::unique_ptr<FixtureGuard>> guards_;  // one per generated fixture
  std::map<std::string, fs::path> worktrees_;
  std::optional<RunScratch> scratch_dir_;  // held for the run: its lock marks it as in use
  fs::path scratch_;
  std::optional<Progress> progress_;
};

}  // namespace pe::run::internal
