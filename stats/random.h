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

  // Uniform on [0, bound), bound > 0: rejection of the low 2^64 mod bound values makes
  // every residue equally likely.
  std::uint64_t Below(std::uint64_t bound) {
    const std::uint64_t reject_below = (0 - bound) % bound;  // 2^64 mod bound
    std::uint64_t draw = engine_();
    while (draw < reject_below) draw = engine_();
    return draw % bound;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace pe::stats
