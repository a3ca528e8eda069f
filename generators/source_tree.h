// Writes the files a BazelGraph's targets name: WORKSPACE, each package's BUILD and defs.bzl,
// and every rule source with deterministic content of a chosen size, so that source hashing
// reads real bytes. Line numbers in the BUILD files match the query output's locations.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "generators/bazel_graph.h"

namespace pe::gen {

struct SourceTreeOptions {
  std::int64_t source_bytes = 1024;  // size of every rule source file
};

// default_bytes: the graph shape's (ShapeOptions::source_bytes), 1024 for the uniform graph.
SourceTreeOptions ReadSourceTreeOptions(ParamReader& reader, std::int64_t default_bytes = 1024);

// root is created if missing.
void WriteSourceTree(const BazelGraph& graph, const SourceTreeOptions& options, const std::filesystem::path& root);

// The pieces, exposed for tests and for git_workspace's revisions.
std::string RenderWorkspaceFile(const BazelGraph& graph);
std::string RenderBuildFile(const BazelGraph& graph, std::uint32_t package);
// With starlark_rule, defs.bzl also defines my_rule (scripts/record-bazel-4.2.3.py probes these
// exact bytes: a Starlark rule's `$rule_implementation_hash` is a digest of its .bzl file).
std::string RenderDefsFile(bool starlark_rule = false);
// The size of one rule source: source_bytes, or log-normal around it with the graph's
// source_bytes_sigma, fixed per file whatever its version.
std::int64_t SourceBytes(const BazelGraph& graph, const RuleNode& rule, const SourceRef& src, std::int64_t median);
void RenderSource(const BazelGraph& graph, const RuleNode& rule, const SourceRef& src, std::int64_t size,
                  std::string& out);

}  // namespace pe::gen
