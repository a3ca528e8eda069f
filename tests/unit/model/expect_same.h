// Field-by-field equality of two RunResults, written out by hand (not from fields.h), so
// a field the JSON code forgets is caught here. Doubles must match bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::testing {

inline void Same(double a, double b, const std::string& path) {
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b)) << path << ": " << a << " vs " << b;
}
inline void Same(const std::string& a, const std::string& b, const std::string& path) { EXPECT_EQ(a, b) << path; }
inline void Same(bool a, bool b, const std::string& path) { EXPECT_EQ(a, b) << path; }
inline void Same(int a, int b, const std::string& path) { EXPECT_EQ(a, b) << path; }
inline void Same(std::int64_t a, std::int64_t b, const std::string& path) { EXPECT_EQ(a, b) << path; }
inline void Same(std::uint64_t a, std::uint64_t b, const std::string& path) { EXPECT_EQ(a, b) << path; }
inline void Same(model::Failure::Kind a, model::Failure::Kind b, const std::string& path) {
  EXPECT_EQ(static_cast<int>(a), static_cast<int>(b)) << path;
}
inline void Same(model::ExitCode a, model::ExitCode b, const std::string& path) {
  EXPECT_EQ(static_cast<int>(a), static_cast<int>(b)) << path;
}
inline void Same(model::Check::Unit a, model::Check::Unit b, const std::string& path) {
  EXPECT_EQ(static_cast<int>(a), static_cast<int>(b)) << path;
}
inline void Same(model::WorkloadResult::Kind a, model::WorkloadResult::Kind b, const std::string& path) {
  EXPECT_EQ(static_cast<int>(a), static_cast<int>(b)) << path;
}

// Declared ahead so the optional and vector templates below find them.
inline void Same(const model::ShardInfo& a, const model::ShardInfo& b, const std::string& path);
inline void Same(const model::Interval& a, const model::Interval& b, const std::string& path);
inline void Same(const model::Sample& a, const model::Sample& b, const std::string& path);
inline void Same(const model::Failure& a, const model::Failure& b, const std::string& path);
inline void Same(const model::ContenderSummary& a, const model::ContenderSummary& b, const std::string& path);
inline void Same(const model::Check& a, const model::Check& b, const std::string& path);
inline void Same(const model::ContenderInfo& a, const model::ContenderInfo& b, const std::string& path);
inline void Same(const model::Comparison& a, const model::Comparison& b, const std::string& path);
inline void Same(const model::WorkloadResult& a, const model::WorkloadResult& b, const std::string& path);
inline void Same(const model::AxisValue& a, const model::AxisValue& b, const std::string& path);
inline void Same(const model::ScalingFit& a, const model::ScalingFit& b, const std::string& path);
inline void Same(const model::ScalingEfficiency& a, const model::ScalingEfficiency& b, const std::string& path);
inline void Same(const model::SweepResult& a, const model::SweepResult& b, const std::string& path);
inline void Same(const model::ServeFigures& a, const model::ServeFigures& b, const std::string& path) {
  Same(a.requests, b.requests, path + ".requests");
  Same(a.p50_s, b.p50_s, path + ".p50_s");
  Same(a.p90_s, b.p90_s, path + ".p90_s");
  Same(a.p99_s, b.p99_s, path + ".p99_s");
  Same(a.max_s, b.max_s, path + ".max_s");
  Same(a.throughput_rps, b.throughput_rps, path + ".throughput_rps");
  Same(a.time_to_ready_s, b.time_to_ready_s, path + ".time_to_ready_s");
}
inline void Same(const model::FunctionShift& a, const model::FunctionShift& b, const std::string& path) {
  Same(a.function, b.function, path + ".function");
  Same(a.baseline_cost, b.baseline_cost, path + ".baseline_cost");
  Same(a.candidate_cost, b.candidate_cost, path + ".candidate_cost");
  Same(a.baseline_share, b.baseline_share, path + ".baseline_share");
  Same(a.candidate_share, b.candidate_share, path + ".candidate_share");
}

template <typename T>
void Same(const std::optional<T>& a, const std::optional<T>& b, const std::string& path) {
  ASSERT_EQ(a.has_value(), b.has_value()) << path;
  if (a) Same(*a, *b, path);
}

