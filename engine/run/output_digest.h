// Parity without holding outputs in memory: each contender's output file is read as a stream
// and reduced to a digest of its normalised form, so two outputs have the same digest exactly
// when Normalise() would make them equal (up to a 128-bit hash collision). A 2 GB output costs
// a read buffer, not 2 GB; only json/json-map keep one digest per member of each open object.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "engine/spec/spec.h"

namespace pe::run {

struct OutputDigest {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  bool operator==(const OutputDigest&) const = default;
};

// exact: the bytes. sorted-lines: the multiset of lines (a trailing \r dropped), so order
// does not matter. json/json-map: the canonical value (object members in any order, numbers
// by value so 842.0 equals 842 (integers past 64 bits by their digits), arrays as multisets with sort_lists). Throws
// std::runtime_error with Normalise()'s message when the output is not what the normaliser
// expects, or when the file cannot be read.
OutputDigest DigestOutput(const std::filesystem::path& file, spec::Normaliser normaliser, bool sort_lists);
// The same for an output held in memory (a server's answer).
OutputDigest DigestText(const std::string& text, spec::Normaliser normaliser, bool sort_lists);

// What parity keeps of the baseline's output once its file is removed, so that no other
// contender can read it there: the digest, the size, and the bytes themselves when there are
// at most `keep_limit` of them (to show where another output differs).
struct KeptOutput {
  OutputDigest digest;
  std::uintmax_t size = 0;
  std::optional<std::string> bytes;  // nullopt: larger than the limit
};

inline constexpr std::uintmax_t kKeptOutputLimit = 8u << 20;

// DigestOutput(file), and the file's bytes when it is small enough. Throws as DigestOutput.
KeptOutput KeepOutput(const std::filesystem::path& file, spec::Normaliser normaliser, bool sort_lists,
                      std::uintmax_t keep_limit = kKeptOutputLimit);

// An output digested as it arrives, for one that is never a file (a server's answer, read off
// the network): Finish() gives what KeepOutput() would of the same bytes, and the whole costs a
// socket buffer and at most `keep_limit` kept bytes, however large the output. The normaliser
// reads on a thread of its own from a local socket that Write() feeds (a JSON parser cannot be
// handed pieces), so Write() blocks while the parser is behind.
class StreamingDigest {
 public:
  StreamingDigest(spec::Normaliser normaliser, bool sort_lists, std::uintmax_t keep_limit = kKeptOutputLimit);
  ~StreamingDigest();
  StreamingDigest(const StreamingDigest&) = delete;
  StreamingDigest& operator=(const StreamingDigest&) = delete;

  void Write(const char* data, std::size_t size);
  // Ends the output (once; later calls return the same) and waits for the digest. Throws
  // std::runtime_error with DigestOutput's message when the output is not what the normaliser
  // expects.
  KeptOutput Finish();

 private:
  int feed_ = -1;             // the writing end; -1 once closed
  bool reader_gone_ = false;  // the parser stopped early (a parse error): write no more
  KeptOutput kept_;           // size and bytes as written; the digest once finished
  bool finished_ = false;
  OutputDigest digest_;  // set by reader_
  std::string error_;    // set by reader_
  std::uintmax_t keep_limit_;
  std::thread reader_;
};

// For an output whose digest differs from the kept baseline's: where they differ, as
// FirstDifference() says it when `other` is small enough to load (up to `load_limit` bytes);
// past that, exact outputs are compared line by line as streams, and other normalisers say
// only that the normalised outputs differ and how large they are. A baseline too large to be
// kept is described by its size only.
std::string DescribeDifference(const KeptOutput& baseline, const std::filesystem::path& other,
                               spec::Normaliser normaliser, bool sort_lists, const std::string& baseline_name,
                               const std::string& other_name, std::uintmax_t load_limit = kKeptOutputLimit);

}  // namespace pe::run
