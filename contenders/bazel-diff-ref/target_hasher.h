// Direct and transitive hashes of every target in a query result.
//
// The rules are upstream bazel-diff's (RuleHasher, SourceFileHasher, TargetHasher); the bytes
// are ours, so the hashes differ from upstream's while the impacted sets agree.
//   SourceFile     direct     = SHA-256 of (the file's bytes, 0x01, its owner-execute bit; or
//                               0x00 when missing, nothing for a directory; then its subinclude seed, if
//                               any, and its label)
//                  transitive = direct ("X~X")
//   Rule           direct     = SHA-256 of (rule body digest, for each .bzl/.scl file of its
//                               instantiation stack that is a regular file under the workspace
//                               (absolute frames resolved under it too, as upstream does): path
//                               and content digest, then for each
//                               input in label order: the label, and the digest of the input if
//                               it is a source file)
//                  transitive = SHA-256 of (direct, then for each input that is a rule or a
//                               generated file: its label and its transitive hash)
//   GeneratedFile  both       = those of its generating rule
#pragma once

#include <filesystem>
#include <vector>

#include "target.h"
#include "target_graph.h"

namespace pe::refdiff {

struct HashOptions {
  std::filesystem::path workspace;  // source labels and relative .bzl paths resolve under it
  int threads = 1;
};

// Returns one HashedTarget per graph target, in the graph's (label) order. Throws RefDiffError
// for a dependency cycle, naming it. No recursion: transitive hashes are computed level by level
// from the leaves (Kahn's algorithm), so a 200,000-deep chain costs no stack, and a level with
// many targets is hashed in parallel.
std::vector<HashedTarget> HashTargets(const TargetGraph& graph, const HashOptions& options);

// Where a label's file lives: "//pkg/sub:name.ext" -> workspace/pkg/sub/name.ext. Returns an
// empty path for labels with no file in the workspace (//external:*, @repo//...).
std::filesystem::path SourcePath(const std::filesystem::path& workspace, std::string_view label);

}  // namespace pe::refdiff
