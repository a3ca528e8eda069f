#include "engine/run/round_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/analysis/analyze.h"
#include "engine/gate/gate.h"
#include "engine/run/duet_round.h"
#include "engine/run/execution_dir.h"
#include "engine/run/machine_load.h"
#include "engine/run/order.h"
#include "engine/run/serve_workload.h"
#include "engine/run/worker_batches.h"

namespace pe::run::internal {

using model::Check;
using model::RunResult;
using model::Sample;
using model::Verdict;
using runner::Outcome;

// Workloads with a gated check that the rounds so far leave unresolved. Judged on a copy
// with the confidence sequences only (no bootstrap), which stay valid however often they
// are looked at: that is what lets the run stop as soon as every check is resolved. What each
// check could have seen (its power figure) is left to the verdict at the end.
Verdict RoundRunner::Interim() const {
  RunResult interim = ex_.result();
  analysis::Analyze(interim, {.intervals = false, .cancelled = {}});
  return gate::Judge(interim, {.power = false});
}

std::vector<const spec::Workload*> RoundRunner::Unresolved(std::vector<OpenCheck>* open_checks) const {
  return Open(Interim(), open_checks);
}

std::vector<const spec::Workload*> RoundRunner::Open(const Verdict& verdict,
                                                     std::vector<OpenCheck>* open_checks) const {
  // A startup-adjusted check also reads the startup workload's median: it gets rounds too.
  const bool logic_open = std::any_of(verdict.checks.begin(), verdict.checks.end(), [](const Check& c) {
    return c.threshold == "min_logic_speedup" && c.state == Check::State::kUnresolved;
  });
  std::vector<const spec::Workload*> open;
  for (const spec::Workload* w : workloads_) {
    // A check stopped for futility ([run] futility) is left unresolved and gets no more rounds.
    const bool unresolved = std::any_of(verdict.checks.begin(), verdict.checks.end(), [&](const Check& c) {
      return c.workload == w->name && c.state == Check::State::kUnresolved && !c.futile;
    });
    if (unresolved || (w->startup && logic_open)) open.push_back(w);
  }
  for (const Check& c : verdict.checks) {
    if (open_checks && c.state == Check::State::kUnresolved && !c.futile)
      open_checks->push_back({c.workload, c.rounds, c.rounds_needed});
  }
  return open;
}

bool RoundRunner::RunRounds() {
  // [run] rounds are the minimum; up to max_rounds more are added while a check is open.
  const int first = ex_.settings().warmup_rounds + ex_.settings().rounds;
  const int last = ex_.settings().warmup_rounds + std::max(ex_.settings().rounds, ex_.settings().max_rounds);
  if (ex_.progress())
    ex_.progress()->BeginRounds(static_cast<int>(first * workloads_.size() * ex_.spec().contenders.size()), first);
  std::vector<const spec::Workload*> active = workloads_;
  LoadProbe load;
  load.Begin();
  for (int round = 0; round < last; ++round) {
    if (round >= first) {
      std::vector<OpenCheck> open_checks;
      const Verdict interim = Interim();
      active = Open(interim, &open_checks);
      if (active.empty()) break;
      // A miss no round can undo fixes the exit code at 1 (docs/exit-codes.md: only a failure
      // of the run, 2, outranks it): the open checks could not change it, so the answer is known.
      const auto settled = std::find_if(interim.checks.begin(), interim.checks.end(), gate::MissIsSettled);
      if (settled != interim.checks.end() && !rules_.keep_measuring && !rules_.misses_accepted) {
        const int done = round - ex_.settings().warmup_rounds;
        ex_.result().rounds_stopped = fmt::format(
            "rounds stopped after {} of up to {}, as a miss no round can undo fixes the exit code at 1 whatever the "
            "unresolved checks show ({}); --keep-measuring measures them to max_rounds",
            done, last - ex_.settings().warmup_rounds, gate::CheckLine(*settled));
        break;
      }
      if (ex_.progress()) {
        ex_.progress()->ExpectMoreSteps(ExpectedAddedSteps(open_checks,
                                                           std::max(ex_.settings().rounds, ex_.settings().max_rounds),
                                                           static_cast<int>(ex_.spec().contenders.size())));
      }
    }
    if (ex_.progress()) ex_.progress()->SetRound(round + 1);
    next_round_ = round + 1;
    double children_cpu_s = 0;
    const std::vector<size_t> order =
        RoundOrder(ex_.settings().order, round, ex_.spec().contenders.size(), ex_.settings().seed);
    // Worker workloads first: for each worker group in turn, a fresh worker per contender for the
    // round, started in the round's order, its batches (each sample in `order`'s order), its quit.
    std::map<const spec::Workload*, std::vector<Sample>> worker_samples;
    for (const std::vector<const spec::Workload*>& group : WorkerGroups(WorkerWorkloads(active))) {
      WorkerRound workers(ex_, true, WorkerRound::Digests::kFirst, round);
      std::vector<const spec::Contender*> contenders;
      for (size_t index : order) contenders.push_back(&ex_.spec().contenders[index]);
      if (!workers.StartAll(contenders, group)) return false;
      auto samples = RunWorkerBatches(workers, contenders, group);
      if (!samples) return false;
      worker_samples.merge(*samples);
      if (!workers.QuitAll(*group.front())) return false;
    }
    for (const spec::Workload* w : active) {
      if (ex_.settings().order == "duet") {  // every contender at once, each on its own core
        if (!RunDuetRound(ex_, *w, round, order, &children_cpu_s)) return false;
        continue;
      }
      for (size_t position = 0; position < order.size(); ++position) {
        const spec::Contender& c = ex_.spec().contenders[order[position]];
        Sample s;
        if (w->worker) {
          s = std::move(worker_samples.at(w)[position]);
        } else if (w->serve) {
          auto served = ex_.ExecuteServe(c, *w, false);
          if (!served) return false;
          s = ServeSample(*served);
        } else {
          Outcome outcome;
          if (!ex_.Execute(c, *w, &outcome, nullptr)) return false;
          // Its output is read (counters) and its cleanup ran: it goes before the next
          // contender runs, so the scratch holds one output at a time (issue 45).
          ReleaseExecutionDir(ex_.PathsFor(c, *w).dir);
          s.wall_s = outcome.wall_s;
          s.user_s = outcome.user_s;
          s.sys_s = outcome.sys_s;
          s.max_rss_kib = outcome.max_rss_kib;
          s.counters = ex_.TakeCounters();
        }
        s.contender = c.name;
        s.round = round;
        s.warmup = round < ex_.settings().warmup_rounds;
        s.position = static_cast<int>(position);
        children_cpu_s += s.user_s + s.sys_s;
        ex_.ResultFor(*w).samples.push_back(std::move(s));
      }
    }
    ex_.result().load.push_back(load.End(round, children_cpu_s));
  }
  return true;
}

std::optional<std::map<const spec::Workload*, std::vector<Sample>>> RoundRunner::RunWorkerBatches(
    WorkerRound& workers, const std::vector<const spec::Contender*>& order,
    const std::vector<const spec::Workload*>& worker_workloads) {
  const int batches = std::max(1, ex_.settings().batches.value_or(1));
  struct Kept {
    std::vector<std::optional<worker::Batch>> fastest;  // by position in `order`
    // CPU per iteration, likewise, of the warm batches (from the second pass on): the first
    // pass's batch of a fresh worker is cold, and would be most rounds' slowest.
    std::vector<double> slowest_warm, fastest_warm;
    std::vector<std::map<std::string, std::int64_t>> first_counters;  // likewise
  };
  std::map<const spec::Workload*, Kept> kept;
  auto per_iteration = [](const worker::Batch& b) {
    return static_cast<double>(b.process_cpu_ns) / static_cast<double>(std::max<std::int64_t>(b.iterations, 1));
  };
  // One batch of w from each contender, in `order` on even passes and reversed on odd ones
  // (ABBA...), so neither contender always follows the other.
  auto pass = [&](const spec::Workload& w, int k, std::int64_t iterations, bool measured) {
    const model::WorkerBenchmark& plan = *ex_.ResultFor(w).worker;
    Kept& mine = kept[&w];
    mine.fastest.resize(order.size());
    mine.first_counters.resize(order.size());
    mine.slowest_warm.resize(order.size());
    mine.fastest_warm.resize(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      const size_t position = k % 2 == 0 ? i : order.size() - 1 - i;
      auto batch = workers.Run(*order[position], w, iterations, plan.digest, /*step=*/measured && k == batches - 1);
      if (!batch) return false;
      if (!measured) continue;
      if (k == 0) mine.first_counters[position] = batch->counters;
      std::optional<worker::Batch>& fastest = mine.fastest[position];
      if (k > 0) {
        const double cpu = per_iteration(*batch);
        mine.slowest_warm[position] = std::max(mine.slowest_warm[position], cpu);
        if (mine.fastest_warm[position] == 0 || cpu < mine.fastest_warm[position]) mine.fastest_warm[position] = cpu;
      }
      if (!fastest || per_iteration(*batch) < per_iteration(*fastest)) fastest = std::move(batch);
    }
    return true;
  };
  // A fresh worker's first calls of a benchmark are cold (caches, lazy loading, a JIT). One
  // measured batch gets a tenth of a batch just before it, not measured.
  if (batches == 1) {
    for (const spec::Workload* w : worker_workloads) {
      const std::int64_t n = ex_.ResultFor(*w).worker->iterations;
      if (!pass(*w, 0, std::max<std::int64_t>(1, n / 10), /*measured=*/false) || !pass(*w, 0, n, true))
        return std::nullopt;
    }
  }
  // Several: pass k runs batch k of every benchmark, so one benchmark's batches are spread over
  // the round rather than back to back, and a burst of interference on a shared machine (they
  // last longer than a benchmark's batches) seldom covers all of them. A contender's time is its
  // fastest batch: interference only ever adds time, so the least CPU time per iteration is the
  // steadiest estimate of a batch's own cost (Chen and Revels, "Robust benchmarking in noisy
  // environments", 2016); that also leaves a cold first batch out. Its counters are its first
  // batch's: the same place in the same sequence of requests to a fresh worker every round, so
  // an exact count stays exact (a runtime's counts can depend on what its collector kept before;
  // workers/ruby collects fully before a benchmark's first batch of a size).
  for (int k = 0; batches > 1 && k < batches; ++k) {
    for (const spec::Workload* w : worker_workloads) {
      if (!pass(*w, k, ex_.ResultFor(*w).worker->iterations, /*measured=*/true)) return std::nullopt;
    }
  }
  std::map<const spec::Workload*, std::vector<Sample>> samples;
  for (const spec::Workload* w : worker_workloads) {
    Kept& mine = kept.at(w);
    for (size_t position = 0; position < order.size(); ++position) {
      mine.fastest[position]->counters = mine.first_counters[position];
      samples[w].push_back(WorkerSample(*mine.fastest[position], ex_.ResultFor(*w).counters));
      samples[w].back().worker->batches = batches;
      const double fastest = mine.fastest_warm[position], slowest = mine.slowest_warm[position];
      if (batches > 2 && fastest > 0 && slowest > fastest)
        samples[w].back().worker->batch_range = std::log(slowest / fastest);
    }
  }
  return samples;
}

bool RoundRunner::RunRssOnly() {
  for (const spec::Workload* w : workloads_) {
    const int runs =
        w->serve || w->worker ? 0 : ex_.ResultFor(*w).thresholds.rss_runs;  // a server's RSS comes with each round
    for (int i = 0; i < runs; ++i) {
      for (const spec::Contender& c : ex_.spec().contenders) {
        Outcome outcome;
        if (!ex_.Execute(c, *w, &outcome, nullptr)) return false;
        ReleaseExecutionDir(ex_.PathsFor(c, *w).dir);
        Sample s;
        s.contender = c.name;
        s.round = next_round_ + i;
        s.rss_only = true;
        s.max_rss_kib = outcome.max_rss_kib;
        ex_.ResultFor(*w).samples.push_back(std::move(s));
      }
    }
  }
  return true;
}

}  // namespace pe::run::internal
