// The run loop's coordinator: it sets the result up, then hands each phase to its collaborator
// and stops at the first that fails. The collaborators, each with its own header and tests:
//   fixture_preparer.h  fixtures materialised and watched for writes
//   executor.h          one execution of one contender on one workload (command, paths, failure)
//   parity_checker.h    outputs compared before any timing (library pe_run_parity)
//   round_runner.h      warm-ups, interleaved rounds in order, early stop, peak-RSS-only runs
//   counts_collector.h  instruction and allocation counts, profiles of a regression
// Not a public interface: use experiment.h.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/run/executor.h"
#include "engine/run/experiment.h"
#include "engine/run/fixture_preparer.h"
#include "engine/run/progress.h"
#include "engine/run/scratch.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/spec.h"

namespace pe::run::internal {

// One run of an experiment: every phase records its failures in the result and returns false
// to stop the run; nothing here exits the process.
class Experiment {
 public:
  Experiment(const spec::Spec& spec, const Options& options, runner::ProcessRunner& runner)
      : spec_(spec), options_(options), runner_(runner) {}

  model::RunResult Run();

 private:
  void InitResult();
  void InitWorkloadResults();

  // Contenders built from git: a worktree per revision under the cache, built once per commit.
  bool BuildContenders();
  bool BuildEach();

  bool PrepareFixtures();

  std::filesystem::path CacheRoot() const;

  const spec::Spec& spec_;
  const Options& options_;
  runner::ProcessRunner& runner_;
  model::Settings settings_;
  model::RunResult result_;
  std::vector<const spec::Workload*> workloads_;
  std::map<std::string, std::filesystem::path> worktrees_;
  std::optional<RunScratch> scratch_dir_;  // held for the run: its lock marks it as in use
  std::optional<Progress> progress_;
  std::optional<FixturePreparer> fixtures_;
  std::optional<Executor> executor_;
};

}  // namespace pe::run::internal
