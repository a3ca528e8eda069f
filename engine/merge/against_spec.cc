#include "engine/merge/against_spec.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/base/error.h"
#include "engine/model/json.h"

namespace pe::merge {

using model::RunResult;
using model::SweepResult;
using model::Thresholds;
using model::WorkloadResult;

namespace {

// The first field that differs, as the results file writes them ("min_speedup none vs 1.0"),
// so a threshold added later is compared too.
std::string Difference(const nlohmann::json& recorded, const nlohmann::json& expected) {
  for (const nlohmann::json* side : {&expected, &recorded}) {
    for (const auto& [key, value] : side->items()) {
      const auto shown = [&](const nlohmann::json& j) { return j.contains(key) ? j[key].dump() : "none"; };
      if (shown(recorded) != shown(expected)) return fmt::format("{} {} vs {}", key, shown(recorded), shown(expected));
    }
  }
  return "";
}

nlohmann::json ThresholdsJson(const Thresholds& t) {
  RunResult r;
  r.workloads.push_back({});
  r.workloads[0].thresholds = t;
  return model::ToJson(r)["workloads"][0]["thresholds"];
}

nlohmann::json SweepJson(const SweepResult& s) {
  nlohmann::json j;
  if (s.max_cost_exponent) j["max_cost_exponent"] = *s.max_cost_exponent;
  if (s.min_scaling_efficiency) j["min_scaling_efficiency"] = *s.min_scaling_efficiency;
  j["efficiency_threads"] = s.efficiency_threads;
  return j;
}

}  // namespace

void CheckAgainstSpec(const std::vector<ShardFile>& files, const spec::Spec& spec) {
  const std::string name = spec.path.string();
  for (const ShardFile& f : files) {
    const RunResult& r = f.result;
    if (r.spec_digest != spec.digest) {
      throw base::UsageError(fmt::format("{} was not run from {}: its spec has sha256 {}, {} has {}", f.path, name,
                                         r.spec_digest.substr(0, 12), name, spec.digest.substr(0, 12)));
    }
    if (r.baseline != spec.baseline || r.candidate != spec.candidate) {
      throw base::UsageError(fmt::format("{}: it compares {} against {}, {} compares {} against {}", f.path,
                                         r.candidate, r.baseline, name, spec.candidate, spec.baseline));
    }
    for (const WorkloadResult& w : r.workloads) {
      const spec::Workload* own = spec.FindWorkload(w.name);
      if (own == nullptr) throw base::UsageError(fmt::format("{}: workload '{}' is not in {}", f.path, w.name, name));
      const auto refuse = [&](const std::string& what) {
        throw base::UsageError(fmt::format("{}: workload '{}': {}", f.path, w.name, what));
      };
      if (w.gate != own->gate) refuse(fmt::format("gate {} vs {} in {}", w.gate, own->gate, name));
      if (w.startup != own->startup) refuse(fmt::format("startup {} vs {} in {}", w.startup, own->startup, name));
      const std::string d =
          Difference(ThresholdsJson(w.thresholds), ThresholdsJson(spec::EffectiveThresholds(spec, *own)));
      if (!d.empty()) refuse(fmt::format("thresholds are not {}'s: {}", name, d));
    }
    for (const SweepResult& s : r.sweeps) {
      const auto own =
          std::find_if(spec.sweeps.begin(), spec.sweeps.end(), [&](const spec::Sweep& x) { return x.name == s.name; });
      if (own == spec.sweeps.end())
        throw base::UsageError(fmt::format("{}: sweep '{}' is not in {}", f.path, s.name, name));
      SweepResult expected;
      expected.max_cost_exponent = own->max_cost_exponent;
      expected.min_scaling_efficiency = own->min_scaling_efficiency;
      expected.efficiency_threads = own->efficiency_threads;
      if (const std::string d = Difference(SweepJson(s), SweepJson(expected)); !d.empty()) {
        throw base::UsageError(fmt::format("{}: sweep '{}': thresholds are not {}'s: {}", f.path, s.name, name, d));
      }
    }
  }
}

}  // namespace pe::merge
