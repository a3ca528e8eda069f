// get-impacted-targets: which targets of FINAL changed since START, and how far each is from a
// target that changed itself, by upstream bazel-diff's rules (CalculateImpactedTargetsInteractor).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dep_edges.h"
#include "hash_json.h"

namespace pe::refdiff {

struct ImpactedOptions {
  // -tt/--targetType: keep only these types ("Rule", "SourceFile", "GeneratedFile"); needs
  // hashes written with --includeTargetType.
  std::optional<std::set<std::string, std::less<>>> target_types;
  bool exclude_external_targets = false;  // drop //external:* labels from the answer
};

struct ImpactedTarget {
  std::string label;
  int target_distance = 0;
  int package_distance = 0;
};

// Each function takes the entries either reader gives (HashEntries from ParseHashFile,
// HashEntryViews from ParseFlatHashFile) and answers the same for the same entries.
//
// Labels of `final_hashes` whose "[Type#]hash~direct" differs from `start_hashes` or which
// `start_hashes` lacks, in upstream's order: SourceFile, GeneratedFile, Rule, other types, then
// untyped, each by label. Throws RefDiffError when a type filter meets an untyped hash.
std::vector<std::string> ImpactedLabels(const HashEntries& start_hashes, const HashEntries& final_hashes,
                                        const ImpactedOptions& options = {});
std::vector<std::string> ImpactedLabels(const HashEntryViews& start_hashes, const HashEntryViews& final_hashes,
                                        const ImpactedOptions& options = {});

// The same targets, each with
//   targetDistance  0 when its direct hash (after '~') changed or it is new, else 1 + the least
//                   targetDistance among its impacted dependencies in `edges`;
//   packageDistance 0 for those same targets, else the least over its impacted dependencies of
//                   theirs plus 1 when the dependency's package differs (minimised on its own,
//                   not along the shortest target path, as upstream does).
// A target impacted only indirectly with no entry in `edges`, or none of whose dependencies are
// impacted, gets 0 and 0 and a line in *warnings (upstream issue #268). Throws RefDiffError when
// impacted targets depend on each other in a cycle that no changed target feeds.
std::vector<ImpactedTarget> ImpactedWithDistances(const HashEntries& start_hashes, const HashEntries& final_hashes,
                                                  const DepEdgeMap& edges, const ImpactedOptions& options = {},
                                                  std::vector<std::string>* warnings = nullptr);
std::vector<ImpactedTarget> ImpactedWithDistances(const HashEntryViews& start_hashes,
                                                  const HashEntryViews& final_hashes, const DepEdgeMap& edges,
                                                  const ImpactedOptions& options = {},
                                                  std::vector<std::string>* warnings = nullptr);

// What upstream counts as a label's package when it measures packageDistance: everything before
// the first ':' ("//pkg/sub:name" -> "//pkg/sub", "@repo//pkg:x" -> "@repo//pkg").
std::string_view PackageOf(std::string_view label);

std::string FormatImpactedLines(const std::vector<std::string>& labels);
std::string FormatImpactedJson(const std::vector<ImpactedTarget>& targets);

}  // namespace pe::refdiff
