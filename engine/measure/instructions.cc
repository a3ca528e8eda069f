#include "engine/measure/instructions.h"

#include <fmt/core.h>

#include <optional>

#include "engine/measure/callgrind.h"
#include "engine/measure/failed_run.h"
#include "engine/measure/perf_counter.h"
#include "engine/measure/scratch_dir.h"
#include "engine/runner/read_file.h"

namespace pe::measure {

using runner::Command;
using runner::MakeSystemProcessRunner;
using runner::ProcessRunner;
using runner::ReadWholeFile;
namespace {

InstructionCount CountWithCallgrind(const Command& command, ProcessRunner& runner,
                                    const std::filesystem::path& callgrind_dir) {
  InstructionCount result;
  result.source = kSourceCallgrind;
  std::optional<ScratchDir> scratch;
  if (callgrind_dir.empty()) scratch.emplace("pe-callgrind-");
  CallgrindRun run = RunCallgrind(command, runner, scratch ? scratch->path() : callgrind_dir);
  if (!run.error.empty()) {
    result.source.clear();
    result.note = "not measured: " + run.error;
    return result;
  }
  if (!run.outcome.ok()) {
    result.note = "not measured: " + WhyItFailed(command, run.outcome);
    return result;
  }
  if (run.files.empty()) {
    result.note = "not measured: callgrind wrote no output file";
    return result;
  }
  std::uint64_t total = 0;
  for (const auto& file : run.files) {
    std::optional<std::uint64_t> ir = ParseCallgrindTotal(ReadWholeFile(file));
    if (!ir) {
      result.note = "not measured: no instruction total in " + file.filename().string();
      return result;
    }
    total += *ir;
  }
  result.count = total;
  if (!scratch) result.callgrind_files = run.files;
  return result;
}

}  // namespace

InstructionCount CountInstructions(const Command& command, ProcessRunner& runner, InstructionSource source,
                                   const std::filesystem::path& callgrind_dir) {
  std::string perf_note;
  if (source != InstructionSource::kCallgrind) {
    PerfCount perf = CountWithPerfEvent(command, runner);
    if (perf.available || source == InstructionSource::kPerfEvent) {
      InstructionCount result;
      result.count = perf.count;
      result.source = perf.available ? kSourcePerfEvent : "";
      result.note = perf.available || perf.note.empty() ? perf.note : "not measured: " + perf.note;
      return result;
    }
    perf_note = perf.note;
  }
  InstructionCount result = CountWithCallgrind(command, runner, callgrind_dir);
  if (!perf_note.empty()) {
    // The report says why the slower source was used.
    std::string fallback = fmt::format("{} refused ({}); counted with valgrind", kSourcePerfEvent, perf_note);
    result.note = result.note.empty() ? fallback : fallback + "; " + result.note;
  }
  return result;
}

InstructionCount CountInstructions(const Command& command) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  return CountInstructions(command, *runner);
}

}  // namespace pe::measure
