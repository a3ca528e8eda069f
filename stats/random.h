// The one source of randomness in stats/: std::mt19937_64 seeded from the run's seed,
// with our own bounded draw. std::uniform_int_distribution is not used because its
// output is implementation-defined (libstdc++ and libc++ map engine output to a range
// differently), and a results file must reproduce bit for bit from its seed anywhere.
#pragma once

#include <cstdint>
#include <random>

namespace pe::stats {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  // Uniform on [0, bound), bound > 0, by multiply-and-shift with rejection (Lemire 2019,
  // "Fast random integer generation in an interval", ACM TOMACS 29:1): the high half of
  // draw * bound is the result, and the rare draws whose low half falls below
  // 2^64 mod bound are redrawn so every value is exactly equally likely. No division in
  // the common case, which matters at 10,000 resamples x 30 rounds.
  std::uint64_t Below(std::uint64_t bound) {
    unsigned __int128 product = static_cast<unsigned __int128>(engine_()) * bound;
    auto low = static_cast<std::uint64_t>(product);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
      while (low < threshold) {
        product = static_cast<unsigned __int128>(engine_()) * bound;
        low = static_cast<std::uint64_t>(product);
      }
    }
    return static_cast<std::uint64_t>(product >> 64);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace pe::stats
