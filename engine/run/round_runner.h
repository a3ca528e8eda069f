// The timed part of a run: warm-up rounds, then interleaved rounds in the spec's order
// (order.h), each contender once per workload per round, until [run] rounds are done and,
// up to max_rounds, while a gated check is still unresolved (early stop) and the exit code can
// still change (a miss no round could undo, gate::MissIsSettled, fixes it at 1: the rounds stop
// and result.rounds_stopped says why); then the extra peak-RSS-only runs. Runs contenders
// through the Executor, so over the ProcessRunner seam. Not a public interface: use experiment.h.
#pragma once

#include <vector>

#include "engine/run/executor.h"
#include "engine/run/worker_round.h"
#include "engine/spec/spec.h"

namespace pe::run::internal {

// When the rounds beyond [run] rounds stop.
struct RoundRules {
  // --keep-measuring: add rounds up to max_rounds while a check is open, even once a settled
  // miss has fixed the exit code, for the figures.
  bool keep_measuring = false;
  // --accept-regression: a miss exits 0 (or 3 beside an unresolved claim), so no miss fixes the
  // exit code and only the unresolved checks end the rounds.
  bool misses_accepted = false;
};

class RoundRunner {
 public:
  RoundRunner(Executor& executor, std::vector<const spec::Workload*> workloads, RoundRules rules = {})
      : ex_(executor), workloads_(std::move(workloads)), rules_(rules) {}

  // The rounds, with every sample and each round's machine load recorded in the result. False
  // after recording a failure or an interrupt.
  bool RunRounds();

  // Extra runs for peak RSS only, after the timed rounds, so they never disturb timing.
  bool RunRssOnly();

  // Workloads with a gated check that the samples so far leave unresolved.
  std::vector<const spec::Workload*> Unresolved(std::vector<OpenCheck>* open_checks = nullptr) const;

 private:
  // The worker workloads' round: [run] batches measured batches of each benchmark from each
  // contender, the contenders alternating, in passes over the benchmarks (batch k of every one,
  // then batch k + 1); one batch gets a warm-up batch just before it. For each workload one
  // sample per contender, in `order`'s order, its batch with the least CPU time per iteration.
  // nullopt with the failure recorded.
  std::optional<std::map<const spec::Workload*, std::vector<model::Sample>>> RunWorkerBatches(
      WorkerRound& workers, const std::vector<const spec::Contender*>& order,
      const std::vector<const spec::Workload*>& worker_workloads);
  // The verdict on the rounds so far, from the confidence sequences only.
  model::Verdict Interim() const;
  // The workloads of `verdict` with an unresolved gated check, and those checks.
  std::vector<const spec::Workload*> Open(const model::Verdict& verdict, std::vector<OpenCheck>* open_checks) const;

  Executor& ex_;
  std::vector<const spec::Workload*> workloads_;
  RoundRules rules_;
  int next_round_ = 0;  // the index the next round would take, warm-ups included
};

}  // namespace pe::run::internal
