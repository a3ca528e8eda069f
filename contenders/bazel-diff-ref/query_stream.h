// Decoding `bazel query --output streamed_proto`: a sequence of blaze_query.Target messages, each
// preceded by its length as a base-128 varint.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "target.h"

namespace pe::refdiff {

struct Frame {
  std::size_t offset;  // of the message bytes, after the length prefix
  std::size_t size;
};

// Finds the message boundaries. Throws RefDiffError "query output is truncated at byte N" when a
// length prefix or a message runs past the end.
std::vector<Frame> SplitFrames(std::string_view stream);

// Decodes every frame into a Target, in batches over `threads` threads, keeping stream order.
// Rules, source files and generated files are kept; package and environment groups are skipped
// (nothing depends on their hashes). Throws RefDiffError naming the byte offset of the first
// message that does not decode.
std::vector<Target> DecodeTargets(std::string_view stream, int threads);

// The .bzl or .scl file an instantiation-stack frame names as upstream 37 keeps it
// (RuleHasher.kt:40-48), or "" for a frame upstream does not hash.
std::string_view BzlFileOfFrame(std::string_view frame);

}  // namespace pe::refdiff
