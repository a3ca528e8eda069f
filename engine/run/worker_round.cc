#include "engine/run/worker_round.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/run/execution_sandbox.h"
#include "engine/run/machine.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"
#include "engine/spec/suggest.h"

namespace pe::run::internal {

namespace fs = std::filesystem;
using model::Failure;

model::Sample WorkerSample(const worker::Batch& batch, const std::vector<model::Counter>& counters) {
  const double n = static_cast<double>(std::max<std::int64_t>(batch.iterations, 1));
  model::Sample s;
  s.wall_s = static_cast<double>(batch.wall_ns) / 1e9 / n;
  // The process's CPU time (a runtime's collector and helper threads too) is what the CPU-time
  // checks read; the thread's own is kept beside it.
  s.user_s = static_cast<double>(batch.process_cpu_ns) / 1e9 / n;
  s.sys_s = 0;
  s.worker = model::WorkerFigures{batch.iterations, static_cast<double>(batch.thread_cpu_ns) / 1e9 / n};
  for (const model::Counter& c : counters) {
    const auto it = batch.counters.find(c.name);
    if (it != batch.counters.end()) s.counters.push_back({c.name, static_cast<double>(it->second) / n});
  }
  return s;
}

std::vector<runner::MappedFile> ExecutableMappings(pid_t pid) {
  std::vector<runner::MappedFile> mapped;
  std::ifstream maps(fmt::format("/proc/{}/maps", pid));
  // "start-end perms offset dev inode path": executable file mappings, each path once.
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode;
    if (!(fields >> range >> perms >> offset >> dev >> inode) || perms.size() < 3 || perms[2] != 'x') continue;
    std::string path;
    std::getline(fields >> std::ws, path);
    if (path.empty() || path[0] != '/') continue;
    runner::MappedFile file{static_cast<int>(pid), path};
    if (std::find(mapped.begin(), mapped.end(), file) == mapped.end()) mapped.push_back(std::move(file));
  }
  return mapped;
}

std::uint64_t ShiftSeed(std::uint64_t run_seed, int round) {
  // The run seed and the round mixed by splitmix64's finaliser (Steele, Lea & Flood 2014): nearby
  // rounds and seeds give unrelated seeds.
  std::uint64_t z = run_seed ^ 0x6a09e667f3bcc909ull ^ (static_cast<std::uint64_t>(round) * 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 31)) >> 1;  // below 2^63: any language reads it as a plain integer
}

WorkerRound::~WorkerRound() = default;  // each WorkerProcess kills and reaps its own

bool WorkerRound::CheckIsolated(const spec::Contender& c, const spec::Workload& w, const char* when) {
  if (!c.isolated) return true;
  const auto it = workers_.find(c.name);
  if (it == workers_.end() || !it->second->alive()) return true;
  const std::vector<std::string> problems =
      IsolationProblems(ExecutableMappings(it->second->pid()), c.name, ex_.ObjectOwners());
  if (problems.empty()) return true;
  ex_.ResultFor(w).failures.push_back({Failure::Kind::kIsolation, w.name, c.name,
                                       fmt::format("worker '{}' {}: {}", c.name, when, IsolationMessage(problems)),
                                       fmt::format("{}", fmt::join(problems, "\n"))});
  return false;
}

runner::Command WorkerRound::CommandFor(const spec::Contender& c, const spec::Workload& w) {
  const ExecutionPaths& paths = paths_.at(c.name);
  std::map<std::string, std::string> values = ex_.Placeholders(c, w, paths);
  // {fixture:NAME}: the fixture of worker workload NAME (docs/workers.md, "Fixtures").
  for (const spec::Workload& other : ex_.spec().workloads) {
    if (other.worker && other.fixture.kind != spec::Fixture::Kind::kNone)
      values["fixture:" + other.name] = ex_.Placeholders(c, other, paths).at("fixture");
  }
  runner::Command cmd;
  for (const spec::Located& a : c.worker) cmd.argv.push_back(spec::Expand(a.value, values));
  // A contender built from git runs its programs from its revision's worktree.
  const fs::path* worktree = ex_.WorktreeOf(c);
  std::string why;
  if (auto program = spec::ResolveProgram(cmd.argv[0], worktree ? *worktree : ex_.SpecDir(), &why))
    cmd.argv[0] = fs::absolute(*program).lexically_normal().string();
  for (const auto& [k, v] : c.env) cmd.env[k] = spec::Expand(v, values);
  cmd.cwd = c.workdir.empty() && worktree ? *worktree : c.workdir;
  cmd.stdout_path = paths.stdout_path;
  cmd.stderr_path = paths.stderr_path;
  cmd.sandbox = ex_.SandboxFor(c, w, paths, values);
  GiveTemporaryDirectory(cmd, paths.workdir);
  return cmd;
}

