// "Did you mean" suggestions by edit distance, as ninja does for unknown targets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pe::spec {

// Edit distance with insertions, deletions, substitutions and swaps of neighbours each costing 1
// (optimal string alignment).
int EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `name`, if it is near enough to be a plausible typo; else "".
std::string NearestName(std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" when nothing is near.
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace pe::spec
