// Before any timing, for worker workloads (docs/workers.md, "Parity" and "Batch size"): one
// worker per contender answers each benchmark once, and the digests must agree (different
// answers are a failed run, never a speed-up); then each benchmark's batches grow until one
// lasts a quarter of [run] batch_time, and the batch size N every measured batch will run is
// chosen from the slowest contender's time per iteration, the same N for every contender so
// the pairs compare like with like. Recorded in each WorkloadResult's `worker`.
// Not a public interface: use experiment.h.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/run/executor.h"
#include "engine/spec/spec.h"
#include "engine/worker/protocol.h"

namespace pe::run::internal {

// What a batch's length is measured in, in ns: its CPU time, so a loaded machine (whose wall
// clock runs on while the worker waits for a core) does not shrink the batches; a quarter of its
// wall time at least, so a benchmark that waits (I/O, sleep) still gets batches of bounded wall.
double BatchCost(const worker::Batch& batch);

// The worker workloads of `workloads`.
std::vector<const spec::Workload*> WorkerWorkloads(const std::vector<const spec::Workload*>& workloads);

// Worker workloads split by worker_group, the groups in the order they first appear: each gets a
// round's workers of its own (docs/workers.md, "Worker groups").
std::vector<std::vector<const spec::Workload*>> WorkerGroups(const std::vector<const spec::Workload*>& workers);

// N for a batch to last `batch_time_s` at `iteration_s` a run: at least 1.
std::int64_t BatchIterations(double batch_time_s, double iteration_s);

// Parity and calibration; false with the failure recorded. Nothing to do without worker workloads.
bool CalibrateWorkers(Executor& executor, const std::vector<const spec::Workload*>& workloads);

}  // namespace pe::run::internal
