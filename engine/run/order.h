// Who goes first in each round. Alternating (or shuffling) the order spreads drift and
// warm-cache advantages evenly over the contenders instead of handing them to one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pe::run {

// Indices 0..n-1 in the order they run in `round`. "alternate" rotates by one each round
// (two contenders swap every round); "random" is a shuffle seeded by (seed, round).
std::vector<size_t> RoundOrder(const std::string& order, int round, size_t n, std::uint64_t seed);

}  // namespace pe::run