template <typename T>
void Same(const std::vector<T>& a, const std::vector<T>& b, const std::string& path) {
  ASSERT_EQ(a.size(), b.size()) << path;
  for (std::size_t i = 0; i < a.size(); ++i) {
    Same(a[i], b[i], path + "[" + std::to_string(i) + "]");
  }
}

inline void Same(const model::Interval& a, const model::Interval& b, const std::string& path) {
  Same(a.estimate, b.estimate, path + ".estimate");
  Same(a.low, b.low, path + ".low");
  Same(a.high, b.high, path + ".high");
  Same(a.level, b.level, path + ".level");
  Same(a.method, b.method, path + ".method");
}

inline void Same(const model::Sample& a, const model::Sample& b, const std::string& path) {
  Same(a.contender, b.contender, path + ".contender");
  Same(a.round, b.round, path + ".round");
  Same(a.warmup, b.warmup, path + ".warmup");
  Same(a.rss_only, b.rss_only, path + ".rss_only");
  Same(a.position, b.position, path + ".position");
  Same(a.wall_s, b.wall_s, path + ".wall_s");
  Same(a.user_s, b.user_s, path + ".user_s");
  Same(a.sys_s, b.sys_s, path + ".sys_s");
  Same(a.max_rss_kib, b.max_rss_kib, path + ".max_rss_kib");
  Same(a.serve, b.serve, path + ".serve");
}

inline void Same(const model::Failure& a, const model::Failure& b, const std::string& path) {
  Same(a.kind, b.kind, path + ".kind");
  Same(a.workload, b.workload, path + ".workload");
  Same(a.contender, b.contender, path + ".contender");
  Same(a.message, b.message, path + ".message");
  Same(a.detail, b.detail, path + ".detail");
}

inline void Same(const model::ContenderSummary& a, const model::ContenderSummary& b, const std::string& path) {
  Same(a.contender, b.contender, path + ".contender");
  Same(a.n, b.n, path + ".n");
  Same(a.median_wall_s, b.median_wall_s, path + ".median_wall_s");
  Same(a.median_user_s, b.median_user_s, path + ".median_user_s");
  Same(a.median_sys_s, b.median_sys_s, path + ".median_sys_s");
  Same(a.min_wall_s, b.min_wall_s, path + ".min_wall_s");
  Same(a.max_wall_s, b.max_wall_s, path + ".max_wall_s");
  Same(a.median_max_rss_kib, b.median_max_rss_kib, path + ".median_max_rss_kib");
  Same(a.median_cpu_s, b.median_cpu_s, path + ".median_cpu_s");
  Same(a.instructions, b.instructions, path + ".instructions");
  Same(a.instructions_source, b.instructions_source, path + ".instructions_source");
  Same(a.allocation_calls, b.allocation_calls, path + ".allocation_calls");
  Same(a.allocated_bytes, b.allocated_bytes, path + ".allocated_bytes");
  Same(a.measure_note, b.measure_note, path + ".measure_note");
  Same(a.serve, b.serve, path + ".serve");
}

inline void Same(const model::Check& a, const model::Check& b, const std::string& path) {
  Same(a.workload, b.workload, path + ".workload");
  Same(a.threshold, b.threshold, path + ".threshold");
  Same(a.label, b.label, path + ".label");
  Same(a.measured, b.measured, path + ".measured");
  Same(a.bar, b.bar, path + ".bar");
  Same(a.higher_is_better, b.higher_is_better, path + ".higher_is_better");
  Same(a.passed, b.passed, path + ".passed");
  Same(a.skipped, b.skipped, path + ".skipped");
  Same(a.note, b.note, path + ".note");
  Same(a.unit, b.unit, path + ".unit");
}

inline void Same(const model::ContenderInfo& a, const model::ContenderInfo& b, const std::string& path) {
  Same(a.name, b.name, path + ".name");
  Same(a.description, b.description, path + ".description");
  Same(a.argv, b.argv, path + ".argv");
  Same(a.startup_argv, b.startup_argv, path + ".startup_argv");
  Same(a.git, b.git, path + ".git");
  Same(a.commit, b.commit, path + ".commit");
}