worker::WorkerSettings WorkerRound::SettingsFor(const spec::Workload& w) const {
  worker::WorkerSettings settings;
  // [run] timeout (or the workload's) bounds one command; for a worker, its start and each batch.
  const double timeout = w.timeout_s.value_or(ex_.settings().timeout_s);
  if (timeout > 0) {
    settings.start_timeout_s = timeout;
    settings.request_timeout_s = timeout;
  }
  return settings;
}

bool WorkerRound::Failed(const spec::Contender& c, const spec::Workload& w, const std::string& error) {
  if (interrupt::Interrupted()) return ex_.Interrupted();
  Failure f;
  f.workload = w.name;
  f.contender = c.name;
  f.message = error;
  if (error.find("killed by SIG") != std::string::npos)
    f.kind = Failure::Kind::kSignal;
  else if (error.find(" within ") != std::string::npos)
    f.kind = Failure::Kind::kTimeout;
  else if (error.find("could not start") != std::string::npos || error.find("at start: ") != std::string::npos)
    f.kind = Failure::Kind::kSpawn;
  else
    f.kind = Failure::Kind::kExit;
  ex_.ResultFor(w).failures.push_back(std::move(f));
  return false;
}

bool WorkerRound::Start(const spec::Contender& c, const std::vector<const spec::Workload*>& workloads,
                        const WorkerCommandAdjust& adjust) {
  return StartAll({&c}, workloads, adjust);
}

int PinnedCpu() {
  static const int cpu = [] {
    const std::vector<int> cpus = UsableCpus();
    return cpus.empty() ? -1 : cpus.back();  // the last: the first one takes more of the machine's interrupts
  }();
  return cpu;
}

bool WorkerRound::StartAll(const std::vector<const spec::Contender*>& contenders,
                           const std::vector<const spec::Workload*>& workloads, const WorkerCommandAdjust& adjust) {
  const spec::Workload& first = *workloads.front();
  // All spawned first, then each hello awaited: their start-ups (a runtime's, a suite's set-up)
  // run side by side, before anything is timed.
  for (const spec::Contender* c : contenders) {
    paths_[c->name] = ex_.WorkerPathsFor(*c);
    runner::Command cmd = CommandFor(*c, first);
    // The benchmarks it will be asked for: a worker may set up only those (docs/workers.md).
    std::vector<std::string> benchmarks;
    for (const spec::Workload* w : workloads) benchmarks.push_back(w->benchmark);
    cmd.env[std::string(kBenchmarksEnv)] = fmt::format("{}", fmt::join(benchmarks, ","));
    cmd.env[std::string(kDigestsEnv)] = digests_ == Digests::kNone ? "none" : "first";
    if (shift_round_) {
      cmd.env[std::string(kShiftEnv)] = std::to_string(ShiftSeed(ex_.settings().seed, *shift_round_));
      // Round workers only: a counting worker runs under valgrind, whose layout is its own.
      cmd.no_aslr = !ex_.settings().randomize_addresses.value_or(true);
      // [run] pin_workers: every contender's round worker on one CPU. Their batches run one at a
      // time, so they never wait for each other; what a CPU of a shared machine runs at (its
      // neighbours on the host, its frequency) is then the same on both sides of a round's ratio.
      if (ex_.settings().pin_workers.value_or(false)) cmd.cpu = PinnedCpu();
    } else {
      cmd.env[std::string(kShiftEnv)] = "";  // empty: no shift, whatever perfengine's own environment says
    }
    answered_[c->name].clear();
    if (adjust) adjust(*c, cmd, paths_[c->name].dir);
    auto process = std::make_unique<worker::WorkerProcess>(c->name);
    const std::string error = process->Spawn(cmd, SettingsFor(first));
    workers_[c->name] = std::move(process);
    if (!error.empty()) return Failed(*c, first, error);
  }
  for (const spec::Contender* c : contenders) {
    worker::WorkerProcess& process = *workers_.at(c->name);
    if (const std::string error = process.AwaitHello(); !error.empty()) return Failed(*c, first, error);
    if (!CheckIsolated(*c, first, "after start-up") || !CheckHello(*c, process.hello(), workloads)) return false;
  }
  return true;
}

