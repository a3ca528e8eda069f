// The dependency-edges file: {"//a:b": ["//a:c", "//d:e"], ...}, each target's direct
// dependencies that are themselves targets. generate-hashes --depEdgesFile writes it;
// get-impacted-targets -d reads it to compute distances.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "target_graph.h"

namespace pe::refdiff {

using DepEdgeMap = std::map<std::string, std::vector<std::string>, std::less<>>;

// Keys sorted; external targets dropped when `exclude_external_targets` (as in the hashes file).
std::string FormatDepEdgesJson(const TargetGraph& graph, bool exclude_external_targets);

DepEdgeMap ParseDepEdgesJson(std::string_view text, const std::string& source);

}  // namespace pe::refdiff