inline void Same(const model::Thresholds& a, const model::Thresholds& b, const std::string& path) {
  Same(a.min_speedup, b.min_speedup, path + ".min_speedup");
  Same(a.min_win_rate, b.min_win_rate, path + ".min_win_rate");
  Same(a.min_logic_speedup, b.min_logic_speedup, path + ".min_logic_speedup");
  Same(a.max_rss_ratio, b.max_rss_ratio, path + ".max_rss_ratio");
  Same(a.rss_runs, b.rss_runs, path + ".rss_runs");
  Same(a.min_speedup_ci, b.min_speedup_ci, path + ".min_speedup_ci");
  Same(a.max_slowdown, b.max_slowdown, path + ".max_slowdown");
  Same(a.confidence, b.confidence, path + ".confidence");
  Same(a.max_instructions_ratio, b.max_instructions_ratio, path + ".max_instructions_ratio");
  Same(a.max_allocations_ratio, b.max_allocations_ratio, path + ".max_allocations_ratio");
  Same(a.max_p99_ratio, b.max_p99_ratio, path + ".max_p99_ratio");
}

inline void Same(const model::Comparison& a, const model::Comparison& b, const std::string& path) {
  Same(a.speedup, b.speedup, path + ".speedup");
  Same(a.rounds, b.rounds, path + ".rounds");
  Same(a.wins, b.wins, path + ".wins");
  Same(a.win_rate, b.win_rate, path + ".win_rate");
  Same(a.baseline_logic_s, b.baseline_logic_s, path + ".baseline_logic_s");
  Same(a.candidate_logic_s, b.candidate_logic_s, path + ".candidate_logic_s");
  Same(a.logic_speedup, b.logic_speedup, path + ".logic_speedup");
  Same(a.logic_note, b.logic_note, path + ".logic_note");
  Same(a.rss_ratio, b.rss_ratio, path + ".rss_ratio");
  Same(a.sign_test_p, b.sign_test_p, path + ".sign_test_p");
  Same(a.wilcoxon_p, b.wilcoxon_p, path + ".wilcoxon_p");
  Same(a.speedup_ci, b.speedup_ci, path + ".speedup_ci");
  Same(a.logic_speedup_ci, b.logic_speedup_ci, path + ".logic_speedup_ci");
  Same(a.paired_ratio_ci, b.paired_ratio_ci, path + ".paired_ratio_ci");
  Same(a.rounds_to_resolve, b.rounds_to_resolve, path + ".rounds_to_resolve");
  Same(a.notes, b.notes, path + ".notes");
  Same(a.cpu_ratio, b.cpu_ratio, path + ".cpu_ratio");
  Same(a.cpu_ratio_ci, b.cpu_ratio_ci, path + ".cpu_ratio_ci");
  Same(a.instructions_ratio, b.instructions_ratio, path + ".instructions_ratio");
  Same(a.allocations_ratio, b.allocations_ratio, path + ".allocations_ratio");
  Same(a.p99_ratio, b.p99_ratio, path + ".p99_ratio");
}

inline void Same(const model::WorkloadResult& a, const model::WorkloadResult& b, const std::string& path) {
  Same(a.name, b.name, path + ".name");
  Same(a.description, b.description, path + ".description");
  Same(a.gate, b.gate, path + ".gate");
  Same(a.startup, b.startup, path + ".startup");
  Same(a.thresholds, b.thresholds, path + ".thresholds");
  Same(a.samples, b.samples, path + ".samples");
  Same(a.summaries, b.summaries, path + ".summaries");
  Same(a.comparison, b.comparison, path + ".comparison");
  Same(a.failures, b.failures, path + ".failures");
  Same(a.sweep, b.sweep, path + ".sweep");
  Same(a.point, b.point, path + ".point");
  Same(a.elements, b.elements, path + ".elements");
  Same(a.kind, b.kind, path + ".kind");
  Same(a.profile, b.profile, path + ".profile");
  Same(a.profile_note, b.profile_note, path + ".profile_note");
}

inline void Same(const model::AxisValue& a, const model::AxisValue& b, const std::string& path) {
  Same(a.axis, b.axis, path + ".axis");
  Same(a.value, b.value, path + ".value");
}

inline void Same(const model::ScalingFit& a, const model::ScalingFit& b, const std::string& path) {
  Same(a.contender, b.contender, path + ".contender");
  Same(a.axis, b.axis, path + ".axis");
  Same(a.fixed, b.fixed, path + ".fixed");
  Same(a.exponent, b.exponent, path + ".exponent");
  Same(a.low, b.low, path + ".low");
  Same(a.high, b.high, path + ".high");
  Same(a.level, b.level, path + ".level");
  Same(a.note, b.note, path + ".note");
}

