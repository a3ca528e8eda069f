#include "engine/gate/family.h"

#include "engine/model/threshold_table.h"

namespace pe::gate {

int SequentialChecks(const model::Thresholds& thresholds) {
  int count = 0;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    if (row.burden != model::Check::Burden::kPoint && (thresholds.*row.bar).has_value()) ++count;
  }
  return count;
}

int FamilySize(const model::RunResult& result) {
  int count = 0;
  for (const model::WorkloadResult& w : result.workloads) {
    if (w.gate) count += SequentialChecks(w.thresholds);
  }
  return count;
}

}  // namespace pe::gate
