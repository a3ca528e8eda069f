// "Did you mean" suggestions by edit distance, as ninja does for unknown targets. The one copy:
// spec keys, generator names and parameters, workloads, commands and figures all suggest
// through it, so a typo is forgiven (or not) the same way everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pe::base {

// Edit distance with insertions, deletions, substitutions and swaps of neighbours each costing 1
// (optimal string alignment: "wrok" is one typo from "work", not two).
int EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `name`, if it is near enough to be a plausible typo (at most one edit
// per three characters, at least one; never a candidate that replaces every character); else "".
// Ties go to the first candidate.
std::string NearestName(std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" when nothing is near.
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace pe::base
