#include "engine/spec/family.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/threshold_table.h"
#include "stats/familywise.h"

namespace pe::spec {
namespace {

// The sweep checks of `sweep`: one fit per combination of the axes other than `scale`
// (max_cost_exponent) and one efficiency per combination of those other than `threads`
// (min_scaling_efficiency), as analysis::AnalyzeSweeps computes them.
int SweepChecks(const Spec& spec, const Sweep& sweep) {
  auto combinations = [&](const std::string& across) {
    std::set<std::vector<std::pair<std::string, std::string>>> fixed;
    for (const Workload& w : spec.workloads) {
      if (w.sweep != sweep.name) continue;
      std::vector<std::pair<std::string, std::string>> others;
      for (const auto& axis_value : w.point) {
        if (axis_value.first != across) others.push_back(axis_value);
      }
      fixed.insert(std::move(others));
    }
    return static_cast<int>(fixed.size());
  };
  const bool has_scale = std::find(sweep.axes.begin(), sweep.axes.end(), "scale") != sweep.axes.end();
  const bool has_threads = std::find(sweep.axes.begin(), sweep.axes.end(), "threads") != sweep.axes.end();
  int checks = 0;
  if (sweep.max_cost_exponent && has_scale) checks += combinations("scale");
  if (sweep.min_scaling_efficiency && has_threads) checks += combinations("threads");
  return checks;
}

// The level a sweep's checks read: that of its points (analysis::AnalyzeSweeps).
std::optional<double> SweepOverride(const Spec& spec, const Sweep& sweep) {
  std::optional<double> level;
  for (const Workload& w : spec.workloads) {
    if (w.sweep == sweep.name) level = CheckConfidenceOverride(spec, w);
  }
  return level;
}

}  // namespace

std::optional<double> CheckConfidenceOverride(const Spec& spec, const Workload& workload) {
  return workload.thresholds.confidence ? workload.thresholds.confidence : spec.thresholds.confidence;
}

int FamilyChecks(const Spec& spec, const Workload& workload) {
  if (!workload.gate || workload.startup) return 0;
  const model::Thresholds bars = EffectiveBars(spec, workload);
  int checks = model::SequentialChecks(bars);
  // A serve workload's after-start-up rows are skipped checks (its latency is already work after
  // start-up: gate::RowCheck) and read no interval.
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    if (workload.serve && row.after_startup && (bars.*row.bar).has_value()) --checks;
  }
  for (const model::Counter& counter : EffectiveCounters(spec, workload)) {
    if (!counter.exact && counter.max_ratio) ++checks;
  }
  // Each candidate is judged against the baseline by the same rows (gate/candidates.h), so a
  // third contender doubles the workload's checks; all-pairs comparisons are reported, not gated.
  const int candidates = std::max(1, static_cast<int>(spec.contenders.size()) - 1);
  return checks * candidates;
}

Family FamilyOf(const Spec& spec) {
  Family f;
  for (const Workload& w : spec.workloads) f.checks += FamilyChecks(spec, w);
  for (const Sweep& s : spec.sweeps) f.checks += SweepChecks(spec, s);
  const double confidence = spec.settings.confidence;
  f.check_confidence = stats::PerCheckConfidence(confidence, f.checks);
  // The union bound over the levels actually used: the split one, or an override.
  double alpha = 0;
  for (const Workload& w : spec.workloads) {
    alpha += FamilyChecks(spec, w) * (1 - CheckConfidenceOverride(spec, w).value_or(f.check_confidence));
  }
  for (const Sweep& s : spec.sweeps) {
    alpha += SweepChecks(spec, s) * (1 - SweepOverride(spec, s).value_or(f.check_confidence));
  }
  f.family_confidence = f.checks == 0 ? confidence : std::max(0.0, 1 - alpha);
  return f;
}

}  // namespace pe::spec
