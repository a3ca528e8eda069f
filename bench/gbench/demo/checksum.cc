#include "checksum.h"

namespace demo {
namespace {

// Passes over the data. bench/gbench/run.py plants a regression by making this 21 (5% more work).
constexpr int kRounds = 20;

}  // namespace

std::uint64_t Checksum(const std::uint8_t* data, std::size_t n) {
  std::uint64_t hash = 0x9e3779b97f4a7c15ULL;
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t i = 0; i < n; ++i) {
      hash = (hash ^ data[i]) * 0x100000001b3ULL;
      hash ^= hash >> 29;
    }
  }
  return hash;
}

}  // namespace demo
