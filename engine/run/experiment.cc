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
#include "engine/run/execution_dir.h"
#include "engine/run/experiment_impl.h"
#include "engine/run/fixture_child.h"
#include "engine/run/machine.h"
#include "engine/run/machine_load.h"
#include "engine/run/order.h"
#include "engine/run/path_component.h"
#include "engine/run/progress.h"
#include "engine/run/serve_workload.h"
#include "engine/runner/file_tail.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"
#include "engine/spec/suggest.h"
#include "generators/fixture_cache.h"
#include "generators/params.h"

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

fs::path PrepareFixture(const spec::Spec& spec, const spec::Workload& workload, const Settings& settings,
                        const fs::path& cache_root) {
  switch (workload.fixture.kind) {
    case spec::Fixture::Kind::kNone:
      return {};
    case spec::Fixture::Kind::kDirectory:
      return fs::absolute(workload.fixture.directory).lexically_normal();
    case spec::Fixture::Kind::kGenerator: {
      auto generator = gen::BuiltinRegistry().Create(workload.fixture.generator);
      gen::Context ctx;
      ctx.scale = settings.scale;
      ctx.seed = settings.seed;
      const fs::path root = cache_root.empty() ? gen::DefaultCacheRoot() : cache_root;
      return MakeInChild([&] { return gen::Materialize(*generator, workload.fixture.params, ctx, root); },
                         [&] { gen::SweepPartials(root); });
    }
  }
  return {};
}

std::optional<std::string> FixtureNote(const spec::Workload& workload, const Settings& settings,
                                       const fs::path& cache_root) {
  if (workload.fixture.kind != spec::Fixture::Kind::kGenerator) return std::nullopt;
  auto generator = gen::BuiltinRegistry().Create(workload.fixture.generator);
  gen::Context ctx;
  ctx.scale = settings.scale;
  ctx.seed = settings.seed;
  const fs::path root = cache_root.empty() ? gen::DefaultCacheRoot() : cache_root;
  const fs::path dir = gen::FixtureDirectory(*generator, workload.fixture.params, ctx, root);
  if (gen::IsCached(dir)) return std::nullopt;
  std::string size;
  if (auto it = workload.fixture.params.find("targets"); it != workload.fixture.params.end()) {
    if (const auto* n = std::get_if<std::int64_t>(&it->second))
      size = fmt::format(", {} targets", gen::Scaled(*n, ctx.scale));
  }
  // Another run making the same fixture holds its lock; this one waits for it, not generates.
  return fmt::format(
      "{} for {} ({}{}); it is cached for later runs",
      gen::IsBeingMade(dir) ? "waiting for another process to generate the fixture" : "generating fixture",
      workload.name, workload.fixture.generator, size);
}

