// The workers of one round (docs/workers.md): one fresh worker process per contender, started
// before the round's first worker benchmark and asked to quit after its last, so rounds stay
// independent samples as process rounds are. Each runs through engine/worker's WorkerProcess
// (the spawner, its own process group, the contender's sandbox); every way one can go wrong
// becomes the run's failure (exit 2) naming the contender, the benchmark and its stderr's tail.
// Not a public interface: use experiment.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/run/executor.h"
#include "engine/spec/spec.h"
#include "engine/worker/worker_process.h"

namespace pe::run::internal {

// The benchmarks a worker will be asked for, comma-separated, in its environment: a worker may
// set up only those before its hello (docs/workers.md), so a count taken in a worker started for
// one benchmark holds nothing the other benchmarks' set-ups would have left in its heap.
inline constexpr std::string_view kBenchmarksEnv = "PERFENGINE_WORKER_BENCHMARKS";

// In every worker's environment (docs/workers.md, "Digests"): "first", a worker may answer
// `digest=-` for a benchmark's batches after its first in the process; "none" (the counting
// workers, whose batches parity does not need: every round checked it), for every batch. A digest
// costs what serialising the result costs (ruby/json's parse_canada: 91 ms a batch against a
// 4 ms batch, 4.9 s under callgrind; bench/ruby_json/digest_cost.rb), so digesting only each round worker's first batch
// of a benchmark keeps a round's time for its batches; that first one is checked every round.
inline constexpr std::string_view kDigestsEnv = "PERFENGINE_WORKER_DIGESTS";

// docs/workers.md, "Layout": a round's workers get a decimal seed in this variable, new every
// round, the same for every contender of the round and for the same run seed, from which a worker
// library shifts where its heap's data lies (the Ruby and Python libraries allocate a padding of a
// size drawn from it before setting their benchmarks up) and a worker may pick a code layout
// (specs/ruby-json/worker.rb). Without it what the other benchmarks of a suite leave in a
// worker's heap lies the same way in every round, so a change to one benchmark can move another's
// time the same way every round: a bias no number of rounds removes (ruby/json's plant 1, a parser
// change, moved generate_integers by 3% in every round; with the shift, 1%: docs/ruby-json.md).
// Shifted, it differs round to round and the rounds' interval covers it. The contenders of a round
// share the seed: the same draw for both, so where their code and data are the same the layout
// cancels in the round's ratio instead of adding to its noise, and where they differ it is still
// another draw each round. Counting workers get none: their counts must not depend on the round.
inline constexpr std::string_view kShiftEnv = "PERFENGINE_WORKER_SHIFT";

// The seed of kShiftEnv for every worker of `round` in a run seeded `run_seed`.
std::uint64_t ShiftSeed(std::uint64_t run_seed, int round);

// The CPU round workers run on under [run] pin_workers: the last of those the run may use
// (sched_getaffinity), the same for the whole run; -1 when none can be read.
int PinnedCpu();

// What a worker's command gets changed into before it starts (a callgrind or allocation-count
// run wraps it); `dir` is the worker's own scratch directory.
using WorkerCommandAdjust =
    std::function<void(const spec::Contender& c, runner::Command& command, const std::filesystem::path& dir)>;

// A measured batch as a sample's figures: per iteration (wall, the process's CPU time as user
// time, the thread's beside it), and each declared counter's growth per iteration.
// The files `pid` maps executable, from /proc/PID/maps, each once.
std::vector<runner::MappedFile> ExecutableMappings(pid_t pid);

model::Sample WorkerSample(const worker::Batch& batch, const std::vector<model::Counter>& counters);

class WorkerRound {
 public:
  // `round_steps`: each measured batch is a step of the rounds' progress (not in calibration).
  // Which batches must carry a digest (kDigestsEnv): each worker's first of a benchmark, or none.
  enum class Digests { kFirst, kNone };
  // `shift_round`: the round whose seeds each worker gets in kShiftEnv; none for calibration and
  // counting workers.
  explicit WorkerRound(Executor& executor, bool round_steps = true, Digests digests = Digests::kFirst,
                       std::optional<int> shift_round = std::nullopt)
      : ex_(executor), round_steps_(round_steps), digests_(digests), shift_round_(shift_round) {}
  // Kills and reaps whatever worker is still running (after a failure or an interrupt).
  ~WorkerRound();

  // Starts c's worker for `workloads` (the worker workloads it will be asked for) and checks
  // its hello offers each one's benchmark and reports each declared counter. False with the
  // failure recorded on the first of them.
  bool Start(const spec::Contender& c, const std::vector<const spec::Workload*>& workloads,
             const WorkerCommandAdjust& adjust = {});
  // The same for several contenders, their start-ups side by side (all spawned, then each hello
  // awaited), in the order given.
  bool StartAll(const std::vector<const spec::Contender*>& contenders,
                const std::vector<const spec::Workload*>& workloads, const WorkerCommandAdjust& adjust = {});

  // One batch of w's benchmark from c's worker. With `digest` not empty, a batch whose digest
  // differs is a parity failure; `-` is accepted from a worker that has answered w's benchmark
  // before (kDigestsEnv), on its first batch of it only with Digests::kNone. With `step` false (a warm-up, or a round's
  // batch before the last) it is not a step of the rounds' progress. nullopt with the failure recorded.
  std::optional<worker::Batch> Run(const spec::Contender& c, const spec::Workload& w, std::int64_t iterations,
                                   const std::string& digest = "", bool step = true);

  // One batch of w's benchmark from each contender's worker at once (each asked, then each
  // answer awaited), for counts, which do not depend on what else runs; never for timing.
  std::optional<std::vector<worker::Batch>> RunSideBySide(const std::vector<const spec::Contender*>& contenders,
                                                          const spec::Workload& w, std::int64_t iterations,
                                                          const std::string& digest = "");

  // Asks every worker to quit and waits for each. False with the failure recorded on `w`.
  bool QuitAll(const spec::Workload& w);

 private:
  // c's worker command (its argv, placeholders filled, {fixture:NAME} too), in c's paths_ entry.
  runner::Command CommandFor(const spec::Contender& c, const spec::Workload& w);
  worker::WorkerSettings SettingsFor(const spec::Workload& w) const;
  bool Failed(const spec::Contender& c, const spec::Workload& w, const std::string& error);
  // isolated = true (issue 41, item 5): c's worker maps only its own build's shared objects,
  // none twice (shared_objects.h), read from its /proc/PID/maps `when` ("after start-up").
  // False with the failure recorded.
  bool CheckIsolated(const spec::Contender& c, const spec::Workload& w, const char* when);
  // Its hello offers every workload's benchmark and reports every declared counter.
  bool CheckHello(const spec::Contender& c, const worker::Hello& hello,
                  const std::vector<const spec::Workload*>& workloads);

  Executor& ex_;
  bool round_steps_;
  Digests digests_;
  std::optional<int> shift_round_;
  bool step_ = true;  // the batch asked for is a step of the rounds' progress
  std::map<std::string, std::unique_ptr<worker::WorkerProcess>> workers_;  // by contender name
  std::map<std::string, ExecutionPaths> paths_;                            // by contender name
  // The benchmarks each contender's current worker has answered (kDigestsEnv).
  std::map<std::string, std::set<std::string>> answered_;
};

}  // namespace pe::run::internal
