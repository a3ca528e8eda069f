// The bzlmod shape of a Bazel fixture (parameter stream = "bzlmod"): what Bazel 8.6 with
// WORKSPACE off (its default) answers for the same graph, where that differs from the Bazel 4.2.3
// WORKSPACE recording (docs/generators.md says byte by byte which is which).
//
//   query      no //external package: no //external: target at all (a query naming it fails,
//              generators/shim), and every label of another repository in Bazel 8's display form
//              (DisplayLabel); the main repository's targets are the recording's bytes
//   MODULE.bazel  the graph's repositories declared with use_repo_rule(http_archive), so Bazel 8
//              names them +_repo_rules+<name> and the root module sees them as <name>
//   mod dump_repo_mapping ""   the root module's mapping (RootRepoMapping), one JSON line
//   mod show_repo @@<canonical>... --output=streamed_proto   one blaze_query.Repository per
//              repository (proto/repository.proto), written to repos.pb (WriteRepositories)
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "generators/bazel_graph.h"
#include "generators/params.h"

namespace pe::gen {

enum class StreamShape { kWorkspace, kBzlmod };

// The "stream" parameter: "workspace" (default: Bazel 4.2.3's recording) or "bzlmod".
StreamShape ReadStreamShape(ParamReader& reader);

// The Bazel the bzlmod shape stands for: the first with `mod show_repo --output=streamed_proto`.
inline constexpr std::string_view kBzlmodBazelVersion = "8.6.0";

// apparent -> canonical, in the order `bazel mod dump_repo_mapping` prints them (by apparent name).
using RepoMapping = std::vector<std::pair<std::string, std::string>>;

// What Bazel 8 names a repository the root MODULE.bazel declares with use_repo_rule:
// "zlib" -> "+_repo_rules+zlib" (the root module's canonical name is empty, the innate
// extension's is _repo_rules, '+' joins them).
std::string CanonicalRepoName(std::string_view apparent);

// The root module's repository mapping: itself ("" and kWorkspaceName -> ""), bazel_tools
// (visible from every module), and each of graph.externals under its own name.
RepoMapping RootRepoMapping(const BazelGraph& graph);

// `bazel mod dump_repo_mapping ""`'s line for a mapping: one JSON object, no spaces.
std::string RepoMappingJson(const RepoMapping& mapping);

// A label of repository `canonical` as Bazel 8 prints it in query output without
// --consistent_labels (LabelPrinter.displayForm over the main repository's mapping):
// "@<apparent>//pkg:name" when the root module sees the repository under an apparent name,
// else "@@<canonical>//pkg:name". `rest` is the label after the repository ("//pkg:name").
std::string DisplayLabel(std::string_view canonical, std::string_view rest, const RepoMapping& root);

// The same for a label recorded from Bazel 4.2.3 ("@bazel_tools//tools/cpp:toolchain"), whose
// repository name is its canonical name under bzlmod too; a main-repository label is unchanged.
std::string DisplayLabel(std::string_view recorded_label, const RepoMapping& root);

// repos.pb: one varint-delimited blaze_query.Repository per graph.externals entry (http_archive
// with the attributes the WORKSPACE file gives it), as `mod show_repo --output=streamed_proto`.
void WriteRepositories(const BazelGraph& graph, const std::filesystem::path& path);

// workspace/MODULE.bazel: the module and its use_repo_rule(http_archive) repositories.
std::string RenderModuleFile(const BazelGraph& graph);

}  // namespace pe::gen
