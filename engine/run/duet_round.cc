#include "engine/run/duet_round.h"

#include <fmt/format.h>
#include <sched.h>

#include <cstdlib>
#include <latch>
#include <thread>

#include "engine/run/counters_file.h"
#include "engine/run/executor.h"

namespace pe::run {

std::vector<spec::SpecError> DuetRefusals(const spec::Spec& spec, int usable_cores) {
  std::vector<spec::SpecError> errors;
  if (spec.settings.order != "duet") return errors;
  const auto refuse = [&](const std::string& why) {
    errors.emplace_back(spec.order_pos, fmt::format("order = \"duet\" runs every contender at once, each on a core of "
                                                    "its own, but {}; use order = \"alternate\"",
                                                    why));
  };
  const int needed = static_cast<int>(spec.contenders.size());
  if (usable_cores < needed) {
    refuse(fmt::format("perfengine may use {} on this machine (sched_getaffinity) for {} contenders",
                       usable_cores == 1 ? std::string("1 core") : fmt::format("{} cores", usable_cores), needed));
  }
  for (const spec::Contender& c : spec.contenders) {
    if (c.threads > 1) refuse(fmt::format("contender '{}' declares threads = {}", c.name, c.threads));
  }
  for (const spec::Workload& w : spec.workloads) {
    if (w.serve) refuse(fmt::format("workload '{}' is a serve workload (a server and its load client)", w.name));
    for (const auto& [axis, value] : w.point) {
      if (axis == "threads" && std::atoi(value.c_str()) > 1) {
        refuse(fmt::format("workload '{}' runs with threads = {}", w.name, value));
      }
    }
  }
  return errors;
}

void CheckDuet(const spec::Spec& spec) {
  std::vector<spec::SpecError> errors = DuetRefusals(spec, static_cast<int>(UsableCpus().size()));
  if (!errors.empty()) throw spec::SpecError::Several(std::move(errors));
}

std::vector<runner::Outcome> RunAtOnce(runner::ProcessRunner& runner, const std::vector<runner::Command>& commands,
                                       const std::function<void(size_t)>& ended) {
  std::vector<runner::Outcome> outcomes(commands.size());
  std::latch ready(static_cast<std::ptrdiff_t>(commands.size()));
  const auto run = [&](size_t i) {
    ready.arrive_and_wait();  // released together: no contender gets a head start of a thread's creation
    outcomes[i] = runner.Run(commands[i]);
    if (ended) ended(i);
  };
  std::vector<std::jthread> others;
  for (size_t i = 1; i < commands.size(); ++i) others.emplace_back(run, i);
  if (!commands.empty()) run(0);
  others.clear();  // joins
  return outcomes;
}

namespace internal {

bool RunDuetRound(Executor& ex, const spec::Workload& w, int round, const std::vector<size_t>& order,
                  double* children_cpu_s) {
  const std::vector<int> cpus = UsableCpus();
  std::vector<const spec::Contender*> contenders;
  std::vector<runner::Command> commands;
  for (size_t position = 0; position < order.size(); ++position) {
    const spec::Contender& c = ex.spec().contenders[order[position]];
    contenders.push_back(&c);
    commands.push_back(ex.CommandFor(c, w, ex.PathsFor(c, w)));
    // CheckDuet refused fewer cores before the run; a set that shrank since fails the spawn.
    commands.back().cpu = position < cpus.size() ? cpus[position] : static_cast<int>(position);
  }
  std::vector<ExecutionPaths> paths;  // hooks (hooks.cc): prepared before the pair starts, cleaned up after
  for (const spec::Contender* c : contenders) {
    paths.push_back(ex.PathsFor(*c, w));
    if (!ex.Prepare(*c, w, paths.back())) return false;
  }
  // Each contender's counters file is taken as soon as its own process has ended: read after
  // both ended, it could have been rewritten by the rival still running (issue 45).
  const std::vector<model::Counter>& declared = ex.ResultFor(w).counters;
  std::vector<std::optional<CountersSnapshot>> snapshots(order.size());
  const auto ended = [&](size_t i) {
    const auto file = commands[i].env.find(kCountersEnv);
    if (!declared.empty() && file != commands[i].env.end()) snapshots[i] = SnapshotCounters(file->second);
  };
  const std::vector<runner::Outcome> outcomes = RunAtOnce(ex.runner(), commands, ended);
  std::vector<std::vector<model::CounterValue>> counters(order.size());
  for (size_t position = 0; position < order.size(); ++position) {
    const spec::Contender& c = *contenders[position];
    // Executed would read the file again, now: its command here names none, and the snapshot is
    // read below once Executed found the execution sound (as it reads the file then).
    runner::Command executed = commands[position];
    executed.env.erase(kCountersEnv);
    if (!ex.Executed(c, w, executed, outcomes[position], /*timed=*/true)) return false;
    if (const std::optional<CountersSnapshot>& snapshot = snapshots[position]) {
      if (auto error = ReadCountersSnapshot(*snapshot, declared, counters[position])) {
        ex.ResultFor(w).failures.push_back(
            {model::Failure::Kind::kCounters, w.name, c.name, *error, Tail(commands[position].stderr_path)});
        return false;
      }
    }
    if (!ex.Cleanup(c, w, paths[position])) return false;
  }
  for (size_t position = 0; position < order.size(); ++position) {
    const runner::Outcome& outcome = outcomes[position];
    model::Sample s;
    s.contender = contenders[position]->name;
    s.round = round;
    s.warmup = round < ex.settings().warmup_rounds;
    s.position = static_cast<int>(position);
    s.wall_s = outcome.wall_s;
    s.user_s = outcome.user_s;
    s.sys_s = outcome.sys_s;
    s.max_rss_kib = outcome.max_rss_kib;
    s.counters = std::move(counters[position]);
    *children_cpu_s += s.user_s + s.sys_s;
    ex.ResultFor(w).samples.push_back(std::move(s));
  }
  return true;
}

}  // namespace internal
}  // namespace pe::run
