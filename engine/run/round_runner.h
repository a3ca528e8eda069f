// The timed part of a run: warm-up rounds, then interleaved rounds in the spec's order
// (order.h), each contender once per workload per round, until [run] rounds are done and,
// up to max_rounds, while a gated check is still unresolved (early stop); then the extra
// peak-RSS-only runs. Runs contenders through the Executor, so over the ProcessRunner seam.
// Not a public interface: use experiment.h.
#pragma once

#include <vector>

#include "engine/run/executor.h"
#include "engine/spec/spec.h"

namespace pe::run::internal {

class RoundRunner {
 public:
  RoundRunner(Executor& executor, std::vector<const spec::Workload*> workloads)
      : ex_(executor), workloads_(std::move(workloads)) {}

  // The rounds, with every sample and each round's machine load recorded in the result. False
  // after recording a failure or an interrupt.
  bool RunRounds();

  // Extra runs for peak RSS only, after the timed rounds, so they never disturb timing.
  bool RunRssOnly();

  // Workloads with a gated check that the samples so far leave unresolved.
  std::vector<const spec::Workload*> Unresolved(std::vector<OpenCheck>* open_checks = nullptr) const;

 private:
  Executor& ex_;
  std::vector<const spec::Workload*> workloads_;
  int next_round_ = 0;  // the index the next round would take, warm-ups included
};

}  // namespace pe::run::internal
