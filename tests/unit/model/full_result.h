// A RunResult with every field set to a value unlike its default, for round-trip tests.
#pragma once

#include <cstdint>

#include "engine/model/result.h"

namespace pe::testing {

inline model::Interval MakeInterval(double estimate, std::string method) {
  model::Interval interval;
  interval.estimate = estimate;
  interval.low = estimate * 0.9;
  interval.high = estimate * 1.1;
  interval.level = 0.9;
  interval.method = std::move(method);
  return interval;
}

inline model::RunResult FullResult() {
  model::RunResult r;
  r.engine_version = "0.1.0-test";
  r.spec_path = "specs/bazel-diff.toml";
  r.spec_digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  r.started_at = "2024-05-01T12:34:56Z";
  r.machine = {"bench-01", "Linux 6.1.0", "AMD EPYC 7B13", 2, 8167400};
  r.settings.rounds = 12;
  r.settings.warmup_rounds = 2;
  r.settings.scale = 0.1;
  r.settings.seed = 18446744073709551615ull;  // the largest seed must survive too
  r.settings.timeout_s = 1e-7;
  r.settings.order = "random";
  r.settings.bootstrap_resamples = 2000;
  r.settings.confidence = 0.99;
  r.settings.max_rounds = 40;
  r.settings.compare = "all-pairs";
  r.settings.family_checks = 19;
  r.settings.check_confidence = 0.99947;
  r.settings.family_confidence = 0.98;
  r.settings.batch_time_s = 0.05;
  r.settings.batches = 5;
  r.settings.final_look = "signed-rank";
  r.settings.futility = "conditional-power";
  r.settings.randomize_addresses = false;
  r.settings.pin_workers = true;
  r.baseline = "bazel-diff";
  r.candidate = "bazel-diff-rs";
  r.contenders = {
      {"bazel-diff", "the original", {"java", "-jar", "bazel-diff.jar"}, {"java", "-version"}},
      {"bazel-diff-rs",
       "the rewrite \"quoted\" \xce\xbc",
       {"bazel-diff-rs", "--x"},
       {},
       "HEAD",
       "0123abcd",
       {"make", "-j2"},
       true},
  };

  model::WorkloadResult w;
  w.name = "large_graph";
  w.description = "50k targets";
  w.gate = false;
  w.startup = true;
  w.thresholds.min_speedup = 10;
  w.thresholds.min_win_rate = 0.8;
  w.thresholds.min_logic_speedup = 2.5;
  w.thresholds.max_rss_ratio = 1.5;
  w.thresholds.rss_runs = 3;
  w.thresholds.min_speedup_ci = 5;
  w.thresholds.max_slowdown = 1.05;
  w.thresholds.confidence = 0.9;
  w.thresholds.max_instructions_ratio = 1.01;
  w.thresholds.max_allocations_ratio = 1.0;
  w.thresholds.max_p99_ratio = 1.1;
  w.thresholds.max_own_instructions_ratio = 1.02;
  model::Sample s;
  s.contender = "bazel-diff";
  s.round = 3;
  s.warmup = true;
  s.rss_only = true;
  s.position = 1;
  s.wall_s = 0.1;
  s.user_s = 1e-7;
  s.sys_s = 0.30000000000000004;
  s.max_rss_kib = 9007199254740993;  // above 2^53: must not pass through a double
  w.samples = {s, s};
  w.samples[0].serve = model::ServeFigures{200, 0.0011, 0.002, 0.0035, 0.01, 1500.5, 0.25};
  w.samples[1].contender = "bazel-diff-rs";
  w.samples[1].wall_s = 2.2250738585072014e-308;
  w.samples[1].counters = {{"ruby_objects", 1413917}, {"cache_misses", 0.5}};
  w.samples[1].worker = model::WorkerFigures{2000, 0.0000405, 5, 0.02};
  w.summaries = {{"bazel-diff", 10, 1.5, 1.25, 0.125, 1.0, 2.0, 123456},
                 {"bazel-diff-rs", 10, 0.075, 0.05, 0.01, 0.07, 0.09, 23456}};
  w.summaries[1].median_cpu_s = 0.06;
  w.summaries[1].serve = model::ServeFigures{100, 0.001, 0.002, 0.003, 0.004, 900, 0.3};
  w.summaries[1].instructions = 18446744073709551615ULL;  // the largest count must survive
  w.summaries[1].instructions_source = "valgrind callgrind";
  w.summaries[1].own_instructions = 4000000000ULL;
  w.summaries[1].allocation_calls = 1000;
  w.summaries[1].allocated_bytes = 64000;
  w.summaries[0].measure_note = "not measurable: statically linked";
  model::Comparison c;
  c.baseline = "bazel-diff";
  c.candidate = "bazel-diff-rs";
  c.speedup = 20.0 / 3.0;
  c.rounds = 10;
  c.wins = 9;
  c.win_rate = 0.9;
  c.baseline_logic_s = 1.3;
  c.candidate_logic_s = 0.05;
  c.logic_speedup = 26;
  c.logic_note = "ok";
  c.rss_ratio = 0.19;
  c.sign_test_p = 0.021484375;
  c.wilcoxon_p = 0.001953125;
  c.speedup_ci = MakeInterval(20, "bootstrap BCa");
  c.logic_speedup_ci = MakeInterval(26, "bootstrap BCa");
  c.paired_ratio_ci = MakeInterval(0.05, "Hodges-Lehmann (Wilcoxon)");
  c.rounds_to_resolve = 7;
  c.notes = {"only 5 rounds: fewer than 9", "second note"};
  c.cpu_ratio = 1.03;
  c.cpu_ratio_ci = MakeInterval(0.01, "Hodges-Lehmann on CPU time");
  c.instructions_ratio = 1.2;
  c.allocations_ratio = 2;
  c.p99_ratio = 0.8;
  c.own_instructions_ratio = 1.3;
  c.speedup_cs = MakeInterval(19, "confidence sequence");
  c.cpu_ratio_cs = MakeInterval(1.02, "confidence sequence");
  c.win_rate_cs = MakeInterval(0.85, "confidence sequence");
  c.logic_speedup_cs = MakeInterval(25, "confidence sequence");
  c.speedup_rounds_needed = 11;
  c.cpu_rounds_needed = 12;
  c.logic_rounds_needed = 13;
  c.win_rounds_needed = 14;
  c.counters = {{"ruby_objects", 1413917, 1413931, 1.0000099, MakeInterval(1.01, "confidence sequence"), 21,
                 "the baseline reported 0", 0.021}};
  c.speedup_noise = 0.031;
  c.cpu_noise = 0.032;
  c.cpu_futility_chance = 0.012;
  c.logic_noise = 0.033;
  w.comparison = c;
  model::Comparison third = c;  // a third contender against the baseline
  third.candidate = "bazel-diff-go";
  third.speedup = 3;
  w.other_comparisons = {third};
  w.failures = {{model::Failure::Kind::kParity, "large_graph", "bazel-diff-rs", "outputs differ", "line 3: a != b\n"}};
  w.sweep = "dense";
  w.point = {{"threads", "4"}, {"allocator", "mimalloc"}};
  w.elements = 192000;
  w.kind = model::WorkloadResult::Kind::kServe;
  w.profile = {
      {"ParseRecords", 2100046, 6900070, 0.452, 0.731, "inclusive", "parser.so", "of which memcpy (libc.so.6) +12"}};
  w.profile_note = "callgrind, self cost";
  w.parity = "json-map";
  w.normalise = {"gzip", "-dc", "{output}"};
  w.unit = "B";
  w.counters = {{"ruby_objects", "objects", true, 1.0}};
  w.notes = {"contender 'bazel-diff-rs': server ignored SIGTERM and was killed after 5 s"};
  w.worker = model::WorkerBenchmark{"parse_twitter", 17, 0.0029, "9f3a61c2e07b5d14"};
  r.workloads = {w};

  model::SweepResult sweep;
  sweep.name = "dense";
  sweep.axes = {"threads", "allocator"};
  sweep.fits = {{"bazel-diff-rs", "scale", {{"threads", "4"}}, 1.02, 0.97, 1.08, 0.9, "weak"}};
  sweep.efficiencies = {
      {"bazel-diff-rs", {{"allocator", "mimalloc"}}, 4, 0.83, model::Interval{0.82, 0.71, 0.9, 0.9, "median CS"}}};
  sweep.max_cost_exponent = 1.2;
  sweep.min_scaling_efficiency = 0.7;
  sweep.efficiency_threads = 4;
  r.sweeps = {sweep};

  // A second workload with every optional empty.
  model::WorkloadResult bare;
  bare.name = "bare";
  model::Comparison empty_comparison;
  empty_comparison.logic_note = "startup-bound: too little left";
  bare.comparison = empty_comparison;
  r.workloads.push_back(bare);

  r.failures = {{model::Failure::Kind::kTimeout, "", "bazel-diff", "timed out after 60 s", ""},
                {model::Failure::Kind::kBuild, "large_graph", "", "build failed", "make: *** [all] Error 2"},
                {model::Failure::Kind::kCounters, "large_graph", "bazel-diff", "wrote a bad counter line", "x"}};
  r.complete = true;
  r.rounds_stopped = "rounds stopped after 7 of up to 30, as a miss no round can undo fixes the exit code at 1";
  r.verdict.exit = model::ExitCode::kThresholdMissed;
  model::Check check;  // every member unlike its default, so the round trip shows each
  check.workload = "large_graph";
  check.threshold = "max_slowdown";
  check.label = "paired CPU-time ratio";
  check.measured = 1.07;
  check.bar = 1.05;
  check.higher_is_better = false;
  check.passed = true;
  check.skipped = true;
  check.note = "note";
  check.state = model::Check::State::kUnresolved;
  check.burden = model::Check::Burden::kShowMissed;
  check.interval = MakeInterval(1.07, "confidence sequence");
  check.rounds = 30;
  check.rounds_needed = 55;
  check.unit = model::Check::Unit::kNumber;
  check.contender = "bazel-diff-go";
  check.detectable = 1.034;
  check.noise = 0.021;
  check.futile = true;
  r.verdict.checks = {check};
  r.verdict.lines = {"large_graph: median speedup 6.67x is below 10.0x"};
  r.verdict.accepted = true;
  r.verdict.accepted_by = "--accept-regression";
  r.verdict.notes = {"large_graph: still unresolved after 40 rounds"};
  r.load = {{3, 1.5, 0.25, 0.01, 2400.5}, {4, std::nullopt, 0.5, std::nullopt, std::nullopt}};
  model::ShardInfo shard;
  shard.index = 2;
  shard.count = 3;
  shard.selection = {"small_graph", "large_graph", "bare"};
  shard.workloads = {"large_graph"};
  shard.machine = {"ci-7", "Linux 6.1", "EPYC", 4, 16000000};
  shard.started_at = "2026-12-03T08:00:00Z";
  r.shards = {shard};
  r.phases = model::PhaseTimes{1.5, 12.25, 3.5, 240.125, 8.0625, 266.5};
  return r;
}

}  // namespace pe::testing
