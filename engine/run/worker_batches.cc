#include "engine/run/worker_batches.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/run/worker_round.h"
#include "engine/units/units.h"
#include "engine/worker/protocol.h"

namespace pe::run::internal {

namespace {

// Calibration stops growing a benchmark's batch once one lasts this share of batch_time: the
// time per iteration is then measured over enough iterations for the clock's grain and a cold
// first call not to matter, at a quarter of a measured batch's cost.
constexpr double kCalibrationShare = 0.25;
// Each step grows the batch at most this much, so a benchmark whose first iteration was slow
// (a cold cache, lazy loading) cannot make the next batch run for minutes.
constexpr double kMaxGrowth = 100;

}  // namespace

double BatchCost(const worker::Batch& batch) {
  return std::max(static_cast<double>(batch.process_cpu_ns), static_cast<double>(batch.wall_ns) / 4);
}

std::vector<const spec::Workload*> WorkerWorkloads(const std::vector<const spec::Workload*>& workloads) {
  std::vector<const spec::Workload*> workers;
  for (const spec::Workload* w : workloads) {
    if (w->worker) workers.push_back(w);
  }
  return workers;
}

std::vector<std::vector<const spec::Workload*>> WorkerGroups(const std::vector<const spec::Workload*>& workers) {
  std::vector<std::vector<const spec::Workload*>> groups;
  std::map<std::string, size_t> index;
  for (const spec::Workload* w : workers) {
    const auto [it, added] = index.emplace(w->worker_group, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(w);
  }
  return groups;
}

std::int64_t BatchIterations(double batch_time_s, double iteration_s) {
  if (!(iteration_s > 0)) return 1;
  const double n = std::round(batch_time_s / iteration_s);
  if (!(n >= 1)) return 1;
  return n >= 9e18 ? static_cast<std::int64_t>(9e18) : static_cast<std::int64_t>(n);
}

bool CalibrateWorkers(Executor& ex, const std::vector<const spec::Workload*>& workloads) {
  const std::vector<const spec::Workload*> workers = WorkerWorkloads(workloads);
  if (workers.empty()) return true;
  const double batch_time = ex.settings().batch_time_s.value_or(spec::limits::kDefaultBatchTimeS);
  Progress* progress = ex.progress();
  if (progress) {
    progress->BeginPhase("calibrating worker batches", static_cast<int>(ex.spec().contenders.size() * workers.size()),
                         fmt::format("parity and batch size of {} worker benchmarks, each batch to last about {}",
                                     workers.size(), units::FormatSeconds(batch_time)));
  }
  std::map<const spec::Workload*, std::string> digest;  // the first contender's answer
  std::map<const spec::Workload*, std::string> digest_of;
  std::map<const spec::Workload*, double> slowest;  // seconds per iteration
  // Every contender's worker at once: their start-ups run side by side; then each benchmark is
  // asked of each in turn.
  std::vector<const spec::Contender*> contenders;
  for (const spec::Contender& c : ex.spec().contenders) contenders.push_back(&c);
  WorkerRound round(ex, /*round_steps=*/false);
  auto calibrate = [&] {
    if (!round.StartAll(contenders, workers)) return false;
    for (const spec::Workload* w : workers) {
      for (const spec::Contender* c : contenders) {
        if (progress) progress->StartStep(fmt::format("{}, {}", w->name, c->name));
        auto first = round.Run(*c, *w, 1);
        if (!first) return false;
        const auto [it, inserted] = digest.emplace(w, first->digest);
        if (!inserted && it->second != first->digest) {
          ex.ResultFor(*w).failures.push_back(
              {model::Failure::Kind::kParity, w->name, c->name,
               fmt::format("outputs differ: benchmark '{}' answered digest {} from worker '{}' and {} from worker "
                           "'{}' (docs/workers.md, \"Parity\"); a different result is a failed run, never a speed-up",
                           w->benchmark, it->second, digest_of[w], first->digest, c->name),
               ""});
          return false;
        }
        if (inserted) digest_of[w] = c->name;
        std::int64_t n = 1;
        double cost_ns = BatchCost(*first);
        while (cost_ns < kCalibrationShare * batch_time * 1e9) {
          const double want = kCalibrationShare * batch_time * 1e9 / std::max(cost_ns, 1.0);
          const double grown = static_cast<double>(n) * std::clamp(want * 1.2, 2.0, kMaxGrowth);
          if (grown > 9e18) break;
          n = static_cast<std::int64_t>(grown);
          auto batch = round.Run(*c, *w, n, it->second);
          if (!batch) return false;
          cost_ns = BatchCost(*batch);
        }
        slowest[w] = std::max(slowest[w], cost_ns / 1e9 / static_cast<double>(n));
      }
    }
    return round.QuitAll(*workers.front());
  };
  const bool ok = calibrate();
  if (progress) progress->EndPhase();
  if (!ok) return false;
  for (const spec::Workload* w : workers) {
    model::WorkerBenchmark& b = ex.ResultFor(*w).worker.emplace();
    b.benchmark = w->benchmark;
    b.iteration_s = slowest[w];
    b.iterations = BatchIterations(batch_time, b.iteration_s);
    b.digest = digest[w];
    const int batches = ex.settings().batches.value_or(1);
    const std::string size = fmt::format("{} iterations (about {} at calibration, [run] batch_time {})", b.iterations,
                                         units::FormatSeconds(b.iteration_s * static_cast<double>(b.iterations)),
                                         units::FormatSeconds(batch_time));
    ex.ResultFor(*w).notes.push_back(
        batches == 1
            ? fmt::format("worker benchmark '{}': each round, each contender runs a warm-up batch of {} iterations, "
                          "then a measured batch of {}; times and counters are per iteration",
                          w->benchmark, std::max<std::int64_t>(1, b.iterations / 10), size)
            : fmt::format("worker benchmark '{}': each round, each contender runs {} measured batches of {}, the "
                          "contenders taking turns, one batch of every benchmark per pass; a round's time is each "
                          "one's fastest batch, its counters its first batch's; times and counters are per iteration",
                          w->benchmark, batches, size));
  }
  return true;
}

}  // namespace pe::run::internal
