// SampleResult (sample_result.h) grown into a run with sweeps and raw samples, for the
// sweep tables and the HTML report:
//   every workload   one warm-up and ten measured rounds per contender whose median is
//                    the summary's median; large_graph's candidate drifts slower round
//                    by round; huge_graph has the baseline's samples only (the candidate
//                    crashed)
//   dense            threads (1, 2, 4) x allocator (glibc, mimalloc), 192k elements per
//                    run, efficiencies for both contenders, a min_scaling_efficiency gate
//   growth           scale (1, 2, 4, 8), 50k elements per unit of scale, a fit per
//                    contender (the candidate's with a note), a max_cost_exponent gate
#pragma once

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/result.h"
#include "tests/unit/report/sample_result.h"

namespace pe::testing {

// Relative offsets from the median, one per measured round. Sorted they are symmetric
// around their middle pair, so the samples' median is the summary's median exactly.
inline constexpr std::array<double, 10> kSteadyOffsets = {0.01, -0.03, 0.04, 0.0, -0.02, 0.06, -0.04, 0.02, -0.01, 0.0};
inline constexpr std::array<double, 10> kDriftingOffsets = {-0.04, -0.03, -0.02, -0.01, 0.0,
                                                            0.0,   0.01,  0.02,  0.04,  0.06};

inline void AddSamples(model::WorkloadResult& workload, bool candidate_drifts = false) {
  for (std::size_t c = 0; c < workload.summaries.size(); ++c) {
    const model::ContenderSummary& summary = workload.summaries[c];
    const auto& offsets = candidate_drifts && c == 1 ? kDriftingOffsets : kSteadyOffsets;
    for (int round = 0; round <= static_cast<int>(offsets.size()); ++round) {
      model::Sample sample;
      sample.contender = summary.contender;
      sample.round = round;
      sample.warmup = round == 0;
      sample.position = (round + static_cast<int>(c)) % 2;
      double offset = round == 0 ? 0.3 : offsets[round - 1];  // a cold warm-up
      sample.wall_s = summary.median_wall_s * (1 + offset);
      sample.user_s = sample.wall_s * 0.8;
      sample.sys_s = sample.wall_s * 0.1;
      sample.max_rss_kib = summary.median_max_rss_kib;
      workload.samples.push_back(sample);
    }
  }
}

inline model::WorkloadResult SweepPoint(std::string sweep, std::vector<model::AxisValue> point, double elements,
                                        double baseline_s, double candidate_s) {
  std::string name = sweep + "[";
  for (std::size_t i = 0; i < point.size(); ++i) {
    name += fmt::format("{}{}={}", i == 0 ? "" : ",", point[i].axis, point[i].value);
  }
  name += "]";
  model::WorkloadResult workload = MeasuredWorkload(name, "", baseline_s, candidate_s, 10);
  workload.gate = false;
  workload.sweep = std::move(sweep);
  workload.point = std::move(point);
  workload.elements = elements;
  AddSamples(workload);
  return workload;
}

inline model::RunResult SweepSampleResult() {
  model::RunResult r = SampleResult();
  for (auto& workload : r.workloads) AddSamples(workload, workload.name == "large_graph");

  // dense: time at n threads = time at 1 thread / (n x efficiency).
  struct Config {
    std::string allocator;
    double baseline_1;
    double candidate_1;
    std::array<double, 3> baseline_efficiency;
    std::array<double, 3> candidate_efficiency;
  };
  const std::array<Config, 2> configs = {{
      {"glibc", 2.40, 0.200, {1.0, 0.90, 0.70}, {1.0, 0.95, 0.85}},
      {"mimalloc", 2.30, 0.180, {1.0, 0.92, 0.75}, {1.0, 0.97, 0.90}},
  }};
  const std::array<int, 3> threads = {1, 2, 4};
  model::SweepResult dense;
  dense.name = "dense";
  dense.axes = {"threads", "allocator"};
  for (const auto& config : configs) {
    for (std::size_t t = 0; t < threads.size(); ++t) {
      int n = threads[t];
      r.workloads.push_back(SweepPoint("dense", {{"threads", std::to_string(n)}, {"allocator", config.allocator}},
                                       192000, config.baseline_1 / (n * config.baseline_efficiency[t]),
                                       config.candidate_1 / (n * config.candidate_efficiency[t])));
      dense.efficiencies.push_back({"bazel-diff", {{"allocator", config.allocator}}, n, config.baseline_efficiency[t]});
      dense.efficiencies.push_back(
          {"bazel-diff-rs", {{"allocator", config.allocator}}, n, config.candidate_efficiency[t]});
    }
  }
  dense.min_scaling_efficiency = 0.8;
  dense.efficiency_threads = 4;
  r.sweeps.push_back(dense);

  // growth: the baseline's time grows with the square of the scale, the candidate's linearly.
  model::SweepResult growth;
  growth.name = "growth";
  growth.axes = {"scale"};
  for (int scale : {1, 2, 4, 8}) {
    r.workloads.push_back(SweepPoint("growth", {{"scale", std::to_string(scale)}}, 50000.0 * scale, 0.1 * scale * scale,
                                     0.003 + 0.02 * std::pow(scale, 1.02)));
  }
  growth.fits = {
      {"bazel-diff", "scale", {}, 1.98, 1.91, 2.05, 0.95, ""},
      {"bazel-diff-rs", "scale", {}, 1.02, 0.97, 1.08, 0.95, "weak: 4 points"},
  };
  growth.max_cost_exponent = 1.2;
  r.sweeps.push_back(growth);
  return r;
}

}  // namespace pe::testing
