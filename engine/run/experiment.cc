#include "engine/run/experiment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "engine/analysis/analyze.h"
#include "engine/analysis/sweeps.h"
#include "engine/gate/gate.h"
#include "engine/gitbuild/git_build.h"
#include "engine/run/counts_collector.h"
#include "engine/run/experiment_impl.h"
#include "engine/run/machine.h"
#include "engine/run/parity_checker.h"
#include "engine/run/progress.h"
#include "engine/run/round_runner.h"
#include "engine/run/worker_batches.h"
#include "engine/runner/file_tail.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/family.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"
#include "engine/spec/suggest.h"
#include "generators/fixture_cache.h"

namespace pe::run {

using model::Check;
using model::ContenderInfo;
using model::ExitCode;
using model::Failure;
using model::RunResult;
using model::Sample;
using model::Settings;
using model::ShardInfo;
using model::SweepResult;
using model::Verdict;
using model::WorkloadResult;
using runner::Command;
using runner::FileTail;
using runner::Outcome;
using runner::ProcessRunner;

namespace fs = std::filesystem;

std::vector<const spec::Workload*> SelectWorkloads(const spec::Spec& spec, const Options& options) {
  for (const std::string& name : options.workloads) {
    if (spec.FindWorkload(name) == nullptr) {
      throw spec::UsageError(fmt::format("--workload: '{}' is not a workload of {}{}", name, spec.path.string(),
                                         spec::DidYouMean(name, spec.WorkloadNames())));
    }
  }
  std::vector<const spec::Workload*> selected;
  for (const spec::Workload& w : spec.workloads) {
    const bool asked = options.workloads.empty() ||
                       std::find(options.workloads.begin(), options.workloads.end(), w.name) != options.workloads.end();
    if (w.serve && options.skip_serve) continue;
    if (w.startup || asked) selected.push_back(&w);
  }
  // The startup workload times a process's start, which is in no worker benchmark's figures: a
  // selection of worker workloads alone does without it.
  if (std::any_of(selected.begin(), selected.end(), [](const spec::Workload* w) { return w->worker; }) &&
      std::all_of(selected.begin(), selected.end(), [](const spec::Workload* w) { return w->startup || w->worker; }))
    std::erase_if(selected, [](const spec::Workload* w) { return w->startup; });
  if (!options.shard) return selected;
  std::vector<std::string> names;
  for (const spec::Workload* w : selected) {
    if (!w->startup) names.push_back(w->name);
  }
  const std::vector<std::string> mine = ShardNames(names, *options.shard);
  std::erase_if(selected, [&](const spec::Workload* w) {
    return !w->startup && std::find(mine.begin(), mine.end(), w->name) == mine.end();
  });
  return selected;
}

std::optional<ShardInfo> DescribeShard(const spec::Spec& spec, const Options& options) {
  if (!options.shard) return std::nullopt;
  Options unsharded = options;
  unsharded.shard.reset();
  ShardInfo info;
  info.index = options.shard->index;
  info.count = options.shard->count;
  for (const spec::Workload* w : SelectWorkloads(spec, unsharded)) {
    if (!w->startup) info.selection.push_back(w->name);
  }
  info.workloads = ShardNames(info.selection, *options.shard);
  return info;
}

namespace internal {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs one phase and adds its wall time to `seconds` (a phase may run in parts).
template <typename Phase>
bool Timed(double& seconds, Phase&& phase) {
  const auto start = std::chrono::steady_clock::now();
  const bool ok = phase();
  seconds += SecondsSince(start);
  return ok;
}

}  // namespace

RunResult Experiment::Run() {
  // A contender runs as the engine's user, so it could otherwise read the engine's memory and
  // open files (/proc/<pid>/mem, /proc/<pid>/fd, ptrace), where parity keeps the baseline's
  // output; a process that is not dumpable is out of its reach. Children are dumpable again
  // after exec; the setting is restored when the run ends.
  const auto started = std::chrono::steady_clock::now();
  const int dumpable = ::prctl(PR_GET_DUMPABLE);
  ::prctl(PR_SET_DUMPABLE, 0);
  InitResult();
  if (options_.progress) progress_.emplace(*options_.progress, options_.progress_style, options_.progress_clock);
  workloads_ = SelectWorkloads(spec_, options_);
  InitWorkloadResults();
  scratch_dir_.emplace(ScratchParent());
  Progress* progress = progress_ ? &*progress_ : nullptr;
  fixtures_.emplace(spec_, settings_, options_.cache_root, progress);
  executor_.emplace(ExecutionContext{.spec = spec_,
                                     .settings = settings_,
                                     .runner = runner_,
                                     .result = result_,
                                     .fixtures = *fixtures_,
                                     .scratch = scratch_dir_->path(),
                                     .worktrees = &worktrees_,
                                     .progress = progress,
                                     .serve = {options_.serve_requests, options_.serve_concurrency}});
  ParityChecker parity(*executor_);
  RoundRunner rounds(*executor_, workloads_,
                     {.keep_measuring = options_.keep_measuring, .misses_accepted = !options_.accepted_by.empty()});
  CountsCollector counts(*executor_, workloads_);
  // Each phase timed on the engine's own steady clock (model::PhaseTimes): what a verdict costs.
  model::PhaseTimes phases;
  const bool ok =
      Timed(phases.build_s, [&] { return BuildContenders(); }) &&
      Timed(phases.fixtures_s, [&] { return PrepareFixtures(); }) &&
      Timed(phases.parity_s, [&] { return parity.Check(workloads_) && CalibrateWorkers(*executor_, workloads_); }) &&
      Timed(phases.measuring_s, [&] { return rounds.RunRounds() && rounds.RunRssOnly() && counts.Collect(); });
  result_.complete = ok;
  if (progress_) progress_->Finish();
  // Ctrl-C during a long analysis (a million resamples) stops it promptly: the intervals
  // left are skipped and the run ends interrupted (130), never as a verdict.
  const bool interrupted_before = interrupt::Interrupted();
  Timed(phases.analysis_s, [&] {
    analysis::Analyze(result_, {.intervals = true, .cancelled = [] { return interrupt::Interrupted(); }});
    analysis::AnalyzeSweeps(result_);
    if (!interrupted_before && interrupt::Interrupted()) {
      result_.complete = false;
      executor_->Interrupted();
    }
    result_.verdict = gate::Judge(result_);
    return true;
  });
  if (ok && result_.verdict.exit == ExitCode::kThresholdMissed) {
    Timed(phases.measuring_s, [&] {  // callgrind profiles: measuring, after the verdict asked for them
      // A bad profile file a contender wrote is a failed run: judged again, it exits 2.
      if (!counts.ProfileRegressions()) result_.verdict = gate::Judge(result_);
      return true;
    });
    if (!options_.accepted_by.empty()) gate::Accept(result_.verdict, options_.accepted_by);
  }
  phases.total_s = SecondsSince(started);
  result_.phases = phases;
  scratch_dir_.reset();
  if (dumpable > 0) ::prctl(PR_SET_DUMPABLE, dumpable);
  return std::move(result_);
}

void Experiment::InitWorkloadResults() {
  for (const spec::Workload* w : workloads_) {
    WorkloadResult wr;
    wr.name = w->name;
    wr.description = w->description;
    wr.gate = w->gate;
    wr.startup = w->startup;
    wr.kind = w->serve    ? WorkloadResult::Kind::kServe
              : w->worker ? WorkloadResult::Kind::kWorker
                          : WorkloadResult::Kind::kProcess;
    wr.thresholds = spec::EffectiveThresholds(spec_, *w);
    wr.sweep = w->sweep;
    for (const auto& [axis, value] : w->point) wr.point.push_back({axis, value});
    wr.elements = w->elements * settings_.scale;
    // A worker's answers are compared as the digests it reports (docs/workers.md, "Parity").
    wr.parity = w->worker ? "digest" : std::string(spec::NormaliserName(w->normaliser));
    wr.unit = w->unit;
    for (const auto& a : w->normalise) wr.normalise.push_back(a.value);
    wr.counters = spec::EffectiveCounters(spec_, *w);
    result_.workloads.push_back(std::move(wr));
  }
  for (const spec::Sweep& s : spec_.sweeps) {
    const bool selected =
        std::any_of(workloads_.begin(), workloads_.end(), [&](const spec::Workload* w) { return w->sweep == s.name; });
    if (!selected) continue;
    SweepResult sr;
    sr.name = s.name;
    sr.axes = s.axes;
    sr.max_cost_exponent = s.max_cost_exponent;
    sr.min_scaling_efficiency = s.min_scaling_efficiency;
    sr.efficiency_threads = s.efficiency_threads;
    result_.sweeps.push_back(std::move(sr));
  }
}

void Experiment::InitResult() {
  result_.engine_version = PERFENGINE_VERSION;
  result_.spec_path = spec_.path.string();
  result_.spec_digest = spec_.digest;
  result_.started_at = NowIso8601();
  result_.machine = ReadMachineInfo();
  if (auto shard = DescribeShard(spec_, options_)) {
    shard->machine = result_.machine;
    shard->started_at = result_.started_at;
    result_.shards.push_back(std::move(*shard));
  }
  settings_ = spec_.settings;
  if (options_.rounds) settings_.rounds = *options_.rounds;
  if (options_.warmup_rounds) settings_.warmup_rounds = *options_.warmup_rounds;
  if (options_.max_rounds) settings_.max_rounds = *options_.max_rounds;
  if (settings_.max_rounds > 0) settings_.max_rounds = std::max(settings_.max_rounds, settings_.rounds);
  if (options_.scale) settings_.scale = *options_.scale;
  // The whole verdict's confidence and its split (docs/statistics.md, "Family-wise confidence").
  const spec::Family family = spec::FamilyOf(spec_);
  settings_.family_checks = family.checks;
  settings_.check_confidence = family.check_confidence;
  settings_.family_confidence = family.family_confidence;
  result_.settings = settings_;
  result_.baseline = spec_.baseline;
  result_.candidate = spec_.candidate;
  for (const spec::Contender& c : spec_.contenders) {
    ContenderInfo info{c.name, c.description, {}, {}};
    for (const auto& a : c.argv) info.argv.push_back(a.value);
    for (const auto& a : c.startup_argv) info.startup_argv.push_back(a.value);
    result_.contenders.push_back(std::move(info));
  }
}

fs::path Experiment::CacheRoot() const {
  return options_.cache_root.empty() ? gen::DefaultCacheRoot() : options_.cache_root;
}

bool Experiment::BuildContenders() {
  // A build may take minutes: announced with what is built, each contender a step with an ETA.
  std::vector<std::string> revisions;
  for (const spec::Contender& c : spec_.contenders) {
    if (!c.git.empty()) revisions.push_back(fmt::format("{} at {}", c.name, c.git));
  }
  if (revisions.empty()) return true;
  if (progress_) {
    progress_->BeginPhase("building from git", static_cast<int>(revisions.size()),
                          fmt::format("{} (each commit built once, then cached)", fmt::join(revisions, ", ")));
  }
  const bool ok = BuildEach();
  if (progress_) progress_->EndPhase();
  return ok;
}

bool Experiment::BuildEach() {
  for (const spec::Contender& c : spec_.contenders) {
    if (c.git.empty()) continue;
    if (progress_) progress_->StartStep(fmt::format("{} at {}", c.name, c.git));
    try {
      const gitbuild::BuiltRevision built = gitbuild::PrepareRevision(c.repo, c.git, c.build, CacheRoot(), runner_);
      worktrees_[c.name] = built.worktree;
      for (ContenderInfo& info : result_.contenders) {
        if (info.name == c.name) {
          info.git = c.git;
          info.commit = built.commit;
          info.build = c.build;
          info.dirty = built.dirty;
        }
      }
    } catch (const gitbuild::BuildInterrupted&) {
      return executor_->Interrupted();
    } catch (const gitbuild::BuildError& e) {
      // The log's tail is the failure's detail, printed once as a block with its lines kept.
      result_.failures.push_back(
          {Failure::Kind::kBuild, "", c.name, fmt::format("could not be built: {}", e.summary()), e.tail()});
      return false;
    } catch (const std::exception& e) {  // GitError
      result_.failures.push_back(
          {Failure::Kind::kBuild, "", c.name, fmt::format("could not be built: {}", e.what()), ""});
      return false;
    }
    if (interrupt::Interrupted()) return executor_->Interrupted();
  }
  return true;
}

bool Experiment::PrepareFixtures() {
  // Independent fixtures are generated side by side (kFixturesAtOnce, fixture_child.h).
  Failure failure;
  std::size_t failed = 0;
  // A worker's argv may name any worker workload's fixture ({fixture:NAME}), selected or not.
  std::vector<const spec::Workload*> to_prepare = workloads_;
  if (!WorkerWorkloads(workloads_).empty()) {
    for (const spec::Workload& w : spec_.workloads) {
      if (w.worker && std::find(to_prepare.begin(), to_prepare.end(), &w) == to_prepare.end()) to_prepare.push_back(&w);
    }
  }
  switch (fixtures_->PrepareAll(to_prepare, &failure, &failed)) {
    case FixturePreparer::Status::kInterrupted:
      return executor_->Interrupted();
    case FixturePreparer::Status::kFailed:
      if (failed < workloads_.size())
        executor_->ResultFor(*workloads_[failed]).failures.push_back(std::move(failure));
      else
        result_.failures.push_back(std::move(failure));
      return false;
    case FixturePreparer::Status::kReady:
      break;
  }
  if (interrupt::Interrupted()) return executor_->Interrupted();
  return true;
}

}  // namespace internal

RunResult RunExperiment(const spec::Spec& spec, const Options& options, ProcessRunner& runner) {
  return internal::Experiment(spec, options, runner).Run();
}

}  // namespace pe::run
