// A hand-built RunResult for reporter tests: one workload of each kind a report must show.
//   startup       the built-in startup workload, not gated
//   tiny_graph    passes, but startup-bound: no startup-adjusted figure
//   medium_graph  passes
//   large_graph   misses min_speedup
//   huge_graph    the candidate crashed (signal 11, with a stderr tail)
//   cold_cache    measured, not gated
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/model/result.h"

namespace pe::testing {

inline model::ContenderSummary SummaryOf(std::string contender, double median_wall_s) {
  model::ContenderSummary summary;
  summary.contender = std::move(contender);
  summary.n = 10;
  summary.median_wall_s = median_wall_s;
  summary.median_user_s = median_wall_s * 0.8;
  summary.median_sys_s = median_wall_s * 0.1;
  summary.min_wall_s = median_wall_s * 0.95;
  summary.max_wall_s = median_wall_s * 1.1;
  summary.median_max_rss_kib = 123456;
  return summary;
}

inline model::WorkloadResult MeasuredWorkload(std::string name, std::string description, double baseline_s,
                                              double candidate_s, int wins) {
  model::WorkloadResult workload;
  workload.name = std::move(name);
  workload.description = std::move(description);
  workload.summaries = {SummaryOf("bazel-diff", baseline_s), SummaryOf("bazel-diff-rs", candidate_s)};
  model::Comparison comparison;
  comparison.speedup = baseline_s / candidate_s;
  // The median per-round speed-up the tables show: here the ratio of medians, inside a sequence
  // 10% either side of it.
  const double per_round = baseline_s / candidate_s;
  comparison.speedup_cs = model::Interval{per_round, per_round * 0.9, per_round * 1.1, 0.95, "confidence sequence"};
  comparison.rounds = 10;
  comparison.wins = wins;
  comparison.win_rate = wins / 10.0;
  workload.comparison = comparison;
  return workload;
}

inline model::Check CheckOf(std::string workload, std::string threshold, std::string label, double measured,
                            double bar) {
  model::Check check;
  check.workload = std::move(workload);
  check.threshold = std::move(threshold);
  check.label = std::move(label);
  check.measured = measured;
  check.bar = bar;
  check.passed = measured >= bar;
  return check;
}

inline model::RunResult SampleResult() {
  model::RunResult r;
  r.engine_version = "0.1.0";
  r.spec_path = "specs/bazel-diff.toml";
  r.spec_digest = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
  r.started_at = "2024-05-01T12:00:00Z";
  r.machine = {"bench-01", "Linux 6.1.0-18-amd64", "AMD EPYC 7B13", 2, 8167400};
  r.settings.rounds = 10;
  r.settings.warmup_rounds = 1;
  r.settings.seed = 42;
  r.baseline = "bazel-diff";
  r.candidate = "bazel-diff-rs";
  r.contenders = {
      {"bazel-diff", "the original Java implementation", {"java", "-jar", "bazel-diff.jar"}, {}},
      {"bazel-diff-rs", "the Rust rewrite", {"bazel-diff-rs"}, {}},
  };

  model::WorkloadResult startup = MeasuredWorkload("startup", "start and exit", 0.412, 0.00312, 10);
  startup.startup = true;
  startup.gate = false;
  startup.comparison->logic_note = "startup: this is the startup workload";
  r.workloads.push_back(startup);

  model::WorkloadResult tiny = MeasuredWorkload("tiny_graph", "12 targets", 0.431, 0.0051, 10);
  tiny.comparison->logic_note = "startup-bound: startup is 96% of the baseline median";
  r.workloads.push_back(tiny);

  model::WorkloadResult medium = MeasuredWorkload("medium_graph", "5k targets", 2.15, 0.109, 10);
  medium.comparison->logic_speedup = 21.43;
  r.workloads.push_back(medium);

  model::WorkloadResult large = MeasuredWorkload("large_graph", "50k targets", 12.8, 1.52, 9);
  large.comparison->logic_speedup = 8.7;
  r.workloads.push_back(large);

  model::WorkloadResult huge;
  huge.name = "huge_graph";
  huge.description = "200k targets";
  huge.summaries = {SummaryOf("bazel-diff", 61.3)};
  huge.failures = {{model::Failure::Kind::kSignal, "huge_graph", "bazel-diff-rs",
                    "killed by signal 11 (SIGSEGV) in round 3",
                    "thread 'main' panicked at src/graph.rs:88:5:\n"
                    "index out of bounds: the len is 3 but the index is 7\n"
                    "note: run with `RUST_BACKTRACE=1` to display a backtrace\n"}};
  r.workloads.push_back(huge);

  model::WorkloadResult cold = MeasuredWorkload("cold_cache", "dropped page cache", 3.9, 0.95, 8);
  cold.gate = false;
  cold.comparison->logic_speedup = 4.27;
  r.workloads.push_back(cold);

  r.complete = true;
  r.verdict.exit = model::ExitCode::kRunFailed;
  r.verdict.checks = {
      CheckOf("tiny_graph", "min_speedup", "median speedup", 0.431 / 0.0051, 2),
      CheckOf("medium_graph", "min_speedup", "median speedup", 2.15 / 0.109, 10),
      CheckOf("medium_graph", "min_logic_speedup", "startup-adjusted speedup", 21.43, 10),
      CheckOf("large_graph", "min_speedup", "median speedup", 12.8 / 1.52, 10),
  };
  // The speed-up checks read the comparisons' sequences, as the gate's do.
  for (model::Check& check : r.verdict.checks) {
    for (const model::WorkloadResult& w : r.workloads) {
      if (check.threshold == "min_speedup" && w.name == check.workload) {
        check.interval = w.comparison->speedup_cs;
        check.burden = model::Check::Burden::kShowMet;
        check.state = check.passed ? model::Check::State::kPass : model::Check::State::kFail;
      }
    }
  }
  r.verdict.lines = {
      "large_graph: median speedup 8.42x is below the required 10.0x",
      "huge_graph: bazel-diff-rs killed by signal 11 (SIGSEGV) in round 3",
  };
  return r;
}

}  // namespace pe::testing
