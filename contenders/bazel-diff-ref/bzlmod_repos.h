// Bzlmod repositories as upstream bazel-diff 37.0.0 hashes them on Bazel 8.6.0 or later (9.0.1
// or later on 9.x): `mod dump_repo_mapping ""` names the root module's repositories, `mod
// show_repo @@<canonical>... --output=streamed_proto` defines them (blaze_query.Repository,
// proto/repository.proto), and each becomes a synthetic rule //external:<apparent name> that
// the main repository's rules reach through the //external:<repo> input every "@repo//..."
// label adds (query_stream.cc). Sources, in Tinder/bazel-diff 37.0.0 (commit 7e5e640):
// cli/src/main/kotlin/com/bazel_diff/bazel/BazelQueryService.kt:287-607 and BazelClient.kt:55-116,
// ModuleGraphParser.kt:87-162.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bazel_client.h"
#include "target.h"

namespace pe::refdiff {

// apparent -> canonical, in the order Bazel printed them.
using RepoMapping = std::vector<std::pair<std::string, std::string>>;

// Whether this Bazel has `mod show_repo --output=streamed_proto`: 8.6.0 on, but not 9.0.0
// (BazelQueryService.kt:95-102).
bool CanUseShowRepo(const std::vector<int>& version);

// `mod dump_repo_mapping ""`'s output (JSON objects, one a line) as upstream keeps it
// (BazelQueryService.kt:581-601): without an empty apparent or canonical name, bazel_tools,
// _builtins, local_config_* and rules_java_builtin repositories. A later line's entry replaces
// an earlier one of the same apparent name. Empty when a line is not a JSON object of strings.
RepoMapping ParseRepoMapping(const std::string& output);

// The arguments of `mod show_repo`: "@@<canonical>" for each distinct canonical name carrying a
// module separator ('+', or '~' before Bazel 7.1), in first-seen order (BazelQueryService.kt:
// 312-325); WORKSPACE repositories in the mapping have none and //external covers them.
std::vector<std::string> ShowRepoArguments(const RepoMapping& mapping);

// `mod graph --output=json` -> each module name's direct bazel_dep names, with back edges
// dropped by a depth-first walk in name order so the result has no cycle
// (ModuleGraphParser.kt:87-162). Empty when the JSON does not parse (a non-JSON prefix before
// the first '{' is skipped, as upstream skips it).
std::map<std::string, std::vector<std::string>> ModuleDepEdges(const std::string& json);

// The synthetic //external:<apparent> rules for a `mod show_repo --output=streamed_proto` answer
// (BazelQueryService.kt:363-494), encoded as a `query --output streamed_proto` stream: rule class
// repo_rule_name (or "bzlmod_repo"), the repository's attributes plus, for a
// local_repository whose `path` is a directory, `_bazel_diff_content_hash` (the sha256 of its
// files, BazelQueryService.kt:507-544), and an //external:<dep> input for each bzlmod dependency
// of a module's repository. Throws RefDiffError when the answer does not decode.
std::string SyntheticRepoTargets(std::string_view show_repo_stream, const RepoMapping& mapping,
                                 const std::optional<std::string>& module_graph_json,
                                 const std::filesystem::path& workspace);

// The hex sha256 upstream adds for a local_repository at `directory`: every regular file but
// MODULE.bazel.lock, by relative path, each as path, 0x00, contents, 0x00. nullopt when it is not
// a readable directory.
std::optional<std::string> LocalRepoContentHash(const std::filesystem::path& directory);

// Appends the decoded targets of `synthetic_stream` whose labels `targets` does not already
// have: upstream keeps the query's target when both name one (BazelClient.kt:116).
void AppendSyntheticTargets(std::vector<Target>& targets, std::string_view synthetic_stream, int threads);

// The query's targets and the synthetic repository targets after them, as AppendSyntheticTargets
// keeps them; the streams are released once decoded.
std::vector<Target> DecodeQueryResult(QueryResult& query, int threads);

}  // namespace pe::refdiff