namespace internal {

std::string Tail(const fs::path& path) { return FileTail(path, 12, 2000); }

std::string FormatNumber(double value) { return fmt::format("{}", value); }

RunResult Experiment::Run() {
  // A contender runs as the engine's user, so it could otherwise read the engine's memory and
  // open files (/proc/<pid>/mem, /proc/<pid>/fd, ptrace), where parity keeps the baseline's
  // output; a process that is not dumpable is out of its reach. Children are dumpable again
  // after exec; the setting is restored when the run ends.
  const int dumpable = ::prctl(PR_GET_DUMPABLE);
  ::prctl(PR_SET_DUMPABLE, 0);
  InitResult();
  if (options_.progress) progress_.emplace(*options_.progress, options_.progress_style, options_.progress_clock);
  workloads_ = SelectWorkloads(spec_, options_);
  for (const spec::Workload* w : workloads_) {
    WorkloadResult wr;
    wr.name = w->name;
    wr.description = w->description;
    wr.gate = w->gate;
    wr.startup = w->startup;
    wr.kind = w->serve ? WorkloadResult::Kind::kServe : WorkloadResult::Kind::kProcess;
    wr.thresholds = spec::EffectiveThresholds(spec_, *w);
    wr.sweep = w->sweep;
    for (const auto& [axis, value] : w->point) wr.point.push_back({axis, value});
    wr.elements = w->elements * settings_.scale;
    wr.parity = std::string(spec::NormaliserName(w->normaliser));
    wr.unit = w->unit;
    for (const auto& a : w->normalise) wr.normalise.push_back(a.value);
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
  scratch_dir_.emplace(ScratchParent());
  scratch_ = scratch_dir_->path();
  const bool ok = BuildContenders() && PrepareFixtures() && CheckParity() && RunRounds() && RunRssOnly() && RunCounts();
  result_.complete = ok;
  if (progress_) progress_->Finish();
  // Ctrl-C during a long analysis (a million resamples) stops it promptly: the intervals
  // left are skipped and the run ends interrupted (130), never as a verdict.
  const bool interrupted_before = interrupt::Interrupted();
  analysis::Analyze(result_, {.intervals = true, .cancelled = [] { return interrupt::Interrupted(); }});
  analysis::AnalyzeSweeps(result_);
  if (!interrupted_before && interrupt::Interrupted()) {
    result_.complete = false;
    Interrupted();
  }
  result_.verdict = gate::Judge(result_);
  if (ok && result_.verdict.exit == ExitCode::kThresholdMissed) {
    ProfileRegressions();
    if (!options_.accepted_by.empty()) gate::Accept(result_.verdict, options_.accepted_by);
  }
  scratch_dir_.reset();
  if (dumpable > 0) ::prctl(PR_SET_DUMPABLE, dumpable);
  return std::move(result_);
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

WorkloadResult& Experiment::ResultFor(const spec::Workload& w) {
  for (auto& wr : result_.workloads) {
    if (wr.name == w.name) return wr;
  }
  throw std::logic_error("workload not in result: " + w.name);
}

bool Experiment::PrepareFixtures() {
  for (const spec::Workload* w : workloads_) {
    try {
      Settings at_point = settings_;
      at_point.scale *= w->scale_factor;
      if (progress_) {
        if (auto note = FixtureNote(*w, at_point, options_.cache_root)) progress_->Note(*note);
      }
      fixtures_[w->name] = PrepareFixture(spec_, *w, at_point, options_.cache_root);
      const fs::path& root = fixtures_[w->name];
      if (w->fixture.kind == spec::Fixture::Kind::kGenerator && !guards_.count(root)) {
        guards_[root] = std::make_unique<FixtureGuard>(root);
      }
    } catch (const FixtureInterrupted&) {
      return Interrupted();
    } catch (const std::exception& e) {
      ResultFor(*w).failures.push_back(
          {Failure::Kind::kFixture, w->name, "", fmt::format("preparing the fixture failed: {}", e.what()), ""});
      return false;
    }
    if (interrupt::Interrupted()) return Interrupted();
  }
  return true;
}

bool Experiment::CheckFixtureUntouched(const spec::Contender& c, const spec::Workload& w, const std::string& writer) {
  const auto guard = guards_.find(fixtures_[w.name]);
  if (guard == guards_.end()) return true;
  const std::optional<std::string> change = guard->second->Changed(w.serve);
  if (!change) return true;
  const std::string what = fmt::format("wrote into the fixture {}: {}", guard->first.string(), *change);
  ResultFor(w).failures.push_back(
      {Failure::Kind::kFixture, w.name, writer.empty() ? c.name : "",
       writer.empty() ? fmt::format("{}. Fixtures are read-only to contenders, so that no run can read back what an "
                                    "earlier one left there",
                                    what)
                      : fmt::format("{}, run on the output of contender '{}', {}. Fixtures are read-only to it as well",
                                    writer, c.name, what),
       ""});
  return false;
}

Experiment::Paths Experiment::PathsFor(const spec::Contender& c, const spec::Workload& w) {
  Paths p;
  // Names carry sweep values, which are free text: escaped, they stay inside the scratch directory.
  p.dir = scratch_ / PathComponent(w.name) / PathComponent(c.name);
  p.stdout_path = p.dir / "stdout";
  p.stderr_path = p.dir / "stderr";
  p.out = p.dir / "out";
  p.workdir = p.dir / "work";
  // Every run starts from an empty scratch directory and no stale output.
  ResetExecutionDir(p.dir);
  return p;
}

Experiment::Paths Experiment::ParityPathsFor() {
  // '+' never survives PathComponent (it becomes %2B), so no workload's directory has this name.
  std::string pattern = (scratch_ / "parity+XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw fs::filesystem_error("cannot make a parity directory", fs::path(pattern),
                               std::error_code(errno, std::generic_category()));
  }
  Paths p;
  p.dir = pattern;
  p.stdout_path = p.dir / "stdout";
  p.stderr_path = p.dir / "stderr";
  p.out = p.dir / "out";
  p.workdir = p.dir / "work";
  fs::create_directory(p.workdir);
  return p;
}

void Experiment::RemoveParityOutputs(const Paths& paths) {
  std::error_code ec;
  // An `output` outside the directory is removed only when this execution wrote it: a file
  // that is as it was before the contender ran is the user's.
  if (!paths.output.empty() && fs::absolute(paths.output).lexically_relative(paths.dir).string().starts_with("..")) {
    const FileStamp now = StampOfFile(paths.output);
    if (now.existed && !(paths.output_before.existed && now == paths.output_before)) fs::remove(paths.output, ec);
  }
  fs::remove_all(paths.dir, ec);
}

std::map<std::string, std::string> Experiment::Placeholders(const spec::Contender& c, const spec::Workload& w,
                                                            const Paths& paths, int port) {
  std::map<std::string, std::string> values = {
      {"fixture", fixtures_[w.name].string()},
      {"out", paths.out.string()},
      {"workdir", paths.workdir.string()},
      {"scale", FormatNumber(settings_.scale * w.scale_factor)},
      {"seed", std::to_string(settings_.seed)},
      {"contender", c.name},
      {"spec_dir", fs::absolute(SpecDir()).lexically_normal().string()},
  };
  for (const auto& [axis, value] : w.point) {
    if (axis != "scale") values[axis] = value;
  }
  if (w.serve) values["port"] = std::to_string(port);
  return values;
}

Command Experiment::BuildCommand(const spec::Contender& c, const spec::Workload& w, const Paths& paths, int port) {
  const auto values = Placeholders(c, w, paths, port);
  Command cmd;
  const auto& prefix = w.startup ? c.startup_argv : c.argv;
  for (const auto& a : prefix) cmd.argv.push_back(spec::Expand(a.value, values));
  if (!w.startup) {
    for (const auto& a : w.args) cmd.argv.push_back(spec::Expand(a.value, values));
  }
  // A contender built from git runs its programs from its revision's worktree.
  const auto worktree = worktrees_.find(c.name);
  const fs::path base = worktree != worktrees_.end() ? worktree->second : SpecDir();
  std::string why;
  if (auto program = spec::ResolveProgram(cmd.argv[0], base, &why)) {
    cmd.argv[0] = fs::absolute(*program).lexically_normal().string();
  }
  for (const auto& [k, v] : c.env) cmd.env[k] = spec::Expand(v, values);
  for (const auto& [k, v] : w.env) cmd.env[k] = spec::Expand(v, values);  // a sweep point's, e.g. LD_PRELOAD
  cmd.cwd = c.workdir.empty() && worktree != worktrees_.end() ? worktree->second : c.workdir;
  cmd.stdout_path = paths.stdout_path;
  cmd.stderr_path = paths.stderr_path;
  cmd.timeout_s = w.timeout_s.value_or(settings_.timeout_s);
  return cmd;
}

const Command& Experiment::CommandFor(const spec::Contender& c, const spec::Workload& w, const Paths& paths) {
  const auto key = std::make_pair(&c, &w);
  auto it = commands_.find(key);
  if (it == commands_.end()) it = commands_.emplace(key, BuildCommand(c, w, paths)).first;
  return it->second;
}

bool Experiment::Execute(const spec::Contender& c, const spec::Workload& w, Outcome* outcome, Paths* paths_out) {
  // Parity (paths_out) runs in a fresh directory of its own, with a command built for it.
  Paths paths = paths_out ? ParityPathsFor() : PathsFor(c, w);
  Command parity_command;
  if (paths_out) parity_command = BuildCommand(c, w, paths);
  const Command& cmd = paths_out ? parity_command : CommandFor(c, w, paths);
  if (paths_out && w.output != "stdout") {
    paths.output = spec::Expand(w.output, Placeholders(c, w, paths));
    paths.output_before = StampOfFile(paths.output);
  }
  *outcome = runner_.Run(cmd);
  if (progress_) progress_->Step(w.name);
  if (paths_out) *paths_out = paths;
  if (outcome->status == Outcome::Status::kInterrupted || interrupt::Interrupted()) return Interrupted();
  if (outcome->ok()) return CheckFixtureUntouched(c, w);
  Failure f;
  f.workload = w.name;
  f.contender = c.name;
  switch (outcome->status) {
    case Outcome::Status::kExited:
      f.kind = Failure::Kind::kExit;
      f.message = fmt::format("exited with status {}", outcome->exit_code);
      break;
    case Outcome::Status::kSignalled:
      f.kind = Failure::Kind::kSignal;
      f.message = fmt::format("was killed by signal {} ({})", outcome->signal, ::strsignal(outcome->signal));
      break;
    case Outcome::Status::kTimedOut:
      f.kind = Failure::Kind::kTimeout;
      f.message = fmt::format("timed out after {} s; its process group was killed", FormatNumber(cmd.timeout_s));
      break;
    case Outcome::Status::kSpawnFailed:
      f.kind = Failure::Kind::kSpawn;
      f.message = fmt::format("could not be started: {}", outcome->error);
      break;
    case Outcome::Status::kInterrupted:
      break;
  }
  if (auto full = ScratchOutOfSpace(scratch_, fmt::format("contender '{}' {}", c.name, f.message))) {
    f.message = *full;  // the engine's scratch ran out, not the contender
    f.contender.clear();
  }
  f.detail = Tail(paths.stderr_path);
  if (w.startup && !f.contender.empty()) {
    // The default startup command (PROGRAM --version) does not fit every tool: say which key
    // replaces it, rather than leave "--version: No such file or directory" to be decoded.
    std::vector<std::string> shown;
    for (const spec::Located& a : c.startup_argv) shown.push_back(a.value);
    f.message += fmt::format(
        " running its startup command '{}'; set [contenders.{}] startup = [...] to a command that exits 0 quickly "
        "(docs/spec.md)",
        fmt::join(shown, " "), c.name);
  }
  ResultFor(w).failures.push_back(std::move(f));
  return false;
}

bool Experiment::Interrupted() {
  result_.failures.push_back({Failure::Kind::kInterrupted, "", "",
                              fmt::format("interrupted by signal {} ({}); the results are incomplete",
                                          interrupt::Signal(), ::strsignal(interrupt::Signal())),
                              ""});
  return false;
}

FileStamp StampOfFile(const fs::path& file) {
  FileStamp stamp;
  struct stat info = {};
  if (::stat(file.c_str(), &info) != 0) return stamp;
  stamp.existed = true;
  stamp.device = info.st_dev;
  stamp.inode = info.st_ino;
  stamp.size = static_cast<std::uint64_t>(info.st_size);
  stamp.mtime_ns = info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec;
  stamp.ctime_ns = info.st_ctim.tv_sec * 1'000'000'000LL + info.st_ctim.tv_nsec;
  return stamp;
}

fs::path Experiment::OutputFile(const spec::Workload& w, const Paths& paths) const {
  std::error_code ec;
  if (w.output == "stdout") {
    // Read back by path, so a contender that deleted or replaced its capture would otherwise
    // compare as empty output.
    if (!fs::is_regular_file(paths.stdout_path, ec)) {
      throw std::runtime_error(fmt::format("removed or replaced its stdout capture {} (it is not a regular file)",
                                           paths.stdout_path.string()));
    }
    return paths.stdout_path;
  }
  const fs::path& file = paths.output;
  if (!fs::exists(file, ec)) throw std::runtime_error(fmt::format("did not write its output file {}", file.string()));
  if (!fs::is_regular_file(file, ec)) {
    throw std::runtime_error(fmt::format("left something other than a regular file at its output {}", file.string()));
  }
  // Another name for the output would outlive RemoveParityOutputs, for the next contender to read.
  struct stat link = {};
  if (::lstat(file.c_str(), &link) != 0 || S_ISLNK(link.st_mode) || link.st_nlink != 1) {
    throw std::runtime_error(fmt::format(
        "left its output {} as a symbolic link or a file with other hard links; parity reads only an output no "
        "other contender can reach",
        file.string()));
  }
  // A file that was there before and is unchanged was not written by this run (a fixed path
  // the user keeps, or one the previous contender wrote and this one did not remove).
  if (paths.output_before.existed && StampOfFile(file) == paths.output_before) {
    throw std::runtime_error(
        fmt::format("did not write its output file {} (it is unchanged since before it ran)", file.string()));
  }
  return file;
}

// Workloads with a gated check that the rounds so far leave unresolved. Judged on a copy
// with the confidence sequences only (no bootstrap), which stay valid however often they
// are looked at: that is what lets the run stop as soon as every check is resolved.
std::vector<const spec::Workload*> Experiment::Unresolved(std::vector<OpenCheck>* open_checks) const {
  RunResult interim = result_;
  analysis::Analyze(interim, {.intervals = false, .cancelled = {}});
  const Verdict verdict = gate::Judge(interim);
  // A startup-adjusted check also reads the startup workload's median: it gets rounds too.
  const bool logic_open = std::any_of(verdict.checks.begin(), verdict.checks.end(), [](const Check& c) {
    return c.threshold == "min_logic_speedup" && c.state == Check::State::kUnresolved;
  });
  std::vector<const spec::Workload*> open;
  for (const spec::Workload* w : workloads_) {
    const bool unresolved = std::any_of(verdict.checks.begin(), verdict.checks.end(), [&](const Check& c) {
      return c.workload == w->name && c.state == Check::State::kUnresolved;
    });
    if (unresolved || (w->startup && logic_open)) open.push_back(w);
  }
  for (const Check& c : verdict.checks) {
    if (open_checks && c.state == Check::State::kUnresolved)
      open_checks->push_back({c.workload, c.rounds, c.rounds_needed});
  }
  return open;
}

bool Experiment::RunRounds() {
  // [run] rounds are the minimum; up to max_rounds more are added while a check is open.
  const int first = settings_.warmup_rounds + settings_.rounds;
  const int last = settings_.warmup_rounds + std::max(settings_.rounds, settings_.max_rounds);
  if (progress_) progress_->BeginRounds(static_cast<int>(first * workloads_.size() * spec_.contenders.size()), first);
  std::vector<const spec::Workload*> active = workloads_;
  LoadProbe load;
  load.Begin();
  for (int round = 0; round < last; ++round) {
    if (round >= first) {
      std::vector<OpenCheck> open_checks;
      active = Unresolved(&open_checks);
      if (active.empty()) break;
      if (progress_) {
        progress_->ExpectMoreSteps(ExpectedAddedSteps(open_checks, std::max(settings_.rounds, settings_.max_rounds),
                                                      static_cast<int>(spec_.contenders.size())));
      }
    }
    if (progress_) progress_->SetRound(round + 1);
    next_round_ = round + 1;
    double children_cpu_s = 0;
    const std::vector<size_t> order = RoundOrder(settings_.order, round, spec_.contenders.size(), settings_.seed);
    for (const spec::Workload* w : active) {
      for (size_t position = 0; position < order.size(); ++position) {
        const spec::Contender& c = spec_.contenders[order[position]];
        Sample s;
        if (w->serve) {
          auto served = ExecuteServe(c, *w, false);
          if (!served) return false;
          s = ServeSample(*served);
        } else {
          Outcome outcome;
          if (!Execute(c, *w, &outcome, nullptr)) return false;
          s.wall_s = outcome.wall_s;
          s.user_s = outcome.user_s;
          s.sys_s = outcome.sys_s;
          s.max_rss_kib = outcome.max_rss_kib;
        }
        s.contender = c.name;
        s.round = round;
        s.warmup = round < settings_.warmup_rounds;
        s.position = static_cast<int>(position);
        children_cpu_s += s.user_s + s.sys_s;
        ResultFor(*w).samples.push_back(std::move(s));
      }
    }
    result_.load.push_back(load.End(round, children_cpu_s));
  }
  return true;
}

bool Experiment::RunRssOnly() {
  for (const spec::Workload* w : workloads_) {
    const int runs = w->serve ? 0 : ResultFor(*w).thresholds.rss_runs;  // a server's RSS comes with each round
    for (int i = 0; i < runs; ++i) {
      for (const spec::Contender& c : spec_.contenders) {
        Outcome outcome;
        if (!Execute(c, *w, &outcome, nullptr)) return false;
        Sample s;
        s.contender = c.name;
        s.round = next_round_ + i;
        s.rss_only = true;
        s.max_rss_kib = outcome.max_rss_kib;
        ResultFor(*w).samples.push_back(std::move(s));
      }
    }
  }
  return true;
}

}  // namespace internal

RunResult RunExperiment(const spec::Spec& spec, const Options& options, ProcessRunner& runner) {
  return internal::Experiment(spec, options, runner).Run();
}

}  // namespace pe::run
