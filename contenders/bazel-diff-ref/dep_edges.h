// The dependency-edges file: {"//a:b": ["//a:c", "//d:e"], ...}. generate-hashes --depEdgesFile
// writes it; get-impacted-targets -d reads it to compute distances. As upstream writes it: a
// rule lists the inputs whose transitive hash it takes in (rules and generated files, including
// //external:* repositories), a generated file its generating rule, and source files, whose
// hash depends on no target, are left out.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hash_json.h"
#include "target_graph.h"

namespace pe::refdiff {

using DepEdgeMap = std::map<std::string, std::vector<std::string>, std::less<>>;

// Keys sorted; the targets the hashes file leaves out (external, other types) are left out too.
std::string FormatDepEdgesJson(const TargetGraph& graph, const HashJsonOptions& options);

// The same edges in memory, as ParseDepEdgesJson would read FormatDepEdgesJson's text back
// (serve --trackDeps keeps them per commit).
DepEdgeMap DepEdgesOf(const TargetGraph& graph, const HashJsonOptions& options);

DepEdgeMap ParseDepEdgesJson(std::string_view text, const std::string& source);

}  // namespace pe::refdiff
