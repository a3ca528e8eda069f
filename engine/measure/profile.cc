#include "engine/measure/profile.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "engine/measure/callgrind.h"
#include "engine/measure/failed_run.h"
#include "engine/measure/scratch_dir.h"
#include "engine/runner/program_lookup.h"
#include "engine/runner/read_file.h"

namespace pe::measure {

using runner::Command;
using runner::MakeSystemProcessRunner;
using runner::Outcome;
using runner::ProcessRunner;
using runner::ReadWholeFile;
using runner::ResolvedProgram;
using runner::ResolveProgram;
namespace {

// "file:function [object]" -> "function". The file part ends at the first single colon
// ("???", a path); "::" belongs to the function's qualified name.
std::string FunctionName(std::string text) {
  if (!text.empty() && text.back() == ']') {
    if (std::size_t open = text.rfind(" ["); open != std::string::npos) text.resize(open);
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ':') continue;
    if (i + 1 < text.size() && text[i + 1] == ':') {
      ++i;
      continue;
    }
    return text.substr(i + 1);
  }
  return text;
}

std::uint64_t ParseGroupedNumber(const std::string& text) {
  std::uint64_t value = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

// callgrind_annotate on the engine's PATH; nothing, with `note` saying so, when it is not installed.
std::optional<std::filesystem::path> FindAnnotate(std::string& note) {
  ResolvedProgram annotate = ResolveProgram("callgrind_annotate", {}, runner::EnginePathVariable());
  if (annotate.error.empty()) return annotate.path;
  note = "not profiled: callgrind_annotate is not installed (" + annotate.error + ")";
  return std::nullopt;
}

}  // namespace

std::vector<FunctionCost> ParseCallgrindAnnotate(std::string_view text) {
  static const std::regex kLine(R"(^\s*([0-9][0-9,]*)\s+\(\s*[0-9.]+%\)\s+(.+?)\s*$)");
  std::vector<FunctionCost> functions;
  bool in_functions = false;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    // The per-function table follows the header line naming "file:function".
    if (line.find("file:function") != std::string::npos) {
      in_functions = true;
      continue;
    }
    if (!in_functions) continue;
    std::smatch match;
    if (!std::regex_match(line, match, kLine)) {
      // Past the table: callgrind_annotate may go on to annotate source files.
      if (!functions.empty() && line.starts_with("---")) break;
      continue;
    }
    functions.push_back({FunctionName(match[2].str()), 0, ParseGroupedNumber(match[1].str())});
  }
  return functions;
}

ProfileResult ProfileCommand(const Command& command, ProcessRunner& runner,
                             const std::vector<std::filesystem::path>& own_dirs) {
  ProfileResult result;
  // Checked before a callgrind run is spent on files that could not be read.
  if (!FindAnnotate(result.note)) return result;
  ScratchDir scratch("pe-profile-");
  CallgrindRun run = RunCallgrind(command, runner, scratch.path());
  if (!run.error.empty()) {
    result.note = "not profiled: " + run.error;
    return result;
  }
  if (!run.outcome.ok()) {
    result.note = "not profiled: " + WhyItFailed(command, run.outcome);
    return result;
  }
  return ProfileCallgrindFiles(run.files, runner, own_dirs);
}

ProfileResult ProfileCallgrindFiles(const std::vector<std::filesystem::path>& files, ProcessRunner& runner,
                                    const std::vector<std::filesystem::path>& own_dirs) {
  ProfileResult result;
  const std::optional<std::filesystem::path> annotate = FindAnnotate(result.note);
  if (!annotate) return result;
  std::map<std::string, std::uint64_t> costs;
  for (const auto& file : files) {
    const std::string text = ReadWholeFile(file);
    std::optional<std::uint64_t> total = ParseCallgrindTotal(text);
    if (total) result.total += *total;
    CallGraph graph;
    if (auto error = ParseCallgrindOut(text, graph)) {
      result.note = "not profiled: " + file.filename().string() + ": " + *error;
      return result;
    }
    MarkOwnObjects(graph, own_dirs);
    MergeCallGraph(result.graph, graph);
    Command annotate_command;
    annotate_command.argv = {annotate->string(), "--inclusive=no", "--threshold=100", "--auto=no", file.string()};
    annotate_command.stdout_path = file.string() + ".annotated";
    Outcome outcome = runner.Run(annotate_command);
    if (!outcome.ok()) {
      result.note = "not profiled: callgrind_annotate " + outcome.error;
      return result;
    }
    // callgrind_annotate --inclusive=no counts the cost of a `calls=0` arc (a frame still active
    // when the file was dumped: a worker's batch dumped at its markers has main, the VM and
    // the worker's loop below it) as its caller's self cost, so those frames showed 100% (and
    // "(below main)", named in two objects, 200%) and outranked the functions whose cost grew.
    // The file's own self costs (ParseCallgrindOut: a call line's cost is never self) win where
    // the function is in the graph; annotate's names and rows stay.
    std::map<std::string, std::uint64_t> self;  // by name, over objects and files, as `costs`
    for (const auto& [key, node] : graph.nodes) self[key.function] += node.self;
    std::map<std::string, std::uint64_t> annotated;
    for (const FunctionCost& function : ParseCallgrindAnnotate(ReadWholeFile(annotate_command.stdout_path))) {
      annotated[function.function] += function.cost;
    }
    for (const auto& [name, cost] : annotated) {
      const auto it = self.find(name);
      costs[name] += it != self.end() ? it->second : cost;
    }
  }
  for (const auto& [name, cost] : costs) {
    double share = result.total > 0 ? static_cast<double>(cost) / result.total : 0;
    result.functions.push_back({name, share, cost});
  }
  std::sort(result.functions.begin(), result.functions.end(), [](const FunctionCost& a, const FunctionCost& b) {
    return a.cost != b.cost ? a.cost > b.cost : a.function < b.function;
  });
  if (result.functions.empty()) result.note = "not profiled: callgrind recorded no functions";
  return result;
}

std::vector<FunctionCost> Profile(const Command& command) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  return ProfileCommand(command, *runner).functions;
}

}  // namespace pe::measure
