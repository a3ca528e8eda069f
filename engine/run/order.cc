#include "engine/run/order.h"

#include <numeric>
#include <utility>

namespace pe::run {

namespace {

// splitmix64 (Steele, Lea & Flood 2014): a fixed, portable generator, so the same seed
// gives the same order on every platform (std distributions are implementation-defined).
std::uint64_t SplitMix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<size_t> RoundOrder(const std::string& order, int round, size_t n, std::uint64_t seed) {
  std::vector<size_t> indices(n);
  std::iota(indices.begin(), indices.end(), 0);
  if (n < 2) return indices;
  if (order == "random") {
    std::uint64_t state = seed ^ (0xa0761d6478bd642fULL * static_cast<std::uint64_t>(round + 1));
    for (size_t i = n - 1; i > 0; --i) {
      const size_t j = static_cast<size_t>(SplitMix64(state) % (i + 1));  // bias < 2^-60, immaterial
      std::swap(indices[i], indices[j]);
    }
    return indices;
  }
  for (size_t i = 0; i < n; ++i) indices[i] = (i + static_cast<size_t>(round)) % n;
  return indices;
}

}  // namespace pe::run
