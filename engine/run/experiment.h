// `perfengine run`: fixtures, parity, interleaved rounds, analysis and verdict.
// Failures become data in the RunResult; nothing here exits the process.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/run/progress.h"
#include "engine/run/shard.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/spec.h"

namespace pe::run {

struct Options {
  std::vector<std::string> workloads;  // empty: all; the startup workload always runs
  std::optional<int> rounds;
  std::optional<int> max_rounds;
  std::optional<int> warmup_rounds;
  std::optional<double> scale;
  std::filesystem::path cache_root;  // fixture cache; empty: the default
  std::ostream* progress = nullptr;  // progress goes here when set (stderr), in this style
  ProgressStyle progress_style = ProgressStyle::kTerminal;
  Progress::Clock progress_clock;  // empty: the steady clock
  // Non-empty: a missed threshold is accepted (exit 0) and reported as accepted by this,
  // e.g. "--accept-regression" or "PERFENGINE_ACCEPT_REGRESSION".
  std::string accepted_by;
  // --keep-measuring: add rounds up to max_rounds while a check is open even once a miss no round
  // can undo has fixed the exit code (by default the rounds stop there; RunResult::rounds_stopped).
  bool keep_measuring = false;
  bool skip_serve = false;               // --skip-serve: leave out serve workloads
  std::optional<int> serve_requests;     // --serve-requests
  std::optional<int> serve_concurrency;  // --serve-concurrency
  std::optional<Shard> shard;            // --shard K/N: only this shard's workloads (shard.h)
};

// The workloads a run will execute, in order, after checking names in options.workloads.
// With options.shard, only that shard's share of them, and the startup workload.
// Throws spec::UsageError for an unknown name.
std::vector<const spec::Workload*> SelectWorkloads(const spec::Spec& spec, const Options& options);

// What a --shard run records about itself (machine and start time left for the caller);
// nullopt without options.shard.
std::optional<model::ShardInfo> DescribeShard(const spec::Spec& spec, const Options& options);

// Materialises one workload's fixture and returns its directory ("" when it has none).
std::filesystem::path PrepareFixture(const spec::Spec& spec, const spec::Workload& workload,
                                     const model::Settings& settings, const std::filesystem::path& cache_root);

// "generating fixture for W (G, n targets)" when a workload's generated fixture is not cached
// yet (the wait a progress line should explain), "waiting for another process to generate the
// fixture for W (...)" when another run is making it; nullopt otherwise.
std::optional<std::string> FixtureNote(const spec::Workload& workload, const model::Settings& settings,
                                       const std::filesystem::path& cache_root);

// Runs the experiment. The result is complete unless a failure or an interrupt stopped it;
// its verdict is filled by the gate.
model::RunResult RunExperiment(const spec::Spec& spec, const Options& options, runner::ProcessRunner& runner);

}  // namespace pe::run