bool WorkerRound::CheckHello(const spec::Contender& c, const worker::Hello& hello,
                             const std::vector<const spec::Workload*>& workloads) {
  for (const spec::Workload* w : workloads) {
    if (std::find(hello.benchmarks.begin(), hello.benchmarks.end(), w->benchmark) == hello.benchmarks.end()) {
      return Failed(c, *w,
                    fmt::format("worker '{}' offers no benchmark '{}'{} (its hello names {})", c.name, w->benchmark,
                                spec::DidYouMean(w->benchmark, hello.benchmarks), fmt::join(hello.benchmarks, ", ")));
    }
    for (const model::Counter& counter : ex_.ResultFor(*w).counters) {
      if (std::find(hello.counters.begin(), hello.counters.end(), counter.name) == hello.counters.end()) {
        return Failed(
            c, *w,
            fmt::format("worker '{}' reports no counter '{}', which the spec declares (its hello "
                        "declares {})",
                        c.name, counter.name,
                        hello.counters.empty() ? "none" : fmt::format("{}", fmt::join(hello.counters, ", "))));
      }
    }
  }
  return true;
}

std::optional<worker::Batch> WorkerRound::Run(const spec::Contender& c, const spec::Workload& w,
                                              std::int64_t iterations, const std::string& digest, bool step) {
  step_ = step;
  auto batches = RunSideBySide({&c}, w, iterations, digest);
  step_ = true;
  if (!batches) return std::nullopt;
  return std::move(batches->front());
}

std::optional<std::vector<worker::Batch>> WorkerRound::RunSideBySide(
    const std::vector<const spec::Contender*>& contenders, const spec::Workload& w, std::int64_t iterations,
    const std::string& digest) {
  for (const spec::Contender* c : contenders) {
    if (const std::string error = workers_.at(c->name)->Ask(w.benchmark, iterations); !error.empty()) {
      Failed(*c, w, error);
      return std::nullopt;
    }
  }
  std::vector<worker::Batch> batches;
  for (const spec::Contender* c : contenders) {
    const worker::BatchResult result = workers_.at(c->name)->Answer();
    if (round_steps_ && step_ && ex_.progress()) ex_.progress()->Step(w.name);
    if (!result.ok()) {
      Failed(*c, w, result.error);
      return std::nullopt;
    }
    if (interrupt::Interrupted()) {
      ex_.Interrupted();
      return std::nullopt;
    }
    // Its first batch of the benchmark carries the digest; a later one may answer `-`.
    const bool later = !answered_[c->name].insert(w.benchmark).second;
    const bool may_omit = later || digests_ == Digests::kNone;
    if (!digest.empty() && result.batch.digest != digest && !(may_omit && result.batch.digest == "-")) {
      ex_.ResultFor(w).failures.push_back(
          {Failure::Kind::kParity, w.name, c->name,
           fmt::format("worker '{}' answered benchmark '{}' with digest {}, where parity found {}: a different "
                       "result is a failed run, never a speed-up",
                       c->name, w.benchmark, result.batch.digest, digest),
           ""});
      return std::nullopt;
    }
    batches.push_back(result.batch);
  }
  return batches;
}

bool WorkerRound::QuitAll(const spec::Workload& w) {
  bool ok = true;
  for (auto& [name, process] : workers_) {
    if (!process->alive()) continue;
    // isolated = true: what it mapped over the round, checked before it goes (docs/workers.md).
    if (ok && !CheckIsolated(*ex_.spec().FindContender(name), w, "at the end of a round")) ok = false;
    const std::string error = process->Quit();
    if (!error.empty() && ok) {
      const spec::Contender* c = ex_.spec().FindContender(name);
      ok = Failed(*c, w, error);
    }
  }
  return ok;
}

}  // namespace pe::run::internal
