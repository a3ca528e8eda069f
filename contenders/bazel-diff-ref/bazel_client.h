// Asking bazel for the workspace's targets the way bazel-diff does: `info output_base`,
// `version`, `mod graph` (does the workspace use bzlmod?), then one `query` for every target,
// with --output streamed_proto and the expression in a --query_file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pe::refdiff {

struct BazelOptions {
  std::filesystem::path bazel;
  std::filesystem::path workspace;
  std::vector<std::string> startup_options;  // go before the command, as --bazelStartupOptions says
  bool exclude_external_targets = false;
};

// "Build label: 7.4.1" -> {7, 4, 1}; an empty label (a development build) -> {} which counts as
// newer than any release.
std::vector<int> ParseBazelVersion(const std::string& version_output);

// The expression bazel-diff queries: every target of the main repository, plus //external's
// when external targets are wanted and the workspace is not on bzlmod (which has no
// //external package).
std::string QueryExpression(bool bzlmod, bool exclude_external_targets);

// Runs the four commands in the workspace and returns the raw streamed_proto bytes.
// Throws RefDiffError naming the command that failed and the last line it printed to stderr.
std::string QueryAllTargets(const BazelOptions& options);

}  // namespace pe::refdiff
