#include "bazel_client.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

#include "bzlmod_repos.h"
#include "error.h"
#include "git_repo.h"
#include "subprocess.h"
#include "temp_file.h"

namespace pe::refdiff {
namespace {

class Bazel {
 public:
  explicit Bazel(const BazelOptions& options) : options_(options) {}

  // `startup`: with the startup options. Upstream runs `version` without them
  // (BazelQueryService.kt:47-56) and every other command with them.
  ProcessResult Run(const std::vector<std::string>& command, const std::filesystem::path& stdout_path = {},
                    bool startup = true) const {
    ProcessRequest request;
    request.argv.push_back(options_.bazel.string());
    if (startup) {
      request.argv.insert(request.argv.end(), options_.startup_options.begin(), options_.startup_options.end());
    }
    request.argv.insert(request.argv.end(), command.begin(), command.end());
    request.cwd = options_.workspace;
    request.stdout_path = stdout_path;
    return RunProcess(request);
  }

  // Runs a command that must succeed.
  ProcessResult Check(const std::vector<std::string>& command, const std::string& name,
                      const std::filesystem::path& stdout_path = {}, bool startup = true) const {
    return Succeeded(Run(command, stdout_path, startup), name);
  }

  // `result`, if it exited 0; else the error naming the command and bazel's last stderr line.
  static ProcessResult Succeeded(ProcessResult result, const std::string& name) {
    if (result.exit_code != 0) {
      std::string detail = LastLine(result.stderr_text);
      throw RefDiffError("'bazel " + name + "' failed with exit code " + std::to_string(result.exit_code) +
                         (detail.empty() ? "" : ": " + detail));
    }
    return result;
  }

 private:
  const BazelOptions& options_;
};

std::string Trim(const std::string& text) {
  std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  std::size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// A command's stdout as upstream reads it, line by line with Java's BufferedReader.readLine: a
// line ends at "\n", "\r" or "\r\n", and a final terminator starts no empty line.
std::vector<std::string> OutputLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find_first_of("\r\n", begin);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(begin, end - begin));
    begin = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  return lines;
}

}  // namespace

std::vector<int> ParseBazelVersion(const std::string& version_output) {
  // BazelQueryService.determineBazelVersion (BazelQueryService.kt:46-81, Tinder/bazel-diff
  // 37.0.0): the first line starting "Build label: ", else the first starting "bazel " (as
  // `bazel --version` prints it), trimmed.
  const std::vector<std::string> lines = OutputLines(version_output);
  std::optional<std::string> label;
  for (const std::string_view prefix : {"Build label: ", "bazel "}) {
    auto line = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.starts_with(prefix); });
    if (line == lines.end()) continue;
    label = Trim(line->substr(prefix.size()));
    break;
  }
  if (!label) throw RefDiffError("'bazel version' printed neither 'Build label: X.Y.Z' nor 'bazel X.Y.Z'");
  if (label->empty()) {
    throw RefDiffError("'bazel version' printed an empty build label (a development build); bazel-diff needs X.Y.Z");
  }
  // Cut at the first '-' (9.0.0-pre.1), split at '.', every part read from its leading digits
  // (8.6.0rc1); a part without one (Kotlin's toInt of "" throws) or fewer than three parts fail.
  const std::string release = label->substr(0, label->find('-'));
  std::vector<int> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = std::min(release.find('.', begin), release.size());
    std::size_t digits = begin;
    while (digits < end && release[digits] >= '0' && release[digits] <= '9') ++digits;
    int value = 0;
    const auto [stop, error] = std::from_chars(release.data() + begin, release.data() + digits, value);
    if (digits == begin || error != std::errc() || stop != release.data() + digits) {
      throw RefDiffError("'bazel version' printed the build label '" + *label + "', not X.Y.Z");
    }
    parts.push_back(value);
    if (end == release.size()) break;
    begin = end + 1;
  }
  if (parts.size() < 3) throw RefDiffError("'bazel version' printed the build label '" + *label + "', not X.Y.Z");
  parts.resize(3);
  return parts;
}

std::string QueryExpression(bool with_external) {
  std::string expression = "'//...:all-targets'";
  if (with_external) expression = "'//external:all-targets' + " + expression;
  return expression;
}

bool SaysExternalUnavailable(const std::string& bazel_stderr) {
  // The stable fragments upstream matches (BazelQueryService.kt:283-285): Bazel's
  // NO_SUCH_PACKAGE error for //external once WORKSPACE is off.
  return bazel_stderr.find("no such package 'external'") != std::string::npos ||
         bazel_stderr.find("//external package is not available") != std::string::npos;
}

bool HasOutputFile(const std::vector<int>& version) {
  static const std::vector<int> kFirst = {8, 2, 0};
  return !std::lexicographical_compare(version.begin(), version.end(), kFirst.begin(), kFirst.end());
}

