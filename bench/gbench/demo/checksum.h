// demo: a small C++ library of "ours" whose google/benchmark suite bench/gbench/run.py gates
// from git with perfengine-gbench-worker (docs/workers.md, "google/benchmark suites").
#pragma once

#include <cstddef>
#include <cstdint>

namespace demo {

// A checksum of `n` bytes: kRounds passes of a multiply-xorshift mix over the data.
std::uint64_t Checksum(const std::uint8_t* data, std::size_t n);

}  // namespace demo