inline void Same(const model::ScalingEfficiency& a, const model::ScalingEfficiency& b, const std::string& path) {
  Same(a.contender, b.contender, path + ".contender");
  Same(a.fixed, b.fixed, path + ".fixed");
  Same(a.threads, b.threads, path + ".threads");
  Same(a.efficiency, b.efficiency, path + ".efficiency");
}

inline void Same(const model::SweepResult& a, const model::SweepResult& b, const std::string& path) {
  Same(a.name, b.name, path + ".name");
  Same(a.axes, b.axes, path + ".axes");
  Same(a.fits, b.fits, path + ".fits");
  Same(a.efficiencies, b.efficiencies, path + ".efficiencies");
  Same(a.max_cost_exponent, b.max_cost_exponent, path + ".max_cost_exponent");
  Same(a.min_scaling_efficiency, b.min_scaling_efficiency, path + ".min_scaling_efficiency");
  Same(a.efficiency_threads, b.efficiency_threads, path + ".efficiency_threads");
}

inline void Same(const model::ShardInfo& a, const model::ShardInfo& b, const std::string& path) {
  Same(a.index, b.index, path + ".index");
  Same(a.count, b.count, path + ".count");
  Same(a.selection, b.selection, path + ".selection");
  Same(a.workloads, b.workloads, path + ".workloads");
  Same(a.machine.hostname, b.machine.hostname, path + ".machine.hostname");
  Same(a.machine.os, b.machine.os, path + ".machine.os");
  Same(a.machine.cpu, b.machine.cpu, path + ".machine.cpu");
  Same(a.machine.cores, b.machine.cores, path + ".machine.cores");
  Same(a.machine.memory_kib, b.machine.memory_kib, path + ".machine.memory_kib");
  Same(a.started_at, b.started_at, path + ".started_at");
}

inline void Same(const model::RunResult& a, const model::RunResult& b) {
  Same(a.engine_version, b.engine_version, "engine_version");
  Same(a.spec_path, b.spec_path, "spec_path");
  Same(a.spec_digest, b.spec_digest, "spec_digest");
  Same(a.started_at, b.started_at, "started_at");
  Same(a.machine.hostname, b.machine.hostname, "machine.hostname");
  Same(a.machine.os, b.machine.os, "machine.os");
  Same(a.machine.cpu, b.machine.cpu, "machine.cpu");
  Same(a.machine.cores, b.machine.cores, "machine.cores");
  Same(a.machine.memory_kib, b.machine.memory_kib, "machine.memory_kib");
  Same(a.settings.rounds, b.settings.rounds, "settings.rounds");
  Same(a.settings.warmup_rounds, b.settings.warmup_rounds, "settings.warmup_rounds");
  Same(a.settings.scale, b.settings.scale, "settings.scale");
  Same(a.settings.seed, b.settings.seed, "settings.seed");
  Same(a.settings.timeout_s, b.settings.timeout_s, "settings.timeout_s");
  Same(a.settings.order, b.settings.order, "settings.order");
  Same(a.settings.bootstrap_resamples, b.settings.bootstrap_resamples, "settings.bootstrap_resamples");
  Same(a.settings.confidence, b.settings.confidence, "settings.confidence");
  Same(a.baseline, b.baseline, "baseline");
  Same(a.candidate, b.candidate, "candidate");
  Same(a.contenders, b.contenders, "contenders");
  Same(a.workloads, b.workloads, "workloads");
  Same(a.failures, b.failures, "failures");
  Same(a.sweeps, b.sweeps, "sweeps");
  Same(a.complete, b.complete, "complete");
  Same(a.verdict.exit, b.verdict.exit, "verdict.exit");
  Same(a.verdict.checks, b.verdict.checks, "verdict.checks");
  Same(a.verdict.lines, b.verdict.lines, "verdict.lines");
  Same(a.verdict.accepted, b.verdict.accepted, "verdict.accepted");
  Same(a.verdict.accepted_by, b.verdict.accepted_by, "verdict.accepted_by");
  Same(a.shards, b.shards, "shards");
}

}  // namespace pe::testing
