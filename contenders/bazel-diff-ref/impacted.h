// get-impacted-targets: which targets of FINAL changed since START, and how far each is from a
// target that changed itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dep_edges.h"
#include "hash_json.h"

namespace pe::refdiff {

struct ImpactedTarget {
  std::string key;  // as it appears in FINAL (with its Type# prefix, if any)
  int target_distance = 0;
  int package_distance = 0;
};

// Keys of `final_hashes` whose hash differs from `start_hashes` or which `start_hashes` lacks,
// in bazel-diff's order: SourceFile#, then GeneratedFile#, then Rule# keys, each by label;
// keys without a type prefix sort by label.
std::vector<std::string> ImpactedKeys(const HashEntries& start_hashes, const HashEntries& final_hashes);

// The same targets, each with
//   targetDistance  0 when its direct hash (after '~') changed or it is new, else 1 + the least
//                   targetDistance among its impacted dependencies in `edges`;
//   packageDistance the number of steps along such a shortest path whose two ends lie in
//                   different packages, the least over all shortest paths (so ties between
//                   equally short paths never depend on the order edges are listed in).
// Throws RefDiffError when a hash is not "<transitive>~<direct>" or an impacted target whose
// direct hash did not change has no impacted dependency in `edges` (the files disagree).
std::vector<ImpactedTarget> ImpactedWithDistances(const HashEntries& start_hashes,
                                                  const HashEntries& final_hashes, const DepEdgeMap& edges);

// "//pkg/sub:name" -> "//pkg/sub"; "@repo//pkg:x" -> "@repo//pkg".
std::string_view PackageOf(std::string_view label);
// "Rule#//a:b" -> "//a:b"; a key without a type prefix is its own label.
std::string_view LabelOfKey(std::string_view key);

std::string FormatImpactedLines(const std::vector<std::string>& keys);
std::string FormatImpactedJson(const std::vector<ImpactedTarget>& targets);

}  // namespace pe::refdiff
