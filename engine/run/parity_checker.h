// Parity before timing: each contender runs each workload once and its normalised output (or,
// for a server, each response body) must match the baseline's. Different answers are a failed
// run, never a speed-up. Its own library (pe_run_parity); runs contenders through the
// Executor, so over the ProcessRunner seam. Not a public interface: use experiment.h.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "engine/run/executor.h"
#include "engine/run/output_digest.h"
#include "engine/spec/spec.h"

namespace pe::run::internal {

class ParityChecker {
 public:
  explicit ParityChecker(Executor& executor) : ex_(executor) {}

  // Each contender runs each workload once, the baseline first; true when every normalised
  // output agrees with the baseline's. False after recording the failure (a crash, a
  // mismatch, an output that is not this run's) or an interrupt.
  bool Check(const std::vector<const spec::Workload*>& workloads);

  // The baseline first, so every other output is compared against it.
  std::vector<const spec::Contender*> Order() const;

 private:
  bool CheckEach(const std::vector<const spec::Workload*>& workloads);

  // Parity of a serve workload: every request once to each contender, bodies compared in order.
  bool CheckServe(const spec::Workload& w);

  // The progress status of the next parity execution ("parity 3/4: work (candidate), ...").
  void StartStep(const spec::Workload& w, const spec::Contender& c);

  // One parity execution's output against the baseline's, which it keeps in *baseline when `c`
  // is the baseline. False after recording a failure (or an interrupt).
  bool CompareOutput(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths,
                     std::optional<KeptOutput>* baseline);

  // The file holding the output parity compares, checked to be this run's: the stdout capture
  // must still be there, `output` must be a regular file written (or rewritten) by this run.
  // Throws std::runtime_error saying what is wrong.
  std::filesystem::path OutputFile(const spec::Workload& w, const ExecutionPaths& paths) const;

  // Runs the workload's normalise command on `output`; its stdout's path, or nullopt after
  // recording a parity failure (or an interrupt).
  std::optional<std::filesystem::path> RunNormaliseCommand(const spec::Contender& c, const spec::Workload& w,
                                                           const ExecutionPaths& paths,
                                                           const std::filesystem::path& output);

  Executor& ex_;
};

}  // namespace pe::run::internal
