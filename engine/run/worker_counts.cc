#include "engine/run/worker_counts.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/measure/allocations.h"
#include "engine/measure/callgrind.h"
#include "engine/measure/reported_profile.h"
#include "engine/run/worker_round.h"
#include "engine/runner/program_lookup.h"

namespace pe::run::internal {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMarksEnv = "PERFENGINE_ALLOC_MARKS";

// The batches to ask for: a warm-up and a counted one per workload, each contender in turn;
// returns the 0-based index, in its worker's own sequence, of each workload's counted batch.
// False with the failure recorded.
bool RunCountedBatches(WorkerRound& round, const std::vector<const spec::Contender*>& contenders,
                       const std::vector<const spec::Workload*>& workloads, Executor& ex,
                       std::map<const spec::Workload*, int>& counted_index) {
  int index = 0;
  for (const spec::Workload* w : workloads) {
    const model::WorkerBenchmark& plan = *ex.ResultFor(*w).worker;
    // Every contender's worker at once: counts do not depend on what else runs, and callgrind's
    // slowdown makes these batches the run's longest wait.
    if (ex.progress()) ex.progress()->StartStep(fmt::format("{}, counts of {} workers", w->name, contenders.size()));
    if (!round.RunSideBySide(contenders, *w, 1, plan.digest)) return false;
    if (!round.RunSideBySide(contenders, *w, CountedIterations(plan.iterations), plan.digest)) return false;
    counted_index[w] = index + 1;
    index += 2;
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

std::int64_t CountedIterations(std::int64_t iterations) { return std::max<std::int64_t>(1, iterations / 50); }

int CountedDump(int batch_index) { return 2 * batch_index + 2; }

bool CountWorkerInstructions(Executor& ex, const std::vector<const spec::Contender*>& contenders,
                             const std::vector<const spec::Workload*>& workloads, const fs::path& out_dir,
                             WorkerCounts& counts) {
  const runner::ResolvedProgram valgrind = runner::ResolveProgram("valgrind", {}, runner::EnginePathVariable());
  if (!valgrind.error.empty()) {
    for (const spec::Contender* c : contenders) {
      for (const spec::Workload* w : workloads)
        counts[{w, c}].note = fmt::format("no instruction count: valgrind is not installed ({})", valgrind.error);
    }
    return true;
  }
  // One folder of dumps per contender, numbered: names need not be valid file names.
  std::map<std::string, fs::path> outs;
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    outs[contenders[i]->name] = fs::absolute(out_dir) / std::to_string(i);
    fs::create_directories(outs[contenders[i]->name]);
  }
  WorkerRound round(ex, /*round_steps=*/false, WorkerRound::Digests::kNone);
  auto under_callgrind = [&](const spec::Contender& c, runner::Command& cmd, const fs::path&) {
    const fs::path& out = outs.at(c.name);
    std::vector<std::string> argv = {
        valgrind.path.string(), "--tool=callgrind",
        // The protocol's markers (docs/workers.md): each batch's loop between two getppid() calls.
        "--zero-before=getppid", "--dump-before=getppid", "--callgrind-out-file=" + (out / "cg.out").string(),
        "--log-file=" + (out / "valgrind.log").string()};
    argv.insert(argv.end(), cmd.argv.begin(), cmd.argv.end());
    cmd.argv = std::move(argv);
    if (cmd.sandbox.enabled) cmd.sandbox.writable.push_back(out);
  };
  if (!round.StartAll(contenders, workloads, under_callgrind)) return false;
  std::map<const spec::Workload*, int> counted;
  if (!RunCountedBatches(round, contenders, workloads, ex, counted)) return false;
  const int batches = 2 * static_cast<int>(workloads.size());
  for (const spec::Contender* c : contenders) {
    const fs::path& out = outs[c->name];
    // One dump per marker call: exactly two per batch, else a benchmark called getppid() itself
    // and the dumps no longer line up with the batches.
    int dumps = 0;
    while (fs::exists(out / fmt::format("cg.out.{}", dumps + 1))) ++dumps;
    for (const spec::Workload* w : workloads) {
      WorkerCount& count = counts[{w, c}];
      if (dumps != 2 * batches) {
        count.note = fmt::format(
            "no instruction count: worker '{}' called getppid() {} times over {} batches, where the protocol's "
            "markers are exactly two a batch (docs/workers.md, \"Markers\")",
            c->name, dumps, batches);
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
  }
  return true;
}

bool ReportWorkerProfiles(Executor& ex, const std::vector<const spec::Contender*>& contenders, const spec::Workload& w,
                          const fs::path& out_dir, std::map<std::string, std::optional<std::string>>& texts) {
  std::map<std::string, fs::path> files;
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    const fs::path dir = fs::absolute(out_dir) / std::to_string(i);
    fs::create_directories(dir);
    files[contenders[i]->name] = dir / "profile";
  }
  WorkerRound round(ex, /*round_steps=*/false, WorkerRound::Digests::kNone);
  auto reporting = [&](const spec::Contender& c, runner::Command& cmd, const fs::path&) {
    const fs::path& file = files.at(c.name);
    cmd.env[measure::kProfileEnv] = file.string();
    if (cmd.sandbox.enabled) cmd.sandbox.writable.push_back(file.parent_path());
  };
  if (!round.StartAll(contenders, {&w}, reporting)) return false;
  std::map<const spec::Workload*, int> counted;
  if (!RunCountedBatches(round, contenders, {&w}, ex, counted)) return false;
  for (const spec::Contender* c : contenders) {
    const fs::path& file = files.at(c->name);
    texts[c->name] = fs::exists(file) ? std::optional<std::string>(ReadText(file)) : std::nullopt;
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

bool CountWorkerAllocations(Executor& ex, const std::vector<const spec::Contender*>& contenders,
                            const std::vector<const spec::Workload*>& workloads, const fs::path& out_dir,
                            WorkerCounts& counts) {
  const fs::path library = measure::AllocCountLibraryPath();
  std::map<std::string, fs::path> outs;
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    outs[contenders[i]->name] = fs::absolute(out_dir) / std::to_string(i);
    fs::create_directories(outs[contenders[i]->name]);
  }
  WorkerRound round(ex, /*round_steps=*/false, WorkerRound::Digests::kNone);
  auto with_counter = [&](const spec::Contender& c, runner::Command& cmd, const fs::path&) {
    const fs::path& out = outs.at(c.name);
    const auto preload = cmd.env.find("LD_PRELOAD");
    cmd.env["LD_PRELOAD"] = preload == cmd.env.end() ? library.string() : library.string() + ":" + preload->second;
    cmd.env[kMarksEnv] = (out / "marks").string();
    if (cmd.sandbox.enabled) cmd.sandbox.writable.push_back(out);
  };
  if (!round.StartAll(contenders, workloads, with_counter)) return false;
  std::map<const spec::Workload*, int> counted;
  if (!RunCountedBatches(round, contenders, workloads, ex, counted)) return false;
  const std::size_t expected = 4 * workloads.size();  // two marks a batch, two batches a workload
  for (const spec::Contender* c : contenders) {
    const auto lines = ParseAllocationMarks(ReadText(outs[c->name] / "marks"));
    for (const spec::Workload* w : workloads) {
      WorkerCount& count = counts[{w, c}];
      if (!lines || lines->size() != expected) {
        count.note = lines ? fmt::format(
                                 "no allocation count: worker '{}' called getppid() {} times over {} "
                                 "batches, where the protocol's markers are exactly two a batch (or the "
                                 "program is statically linked, which the counter cannot reach)",
                                 c->name, lines->size(), expected / 2)
                           : "no allocation count: the counter's marks file held a bad line";
        continue;
      }
      const std::size_t at = 2 * static_cast<std::size_t>(counted[w]);
      const auto [calls_before, bytes_before] = (*lines)[at];
      const auto [calls_after, bytes_after] = (*lines)[at + 1];
      count.allocation_calls = calls_after - calls_before;
      count.allocated_bytes = bytes_after - bytes_before;
    }
  }
  return true;
}

}  // namespace pe::run::internal
