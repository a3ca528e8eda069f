#include "engine/run/experiment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "engine/analysis/analyze.h"
#include "engine/analysis/sweeps.h"
#include "engine/gate/gate.h"
#include "engine/run/machine.h"
#include "engine/run/normalise.h"
#include "engine/run/order.h"
#include "engine/run/progress.h"
#include "engine/run/serve_workload.h"
#include "engine/gitbuild/git_build.h"
#include "engine/measure/allocations.h"
#include "engine/measure/instructions.h"
#include "engine/measure/profile.h"
#include "engine/measure/where_the_time_went.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"
#include "engine/spec/suggest.h"
#include "generators/fixture_cache.h"

namespace pe::run {

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
  return selected;
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
      return gen::Materialize(*generator, workload.fixture.params, ctx,
                              cache_root.empty() ? gen::DefaultCacheRoot() : cache_root);
    }
  }
  return {};
}

namespace {

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The last lines of a child's stderr, for failure messages.
std::string Tail(const fs::path& path) {
  constexpr size_t kMaxBytes = 2000;
  constexpr int kMaxLines = 12;
  std::string text = ReadFile(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.size() > kMaxBytes) text = text.substr(text.size() - kMaxBytes);
  size_t start = text.size();
  for (int lines = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++lines == kMaxLines) break;
  }
  return text.substr(start);
}

std::string FormatNumber(double value) { return fmt::format("{}", value); }

class Experiment {
 public:
  Experiment(const spec::Spec& spec, const Options& options, ProcessRunner& runner)
      : spec_(spec), options_(options), runner_(runner) {}

  RunResult Run() {
    InitResult();
    workloads_ = SelectWorkloads(spec_, options_);
    for (const spec::Workload* w : workloads_) {
      WorkloadResult wr;
      wr.name = w->name;
      wr.description = w->description;
      wr.gate = w->gate;
      wr.startup = w->startup;
      wr.kind = w->serve ? "serve" : "process";
      wr.thresholds = spec::EffectiveThresholds(spec_, *w);
      wr.sweep = w->sweep;
      for (const auto& [axis, value] : w->point) wr.point.push_back({axis, value});
      wr.elements = w->elements * settings_.scale;
      result_.workloads.push_back(std::move(wr));
    }
    for (const spec::Sweep& s : spec_.sweeps) {
      const bool selected = std::any_of(workloads_.begin(), workloads_.end(),
                                        [&](const spec::Workload* w) { return w->sweep == s.name; });
      if (!selected) continue;
      SweepResult sr;
      sr.name = s.name;
      sr.axes = s.axes;
      sr.max_cost_exponent = s.max_cost_exponent;
      sr.min_scaling_efficiency = s.min_scaling_efficiency;
      sr.efficiency_threads = s.efficiency_threads;
      result_.sweeps.push_back(std::move(sr));
    }
    scratch_ = MakeScratch();
    const bool ok = BuildContenders() && PrepareFixtures() && CheckParity() && RunRounds() && RunRssOnly() &&
                    RunCounts();
    result_.complete = ok;
    if (progress_) progress_->Finish();
    analysis::Analyze(result_);
    analysis::AnalyzeSweeps(result_);
    result_.verdict = gate::Judge(result_);
    if (ok && result_.verdict.exit == ExitCode::kThresholdMissed) {
      ProfileRegressions();
      if (!options_.accepted_by.empty()) gate::Accept(result_.verdict, options_.accepted_by);
    }
    std::error_code ec;
    fs::remove_all(scratch_, ec);
    return std::move(result_);
  }