void AskOutputBase(const BazelOptions& options) {
  // Upstream takes `result.output.single()` (Modules.kt:66-82) and never looks at the exit status.
  ProcessResult result = Bazel(options).Run({"info", "output_base"});
  const std::size_t lines = OutputLines(result.stdout_text).size();
  if (lines == 1) return;
  Bazel::Succeeded(std::move(result), "info output_base");  // a failure is named as such first
  throw RefDiffError("'bazel info output_base' printed " + (lines == 0 ? "no line" : std::to_string(lines) + " lines") +
                     ", not the one line of an output base");
}

bool IsBzlmod(const BazelOptions& options) { return Bazel(options).Run({"mod", "graph"}).exit_code == 0; }

std::filesystem::path ResolveProgram(const std::filesystem::path& program) {
  if (!program.has_parent_path()) {
    std::filesystem::path found = FindOnPath(program.string());
    if (found.empty()) throw RefDiffError("there is no " + program.string() + " on PATH (pass -b BAZEL)");
    return found;
  }
  return program.is_relative() ? std::filesystem::absolute(program) : program;
}

namespace {

// BazelQueryService.queryBzlmodRepos (BazelQueryService.kt:300-447): every failure on the way
// leaves no synthetic target, as upstream logs a warning and goes on.
std::string QueryBzlmodRepos(const Bazel& bazel, const BazelOptions& options) {
  ProcessResult dump = bazel.Run({"mod", "dump_repo_mapping", ""});  // "": the root module
  if (dump.exit_code != 0) return {};
  RepoMapping mapping = ParseRepoMapping(dump.stdout_text);
  std::vector<std::string> command = {"mod", "show_repo"};
  for (std::string& argument : ShowRepoArguments(mapping)) command.push_back(std::move(argument));
  if (command.size() == 2) return {};
  command.push_back("--output=streamed_proto");
  TempFile repos("repos");
  if (bazel.Run(command, repos.path()).exit_code != 0) return {};
  std::string stream = ReadFile(repos.path());
  // The module graph's edges link a module's repository to its bazel_deps'.
  ProcessResult graph = bazel.Run({"mod", "graph", "--output=json"});
  std::optional<std::string> graph_json;
  if (graph.exit_code == 0) graph_json = Trim(graph.stdout_text);
  return SyntheticRepoTargets(stream, mapping, graph_json, options.workspace);
}

// Latched once a query shows //external is unavailable, as upstream's BazelClient latches
// externalPackageUnavailable: a `serve` process then skips it for every later revision.
std::atomic<bool> external_unavailable{false};

}  // namespace

QueryResult QueryAllTargets(const BazelOptions& options) {
  std::error_code error;
  if (!std::filesystem::is_directory(options.workspace, error)) {
    throw RefDiffError("workspace " + options.workspace.string() + " is not a directory");
  }
  Bazel bazel(options);
  // bazel-diff reads output_base to find external repositories; we only require its one line.
  AskOutputBase(options);
  std::vector<int> version = ParseBazelVersion(bazel.Check({"version"}, "version", {}, false).stdout_text);
  bool bzlmod = IsBzlmod(options);
  // Upstream defines bzlmod repositories before its query (BazelClient.kt:55-65).
  std::string synthetic = bzlmod && CanUseShowRepo(version) ? QueryBzlmodRepos(bazel, options) : std::string();

  TempFile query_file("query");
  TempFile output_file("targets");
  std::vector<std::string> query = {"query",
                                    "--output",
                                    "streamed_proto",
                                    "--order_output=no",
                                    "--proto:instantiation_stack",
                                    "--query_file",
                                    query_file.path().string()};
  std::filesystem::path stdout_path = output_file.path();
  if (HasOutputFile(version)) {
    query.push_back("--output_file");  // two words, as upstream passes it
    query.push_back(output_file.path().string());
    stdout_path.clear();
  }
  // Upstream 37 asks for //external on bzlmod too (a workspace can run both) and drops it only
  // when Bazel says the package is gone, retrying once without it (BazelClient.kt:46-121).
  bool with_external = !options.exclude_external_targets && !external_unavailable.load();
  WriteFile(query_file.path(), QueryExpression(with_external));
  ProcessResult first = bazel.Run(query, stdout_path);
  if (first.exit_code != 0 && with_external && SaysExternalUnavailable(first.stderr_text)) {
    if (!external_unavailable.exchange(true)) {
      std::fputs(kExternalUnavailableWarning, stderr);
    }
    WriteFile(query_file.path(), QueryExpression(false));
    bazel.Check(query, "query", stdout_path);
  } else {
    Bazel::Succeeded(std::move(first), "query");
  }
  QueryResult result;
  result.stream = ReadFile(output_file.path());
  result.synthetic_stream = std::move(synthetic);
  if (bzlmod) {
    // Upstream asks after hashing and trims the answer; a failure leaves the legacy shape.
    ProcessResult graph = bazel.Run({"mod", "graph", "--output=json"});
    if (graph.exit_code == 0) result.module_graph_json = Trim(graph.stdout_text);
  }
  return result;
}

}  // namespace pe::refdiff
