// Parity without holding outputs in memory: each contender's output file is read as a stream
// and reduced to a digest of its normalised form, so two outputs have the same digest exactly
// when Normalise() would make them equal (up to a 128-bit hash collision). A 2 GB output costs
// a read buffer, not 2 GB; only json/json-map keep one digest per member of each open object.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/spec/spec.h"

namespace pe::run {

struct OutputDigest {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  bool operator==(const OutputDigest&) const = default;
};

// exact: the bytes. sorted-lines: the multiset of lines (a trailing \r dropped), so order
// does not matter. json/json-map: the canonical value (object members in any order, numbers
// by value so 842.0 equals 842, arrays as multisets with sort_lists). Throws
// std::runtime_error with Normalise()'s message when the output is not what the normaliser
// expects, or when the file cannot be read.
OutputDigest DigestOutput(const std::filesystem::path& file, spec::Normaliser normaliser, bool sort_lists);

// For two outputs whose digests differ: where they differ, as FirstDifference() says it when
// both files are small enough to load (up to `load_limit` bytes each); past that, exact
// outputs are compared line by line as streams, and other normalisers say only that the
// normalised outputs differ and how large they are.
std::string DescribeDifference(const std::filesystem::path& baseline, const std::filesystem::path& other,
                               spec::Normaliser normaliser, bool sort_lists, const std::string& baseline_name,
                               const std::string& other_name, std::uintmax_t load_limit = 8u << 20);

}  // namespace pe::run
