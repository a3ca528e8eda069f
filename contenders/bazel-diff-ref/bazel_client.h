// Asking bazel for the workspace's targets the way bazel-diff does: `info output_base`,
// `version`, `mod graph` (does the workspace use bzlmod?), on bzlmod with Bazel >= 8.6 `mod
// dump_repo_mapping ""`, `mod show_repo @@... --output=streamed_proto` and `mod graph
// --output=json` (bzlmod_repos.h), then one `query` for every target, with --output
// streamed_proto and the expression in a --query_file; on bzlmod also `mod graph
// --output=json`, which the hashes file carries as metadata.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pe::refdiff {

struct BazelOptions {
  std::filesystem::path bazel;
  std::filesystem::path workspace;
  std::vector<std::string> startup_options;  // go before the command, as --bazelStartupOptions says
  bool exclude_external_targets = false;
};

// "Build label: 7.4.1" -> {7, 4, 1}, always three numbers, read as upstream reads them
// (BazelQueryService.kt:46-81): "8.6.0rc1" and "9.0.0-pre.1" are 8.6.0 and 9.0.0, and without a
// "Build label: " line a "bazel 7.4.1" line is taken. Throws RefDiffError for a label it cannot
// read, as upstream fails on it: an empty one (a development build), "7.4", "7.x.1".
std::vector<int> ParseBazelVersion(const std::string& version_output);

// The expression bazel-diff queries: every target of the main repository, plus //external's
// when `with_external` (external targets wanted, and //external not yet shown unavailable).
std::string QueryExpression(bool with_external);

// Whether a failed query's stderr says //external does not exist (WORKSPACE off, bzlmod only).
bool SaysExternalUnavailable(const std::string& bazel_stderr);

// Printed once per process when the query is retried without //external.
inline constexpr const char* kExternalUnavailableWarning =
    "bazel-diff-ref: warning: //external is not available in this workspace (WORKSPACE off, "
    "bzlmod only); dropping //external:all-targets from the query and continuing "
    "(pass --excludeExternalTargets to skip it up front)\n";

// Whether `bazel query` has --output_file: upstream passes it from Bazel 8.2.0 on (7.x rejects
// it as an unrecognized option) and prints the result to stdout before that.
bool HasOutputFile(const std::vector<int>& version);

// `bazel [startup options] info output_base`, which must print exactly one line, as upstream runs
// it before anything else and reads its one line (Modules.kt:66-82; the exit status is not looked
// at). Throws RefDiffError for no line or several (naming the exit status when it failed).
void AskOutputBase(const BazelOptions& options);

// `bazel [startup options] mod graph` exits 0: the workspace is on bzlmod.
bool IsBzlmod(const BazelOptions& options);

// A bare program name ("bazel") looked up on PATH, a relative path made absolute, so the program
// still runs once the working directory is the workspace. Throws RefDiffError when there is none.
std::filesystem::path ResolveProgram(const std::filesystem::path& program);

struct QueryResult {
  std::string stream;                            // the raw streamed_proto bytes
  std::optional<std::string> module_graph_json;  // set on bzlmod
  // On bzlmod with Bazel >= 8.6: the synthetic //external:<apparent> rules of the repositories
  // `mod show_repo` defines, encoded like `stream` (bzlmod_repos.h).
  std::string synthetic_stream;
};

// Runs the commands in the workspace. Throws RefDiffError naming the command that failed and
// the last line it printed to stderr.
QueryResult QueryAllTargets(const BazelOptions& options);

}  // namespace pe::refdiff
