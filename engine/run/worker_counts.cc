#include "engine/run/worker_counts.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/measure/allocations.h"
#include "engine/measure/callgrind.h"
#include "engine/run/worker_round.h"
#include "engine/runner/program_lookup.h"

namespace pe::run::internal {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMarksEnv = "PERFENGINE_ALLOC_MARKS";

// The batches to ask for: a warm-up and a counted one per workload, in order; returns the
// 0-based batch index of each workload's counted batch. False with the failure recorded.
bool RunCountedBatches(WorkerRound& round, const spec::Contender& c,
                       const std::vector<const spec::Workload*>& workloads, Executor& ex,
                       std::map<const spec::Workload*, int>& counted_index) {
  int index = 0;
  for (const spec::Workload* w : workloads) {
    if (ex.progress()) ex.progress()->StartStep(fmt::format("{}, counts of {}", w->name, c.name));
    const model::WorkerBenchmark& plan = *ex.ResultFor(*w).worker;
    if (!round.Run(c, *w, 1, plan.digest)) return false;
    ++index;
    if (!round.Run(c, *w, CountedIterations(plan.iterations), plan.digest)) return false;
    counted_index[w] = index++;
  }
  return round.QuitAll(*workloads.front());
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::int64_t CountedIterations(std::int64_t iterations) { return std::max<std::int64_t>(1, iterations / 20); }

int CountedDump(int batch_index) { return 2 * batch_index + 2; }

bool CountWorkerInstructions(Executor& ex, const spec::Contender& c,
                             const std::vector<const spec::Workload*>& workloads, const fs::path& out_dir,
                             std::map<const spec::Workload*, WorkerCount>& counts) {
  const runner::ResolvedProgram valgrind = runner::ResolveProgram("valgrind", {}, runner::EnginePathVariable());
  if (!valgrind.error.empty()) {
    for (const spec::Workload* w : workloads)
      counts[w].note = fmt::format("no instruction count: valgrind is not installed ({})", valgrind.error);
    return true;
  }
  const fs::path out = fs::absolute(out_dir);
  WorkerRound round(ex, /*round_steps=*/false);
  auto under_callgrind = [&](runner::Command& cmd, const fs::path&) {
    std::vector<std::string> argv = {
        valgrind.path.string(), "--tool=callgrind",
        // The protocol's markers (docs/workers.md): each batch's loop between two getppid() calls.
        "--zero-before=getppid", "--dump-before=getppid", "--callgrind-out-file=" + (out / "cg.out").string(),
        "--log-file=" + (out / "valgrind.log").string()};
    argv.insert(argv.end(), cmd.argv.begin(), cmd.argv.end());
    cmd.argv = std::move(argv);
    if (cmd.sandbox.enabled) cmd.sandbox.writable.push_back(out);
  };
  if (!round.Start(c, workloads, under_callgrind)) return false;
  std::map<const spec::Workload*, int> counted;
  if (!RunCountedBatches(round, c, workloads, ex, counted)) return false;
  const int batches = 2 * static_cast<int>(workloads.size());
  // One dump per marker call: exactly two per batch, else a benchmark called getppid() itself
  // and the dumps no longer line up with the batches.
  int dumps = 0;
  while (fs::exists(out / fmt::format("cg.out.{}", dumps + 1))) ++dumps;
  for (const spec::Workload* w : workloads) {
    WorkerCount& count = counts[w];
    if (dumps != 2 * batches) {
      count.note = fmt::format(
          "no instruction count: worker '{}' called getppid() {} times over {} batches, where the protocol's markers "
          "are exactly two a batch (docs/workers.md, \"Markers\")",
          c.name, dumps, batches);
      continue;
    }
    const fs::path file = out / fmt::format("cg.out.{}", CountedDump(counted[w]));
    const std::optional<std::uint64_t> total = measure::ParseCallgrindTotal(ReadText(file));
    if (!total) {
      count.note = fmt::format("no instruction count: callgrind's file {} has no total", file.string());
      continue;
    }
    count.instructions = *total;
    count.callgrind_files = {file};
  }
  return true;
}

std::optional<std::vector<std::pair<std::uint64_t, std::uint64_t>>> ParseAllocationMarks(const std::string& text) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> marks;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::uint64_t calls = 0, bytes = 0;
    std::string rest;
    if (!(fields >> calls >> bytes) || (fields >> rest)) return std::nullopt;
    marks.emplace_back(calls, bytes);
  }
  return marks;
}

bool CountWorkerAllocations(Executor& ex, const spec::Contender& c, const std::vector<const spec::Workload*>& workloads,
                            const fs::path& out_dir, std::map<const spec::Workload*, WorkerCount>& counts) {
  const fs::path library = measure::AllocCountLibraryPath();
  const fs::path marks = fs::absolute(out_dir) / "marks";
  WorkerRound round(ex, /*round_steps=*/false);
  auto with_counter = [&](runner::Command& cmd, const fs::path&) {
    const auto preload = cmd.env.find("LD_PRELOAD");
    cmd.env["LD_PRELOAD"] = preload == cmd.env.end() ? library.string() : library.string() + ":" + preload->second;
    cmd.env[kMarksEnv] = marks.string();
    if (cmd.sandbox.enabled) cmd.sandbox.writable.push_back(fs::absolute(out_dir));
  };
  if (!round.Start(c, workloads, with_counter)) return false;
  std::map<const spec::Workload*, int> counted;
  if (!RunCountedBatches(round, c, workloads, ex, counted)) return false;
  const auto lines = ParseAllocationMarks(ReadText(marks));
  const std::size_t expected = 4 * workloads.size();  // two marks a batch, two batches a workload
  for (const spec::Workload* w : workloads) {
    WorkerCount& count = counts[w];
    if (!lines || lines->size() != expected) {
      count.note = lines ? fmt::format(
                               "no allocation count: worker '{}' called getppid() {} times over {} batches, "
                               "where the protocol's markers are exactly two a batch (or the program is "
                               "statically linked, which the counter cannot reach)",
                               c.name, lines->size(), expected / 2)
                         : "no allocation count: the counter's marks file held a bad line";
      continue;
    }
    const std::size_t at = 2 * static_cast<std::size_t>(counted[w]);
    const auto [calls_before, bytes_before] = (*lines)[at];
    const auto [calls_after, bytes_after] = (*lines)[at + 1];
    count.allocation_calls = calls_after - calls_before;
    count.allocated_bytes = bytes_after - bytes_before;
  }
  return true;
}

}  // namespace pe::run::internal
