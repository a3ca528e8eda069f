#include "engine/measure/callgrind.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "engine/measure/scratch_dir.h"
#include "engine/runner/program_lookup.h"

namespace pe::measure {

using runner::Command;
using runner::ProcessRunner;
using runner::ResolvedProgram;
using runner::ResolveProgram;
namespace {

std::vector<std::string> Fields(std::string_view line) {
  std::vector<std::string> fields;
  std::istringstream in{std::string(line)};
  for (std::string field; in >> field;) fields.push_back(field);
  return fields;
}

}  // namespace

CallgrindRun RunCallgrind(const Command& command, ProcessRunner& runner, const std::filesystem::path& out_dir) {
  CallgrindRun run;
  ResolvedProgram valgrind = ResolveProgram("valgrind", {}, runner::EnginePathVariable());
  if (!valgrind.error.empty()) {
    run.error = "valgrind is not installed (" + valgrind.error + ")";
    return run;
  }
  Command wrapped = command;
  wrapped.argv = {
      valgrind.path.string(),
      "--tool=callgrind",
      "--trace-children=yes",
      // Without this a forked child's file would repeat its parent's costs up to the fork.
      "--dump-before=fork",
      "--callgrind-out-file=" + (out_dir / "cg.%p").string(),
      // Valgrind's own chatter stays out of the contender's stderr.
      "--log-file=" + (out_dir / "valgrind.%p.log").string(),
  };
  wrapped.argv.insert(wrapped.argv.end(), command.argv.begin(), command.argv.end());
  if (wrapped.sandbox.enabled) wrapped.sandbox.writable.push_back(std::filesystem::absolute(out_dir));
  if (command.timeout_s > 0) wrapped.timeout_s = command.timeout_s * kCallgrindSlowdown;
  run.outcome = runner.Run(wrapped);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(out_dir, ec)) {
    if (entry.path().filename().string().starts_with("cg.")) run.files.push_back(entry.path());
  }
  std::sort(run.files.begin(), run.files.end());
  return run;
}

std::optional<std::uint64_t> ParseCallgrindTotal(std::string_view text) {
  std::size_t ir_index = 0;  // Ir is first unless "events:" says otherwise
  std::optional<std::uint64_t> totals;
  std::optional<std::uint64_t> summary;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    auto value_at = [&](std::size_t skip) -> std::optional<std::uint64_t> {
      std::vector<std::string> fields = Fields(std::string_view(line).substr(skip));
      if (ir_index >= fields.size()) return std::nullopt;
      return std::strtoull(fields[ir_index].c_str(), nullptr, 10);
    };
    if (line.starts_with("events:")) {
      std::vector<std::string> events = Fields(std::string_view(line).substr(7));
      auto it = std::find(events.begin(), events.end(), "Ir");
      if (it != events.end()) ir_index = static_cast<std::size_t>(it - events.begin());
    } else if (line.starts_with("totals:")) {
      totals = value_at(7);
    } else if (line.starts_with("summary:")) {
      summary = value_at(8);
    }
  }
  return totals ? totals : summary;
}

}  // namespace pe::measure
