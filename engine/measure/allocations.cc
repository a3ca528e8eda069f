#include "engine/measure/allocations.h"

#include <fmt/core.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "engine/measure/elf_linkage.h"
#include "engine/measure/failed_run.h"
#include "engine/measure/scratch_dir.h"
#include "engine/runner/program_lookup.h"
#include "engine/runner/read_file.h"

namespace pe::measure {

using runner::Command;
using runner::Outcome;
using runner::ProcessRunner;
using runner::ReadWholeFile;
using runner::ResolvedProgram;
using runner::ResolveProgram;
namespace {

std::string EnvOf(const Command& command, const std::string& name) {
  if (auto it = command.env.find(name); it != command.env.end()) return it->second;
  const char* value = std::getenv(name.c_str());
  return value != nullptr ? value : "";
}

AllocationCount NotMeasured(std::string note) {
  AllocationCount result;
  result.note = std::move(note);
  return result;
}

}  // namespace

std::filesystem::path AllocCountLibraryPath() {
  if (const char* path = std::getenv("PERFENGINE_ALLOCCOUNT"); path != nullptr && *path != '\0') {
    return path;
  }
  std::error_code ec;
  std::filesystem::path exe_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  std::filesystem::path beside = exe_dir / kAllocCountLibrary;
  if (std::filesystem::exists(beside, ec)) return beside;
  std::filesystem::path installed = exe_dir.parent_path() / "lib" / "perfengine" / kAllocCountLibrary;
  if (std::filesystem::exists(installed, ec)) return installed;
  return beside;  // reported as missing by the caller, at the place the build puts it
}

AllocationCount ParseAllocationReport(std::string_view text) {
  AllocationCount result;
  std::uint64_t frees = 0;
  std::uint64_t bytes = 0;
  int malformed = 0;
  int own_malloc = 0;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    if (line.ends_with(" own-malloc")) {
      ++own_malloc;
      continue;
    }
    std::uint64_t pid, malloc_calls, calloc_calls, realloc_calls, memalign_calls, free_calls, line_bytes;
    std::string extra;
    if (!(fields >> pid >> malloc_calls >> calloc_calls >> realloc_calls >> memalign_calls >> free_calls >>
          line_bytes) ||
        (fields >> extra)) {
      ++malformed;
      continue;
    }
    result.kinds.malloc += malloc_calls;
    result.kinds.calloc += calloc_calls;
    result.kinds.realloc += realloc_calls;
    result.kinds.memalign += memalign_calls;
    frees += free_calls;
    bytes += line_bytes;
    ++result.processes;
  }
  if (own_malloc > 0) {
    AllocationCount unmeasurable;
    unmeasurable.processes = result.processes + own_malloc;
    unmeasurable.note = kNotMeasurableOwnMalloc;
    return unmeasurable;
  }
  if (result.processes > 0) {
    const AllocationKinds& k = result.kinds;
    result.calls = k.malloc + k.calloc + k.realloc + k.memalign;
    result.bytes = bytes;
    result.frees = frees;
  }
  if (malformed > 0) result.note = fmt::format("{} malformed report line(s) skipped", malformed);
  return result;
}

AllocationCount CountAllocations(const Command& command, ProcessRunner& runner) {
  if (command.argv.empty()) return NotMeasured("not measured: empty command");
  ResolvedProgram program = ResolveProgram(command.argv[0], command.cwd, EnvOf(command, "PATH"));
  if (!program.error.empty()) return NotMeasured("not measured: " + program.error);
  if (ReadLinkage(program.path) == Linkage::kStatic) return NotMeasured(kNotMeasurableStatic);
  std::filesystem::path library = AllocCountLibraryPath();
  std::error_code ec;
  if (!std::filesystem::exists(library, ec)) {
    return NotMeasured("not measured: the allocation counter library is missing: " + library.string());
  }

  ScratchDir scratch("pe-alloccount-");
  const std::filesystem::path report = scratch.path() / "allocations";
  Command counted = command;
  // First in the list, so its malloc is the one found and RTLD_NEXT reaches whatever
  // allocator comes after it (a preloaded one, or the C library's).
  std::string preload = EnvOf(command, "LD_PRELOAD");
  counted.env["LD_PRELOAD"] = preload.empty() ? library.string() : library.string() + ":" + preload;
  counted.env["PERFENGINE_ALLOC_OUT"] = report.string();
  if (counted.sandbox.enabled) counted.sandbox.writable.push_back(std::filesystem::absolute(scratch.path()));
  Outcome outcome = runner.Run(counted);
  if (!outcome.ok()) return NotMeasured("not measured: " + WhyItFailed(counted, outcome));

  AllocationCount result = ParseAllocationReport(ReadWholeFile(report));
  if (result.processes == 0 && result.note.empty()) {
    result.note =
        "not measured: no process reported its allocations (a statically linked "
        "program exec'd, or every process was killed or exec'd before exiting)";
  }
  return result;
}

}  // namespace pe::measure
