// The family a run's confidence covers (docs/statistics.md, "Family-wise confidence"):
// `[run] confidence` is the confidence of the whole verdict, split by the union bound
// (stats/familywise.h) across every check of the spec that reads an interval: each gated
// workload's sequential thresholds (model::SequentialChecks, from the one threshold table), its
// noisy counter checks, and each sweep's interval checks. Point checks (a count, a peak) read no
// interval and are not in it. The family is the spec's, not one run's selection of it, so a run
// of some workloads (`--workload`, `--shard`) checks at the same level and shards merge.
#pragma once

#include <optional>

#include "engine/spec/spec.h"

namespace pe::spec {

struct Family {
  int checks = 0;                // checks in the family
  double check_confidence = 0;   // each check's level after the split (1 - alpha / checks)
  double family_confidence = 0;  // what the checks at the levels they use guarantee together
};

// The checks `workload` adds to the family (0 for the startup workload and ungated ones): its
// rows once per candidate, since every candidate is judged against the baseline.
int FamilyChecks(const Spec& spec, const Workload& workload);

// The spec's family and its levels; a per_check_confidence override of a workload counts
// at its own level in family_confidence.
Family FamilyOf(const Spec& spec);

// [thresholds] per_check_confidence, or the workload's own: a level set by hand for each check
// of the workload in place of the split one.
std::optional<double> CheckConfidenceOverride(const Spec& spec, const Workload& workload);

}  // namespace pe::spec