 private:
  void InitResult() {
    result_.engine_version = PERFENGINE_VERSION;
    result_.spec_path = spec_.path.string();
    result_.spec_digest = spec_.digest;
    result_.started_at = NowIso8601();
    result_.machine = ReadMachineInfo();
    settings_ = spec_.settings;
    if (options_.rounds) settings_.rounds = *options_.rounds;
    if (options_.warmup_rounds) settings_.warmup_rounds = *options_.warmup_rounds;
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

  fs::path MakeScratch() {
    std::string pattern = (fs::temp_directory_path() / "perfengine-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a scratch directory in " + fs::temp_directory_path().string());
    return pattern;
  }

  WorkloadResult& ResultFor(const spec::Workload& w) {
    for (auto& wr : result_.workloads) {
      if (wr.name == w.name) return wr;
    }
    throw std::logic_error("workload not in result: " + w.name);
  }

  // Contenders built from git: a worktree per revision under the cache, built once per commit.
  bool BuildContenders() {
    for (const spec::Contender& c : spec_.contenders) {
      if (c.git.empty()) continue;
      try {
        const gitbuild::BuiltRevision built =
            gitbuild::PrepareRevision(c.repo, c.git, c.build, CacheRoot(), runner_);
        worktrees_[c.name] = built.worktree;
        for (ContenderInfo& info : result_.contenders) {
          if (info.name == c.name) {
            info.git = c.git;
            info.commit = built.commit;
          }
        }
      } catch (const std::exception& e) {  // GitError, BuildError (with its log's tail)
        result_.failures.push_back({Failure::Kind::kBuild, "", c.name, fmt::format("could not be built: {}", e.what()), ""});
        return false;
      }
      if (interrupt::Interrupted()) return Interrupted();
    }
    return true;
  }

  fs::path CacheRoot() const { return options_.cache_root.empty() ? gen::DefaultCacheRoot() : options_.cache_root; }

  bool WantsInstructions(const spec::Workload& w) {
    // A server runs until stopped: counts are taken over process workloads only.
    return !w.startup && !w.serve && (spec_.measure_instructions || ResultFor(w).thresholds.max_instructions_ratio);
  }
  bool WantsAllocations(const spec::Workload& w) {
    return !w.startup && !w.serve && (spec_.measure_allocations || ResultFor(w).thresholds.max_allocations_ratio);
  }

  // Instruction and allocation counts are deterministic: one run per contender and workload.
  bool RunCounts() {
    for (const spec::Workload* w : workloads_) {
      const bool instructions = WantsInstructions(*w), allocations = WantsAllocations(*w);
      if (!instructions && !allocations) continue;
      for (const spec::Contender& c : spec_.contenders) {
        ContenderSummary counts;
        counts.contender = c.name;
        std::vector<std::string> notes;
        if (instructions) {
          const measure::InstructionCount n = measure::CountInstructions(BuildCommand(c, *w, PathsFor(c, *w)), runner_);
          counts.instructions = n.count;
          counts.instructions_source = n.source;
          if (!n.note.empty()) notes.push_back(n.note);
        }
        if (allocations) {
          const measure::AllocationCount a = measure::CountAllocations(BuildCommand(c, *w, PathsFor(c, *w)), runner_);
          counts.allocation_calls = a.calls;
          counts.allocated_bytes = a.bytes;
          if (!a.note.empty()) notes.push_back(a.note);
        }
        counts.measure_note = fmt::format("{}", fmt::join(notes, "; "));
        ResultFor(*w).summaries.push_back(std::move(counts));
        if (interrupt::Interrupted()) return Interrupted();
      }
    }
    return true;
  }

  // Where the extra time went: callgrind profiles of both contenders on each workload that
  // missed a no-regression threshold.
  void ProfileRegressions() {
    static const std::vector<std::string> kRegression = {"max_slowdown", "max_instructions_ratio", "max_allocations_ratio"};
    for (const spec::Workload* w : workloads_) {
      const bool regressed = std::any_of(result_.verdict.checks.begin(), result_.verdict.checks.end(), [&](const Check& c) {
        return c.workload == w->name && !c.passed &&
               std::find(kRegression.begin(), kRegression.end(), c.threshold) != kRegression.end();
      });
      if (!regressed) continue;
      const spec::Contender* b = spec_.FindContender(spec_.baseline);
      const spec::Contender* k = spec_.FindContender(spec_.candidate);
      const measure::ProfileResult base = measure::ProfileCommand(BuildCommand(*b, *w, PathsFor(*b, *w)), runner_);
      const measure::ProfileResult cand = measure::ProfileCommand(BuildCommand(*k, *w, PathsFor(*k, *w)), runner_);
      WorkloadResult& wr = ResultFor(*w);
      for (const measure::FunctionDelta& d : measure::WhereTheTimeWent(base.functions, cand.functions, 8)) {
        // A few instructions in a stub or the loader are not where time went.
        if (d.share_delta < 0.001 && d.cand_share < 0.005) continue;
        wr.profile.push_back({d.function, d.base_cost, d.cand_cost, d.base_share, d.cand_share});
      }
      wr.profile_note = !base.note.empty() ? base.note : !cand.note.empty() ? cand.note : "callgrind: self instructions per function";
    }
  }

  bool PrepareFixtures() {
    for (const spec::Workload* w : workloads_) {
      try {
        Settings at_point = settings_;
        at_point.scale *= w->scale_factor;
        fixtures_[w->name] = PrepareFixture(spec_, *w, at_point, options_.cache_root);
      } catch (const std::exception& e) {
        ResultFor(*w).failures.push_back({Failure::Kind::kFixture, w->name, "",
                                          fmt::format("preparing the fixture failed: {}", e.what()), ""});
        return false;
      }
      if (interrupt::Interrupted()) return Interrupted();
    }
    return true;
  }

  struct Paths {
    fs::path dir, stdout_path, stderr_path, out, workdir;
  };

  Paths PathsFor(const spec::Contender& c, const spec::Workload& w) {
    Paths p;
    p.dir = scratch_ / w.name / c.name;
    p.stdout_path = p.dir / "stdout";
    p.stderr_path = p.dir / "stderr";
    p.out = p.dir / "out";
    p.workdir = p.dir / "work";
    // Every run starts from an empty scratch directory and no stale output.
    std::error_code ec;
    fs::remove_all(p.dir, ec);
    fs::create_directories(p.workdir);
    return p;
  }

  std::map<std::string, std::string> Placeholders(const spec::Contender& c, const spec::Workload& w,
                                                  const Paths& paths, int port = 0) {
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

  fs::path SpecDir() const { return spec_.path.parent_path().empty() ? fs::path(".") : spec_.path.parent_path(); }

  Command BuildCommand(const spec::Contender& c, const spec::Workload& w, const Paths& paths, int port = 0) {
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

  // Runs one contender on one workload; records a failure and returns false unless it succeeded.
  // One serve round of one contender; records a failure and returns nullopt unless it succeeded.
  std::optional<serve::ServeRoundResult> ExecuteServe(const spec::Contender& c, const spec::Workload& w, bool parity) {
    const Paths paths = PathsFor(c, w);
    const ServeOverrides overrides{options_.serve_requests, options_.serve_concurrency};
    serve::ServeRoundResult round = serve::RunServeRound(
        [&](int port) { return BuildCommand(c, w, paths, port); }, ServeRequests(w, overrides, parity),
        ServeOptions(w, parity));
    if (progress_) progress_->Step(w.name);
    if (interrupt::Interrupted()) {
      Interrupted();
      return std::nullopt;
    }
    if (round.ok) return round;
    ResultFor(w).failures.push_back({round.failure.rfind("cannot start", 0) == 0 ? Failure::Kind::kSpawn
                                                                                 : Failure::Kind::kExit,
                                     w.name, c.name, fmt::format("(server) {}", round.failure), round.detail});
    return std::nullopt;
  }

  // Parity of a serve workload: every request once to each contender, bodies compared in order.
  bool CheckServeParity(const spec::Workload& w) {
    std::vector<std::string> baseline_bodies;
    const serve::ServeRequestSpec requests = ServeRequests(w, {}, true);
    for (const spec::Contender* c : ParityOrder()) {
      auto round = ExecuteServe(*c, w, true);
      if (!round) return false;
      if (c->name == spec_.baseline) {
        baseline_bodies = std::move(round->bodies);
        continue;
      }
      try {
        if (auto diff = FirstBodyDifference(w, requests, baseline_bodies, round->bodies, spec_.baseline, c->name)) {
          ResultFor(w).failures.push_back(
              {Failure::Kind::kParity, w.name, c->name,
               fmt::format("answers differ from {}'s (parity: {}); no timing is reported over different work",
                           spec_.baseline, spec::NormaliserName(w.normaliser)),
               *diff});
          return false;
        }
      } catch (const std::exception& e) {
        ResultFor(w).failures.push_back({Failure::Kind::kParity, w.name, c->name, e.what(), ""});
        return false;
      }
    }
    return true;
  }

  bool Execute(const spec::Contender& c, const spec::Workload& w, Outcome* outcome, Paths* paths_out) {
    Paths paths = PathsFor(c, w);
    const Command cmd = BuildCommand(c, w, paths);
    *outcome = runner_.Run(cmd);
    if (progress_) progress_->Step(w.name);
    if (paths_out) *paths_out = paths;
    if (outcome->status == Outcome::Status::kInterrupted || interrupt::Interrupted()) return Interrupted();
    if (outcome->ok()) return true;
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
    f.detail = Tail(paths.stderr_path);
    ResultFor(w).failures.push_back(std::move(f));
    return false;
  }

  bool Interrupted() {
    result_.failures.push_back({Failure::Kind::kInterrupted, "", "",
                                fmt::format("interrupted by signal {} ({}); the results are incomplete",
                                            interrupt::Signal(), ::strsignal(interrupt::Signal())),
                                ""});
    return false;
  }

  std::string OutputOf(const spec::Contender& c, const spec::Workload& w, const Paths& paths) {
    if (w.output == "stdout") return ReadFile(paths.stdout_path);
    const fs::path file = spec::Expand(w.output, Placeholders(c, w, paths));
    if (!fs::exists(file)) throw std::runtime_error(fmt::format("did not write its output file {}", file.string()));
    return ReadFile(file);
  }

  // Each contender runs each workload once; normalised outputs must agree before any timing.
  bool CheckParity() {
    for (const spec::Workload* w : workloads_) {
      if (w->serve) {
        if (!CheckServeParity(*w)) return false;
        continue;
      }
      std::string baseline_output;
      for (const spec::Contender* c : ParityOrder()) {
        Outcome outcome;
        Paths paths;
        if (!Execute(*c, *w, &outcome, &paths)) return false;
        if (w->startup) continue;  // versions differ by design: startup output is not compared
        std::string normalised;
        try {
          normalised = Normalise(OutputOf(*c, *w, paths), w->normaliser, w->sort_lists);
        } catch (const std::exception& e) {
          ResultFor(*w).failures.push_back({Failure::Kind::kParity, w->name, c->name, e.what(), Tail(paths.stderr_path)});
          return false;
        }
        if (c->name == spec_.baseline) {
          baseline_output = std::move(normalised);
          continue;
        }
        if (auto diff = FirstDifference(baseline_output, normalised, w->normaliser, spec_.baseline, c->name)) {
          ResultFor(*w).failures.push_back(
              {Failure::Kind::kParity, w->name, c->name,
               fmt::format("output differs from {}'s (parity: {}); no timing is reported over different work",
                           spec_.baseline, spec::NormaliserName(w->normaliser)),
               *diff});
          return false;
        }
      }
    }
    return true;
  }

  // The baseline first, so every other output is compared against it.
  std::vector<const spec::Contender*> ParityOrder() const {
    std::vector<const spec::Contender*> order = {spec_.FindContender(spec_.baseline)};
    for (const auto& c : spec_.contenders) {
      if (c.name != spec_.baseline) order.push_back(&c);
    }
    return order;
  }

  bool RunRounds() {
    const int total = settings_.warmup_rounds + settings_.rounds;
    if (options_.progress) {
      progress_.emplace(*options_.progress,
                        static_cast<int>(total * workloads_.size() * spec_.contenders.size()), total);
    }
    for (int round = 0; round < total; ++round) {
      if (progress_) progress_->SetRound(round + 1);
      const std::vector<size_t> order = RoundOrder(settings_.order, round, spec_.contenders.size(), settings_.seed);
      for (const spec::Workload* w : workloads_) {
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
          ResultFor(*w).samples.push_back(std::move(s));
        }
      }
    }
    return true;
  }

  // Extra runs for peak RSS only, after the timed rounds, so they never disturb timing.
  bool RunRssOnly() {
    for (const spec::Workload* w : workloads_) {
      const int runs = w->serve ? 0 : ResultFor(*w).thresholds.rss_runs;  // a server's RSS comes with each round
      for (int i = 0; i < runs; ++i) {
        for (const spec::Contender& c : spec_.contenders) {
          Outcome outcome;
          if (!Execute(c, *w, &outcome, nullptr)) return false;
          Sample s;
          s.contender = c.name;
          s.round = settings_.warmup_rounds + settings_.rounds + i;
          s.rss_only = true;
          s.max_rss_kib = outcome.max_rss_kib;
          ResultFor(*w).samples.push_back(std::move(s));
        }
      }
    }
    return true;
  }

  const spec::Spec& spec_;
  const Options& options_;
  ProcessRunner& runner_;
  Settings settings_;
  RunResult result_;
  std::vector<const spec::Workload*> workloads_;
  std::map<std::string, fs::path> fixtures_;
  std::map<std::string, fs::path> worktrees_;
  fs::path scratch_;
  std::optional<Progress> progress_;
};

}  // namespace

RunResult RunExperiment(const spec::Spec& spec, const Options& options, ProcessRunner& runner) {
  return Experiment(spec, options, runner).Run();
}

}  // namespace pe::run
