#include "engine/gate/family.h"

#include "engine/model/threshold_table.h"

namespace pe::gate {

int FamilySize(const model::RunResult& result) {
  int count = 0;
  for (const model::WorkloadResult& w : result.workloads) {
    if (!w.gate || w.startup) continue;
    count += model::SequentialChecks(w.thresholds);
    for (const model::ThresholdRow& row : model::kThresholdRows) {
      // Skipped on a serve workload (RowCheck): its latency is already work after start-up.
      if (w.kind == model::WorkloadResult::Kind::kServe && row.after_startup && (w.thresholds.*row.bar).has_value()) {
        --count;
      }
    }
    for (const model::Counter& counter : w.counters) {
      if (!counter.exact && counter.max_ratio) ++count;
    }
  }
  for (const model::SweepResult& sweep : result.sweeps) {
    if (sweep.max_cost_exponent) {
      for (const model::ScalingFit& fit : sweep.fits) count += fit.contender == result.candidate;
    }
    if (sweep.min_scaling_efficiency) {
      for (const model::ScalingEfficiency& e : sweep.efficiencies) {
        count += e.contender == result.candidate && e.threads == sweep.efficiency_threads;
      }
    }
  }
  return count;
}

}  // namespace pe::gate
