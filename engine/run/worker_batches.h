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

namespace pe::run::internal {

// The worker workloads of `workloads`.
std::vector<const spec::Workload*> WorkerWorkloads(const std::vector<const spec::Workload*>& workloads);

// N for a batch to last `batch_time_s` at `iteration_s` a run: at least 1.
std::int64_t BatchIterations(double batch_time_s, double iteration_s);

// Parity and calibration; false with the failure recorded. Nothing to do without worker workloads.
bool CalibrateWorkers(Executor& executor, const std::vector<const spec::Workload*>& workloads);

}  // namespace pe::run::internal
