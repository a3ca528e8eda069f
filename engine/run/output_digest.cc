#include "engine/run/output_digest.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "engine/run/byte_difference.h"
#include "engine/run/normalise.h"
#include "engine/runner/read_file.h"

namespace pe::run {

using runner::ReadWholeFile;
namespace {

namespace fs = std::filesystem;

// Two independent 64-bit FNV-1a streams, each finished with MurmurHash3's fmix64: not
// cryptographic (contenders are not adversaries of the hash), but 128 bits make an accidental
// collision between two different outputs negligible.
class Hasher {
 public:
  void Update(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) {
      a_ = (a_ ^ p[i]) * 0x100000001b3ULL;
      b_ = (b_ ^ p[i]) * 0x100000001b3ULL;
      b_ ^= b_ >> 29;
    }
  }
  void Update(std::string_view text) { Update(text.data(), text.size()); }
  void Update(const OutputDigest& d) {
    Update(&d.high, sizeof d.high);
    Update(&d.low, sizeof d.low);
  }
  OutputDigest Final() const { return {Mix(a_), Mix(b_ ^ 0x9e3779b97f4a7c15ULL)}; }

 private:
  static std::uint64_t Mix(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
  }
  std::uint64_t a_ = 0xcbf29ce484222325ULL;
  std::uint64_t b_ = 0x84222325cbf29ce4ULL;
};

OutputDigest HashOf(char tag, std::string_view text) {
  Hasher h;
  h.Update(&tag, 1);
  h.Update(text);
  return h.Final();
}

bool Less(const OutputDigest& x, const OutputDigest& y) { return x.high != y.high ? x.high < y.high : x.low < y.low; }

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File Open(const fs::path& file) {
  File f(std::fopen(file.c_str(), "rb"));
  if (!f) throw std::runtime_error(fmt::format("cannot read output file {}: {}", file.string(), std::strerror(errno)));
  return f;
}

OutputDigest DigestExact(File f) {
  Hasher h;
  std::array<char, 1 << 16> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), f.get())) > 0) h.Update(buffer.data(), n);
  return h.Final();
}

// A multiset of lines: the sum (mod 2^64) of each line's hash is the same in any order.
OutputDigest DigestSortedLines(File f) {
  OutputDigest sum;
  std::uint64_t lines = 0;
  std::string line;
  auto add = [&] {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const OutputDigest d = HashOf('l', line);
    sum.high += d.high;
    sum.low += d.low;
    ++lines;
    line.clear();
  };
  std::array<char, 1 << 16> buffer;
  std::size_t n;
  bool pending = false;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), f.get())) > 0) {
    for (std::size_t i = 0; i < n; ++i) {
      if (buffer[i] == '\n') {
        add();
        pending = false;
      } else {
        line.push_back(buffer[i]);
        pending = true;
      }
    }
  }
  if (pending) add();  // a last line without its newline is still a line
  Hasher h;
  h.Update(sum);
  h.Update(&lines, sizeof lines);
  return h.Final();
}

// SAX events to the digest of the canonical value: an object is the sorted digests of its
// members, an array the sequence of its elements' digests (sorted with sort_lists), a number
// its value written one way.
class CanonicalJson : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit CanonicalJson(bool sort_lists) : sort_lists_(sort_lists) {}

  bool null() override { return Leaf(HashOf('n', "")); }
  bool boolean(bool value) override { return Leaf(HashOf('b', value ? "1" : "0")); }
  bool number_integer(number_integer_t value) override { return Leaf(HashOf('#', std::to_string(value))); }
  bool number_unsigned(number_unsigned_t value) override { return Leaf(HashOf('#', std::to_string(value))); }
  bool number_float(number_float_t value, const string_t& text) override {
    // An integer too large for 64 bits arrives here, as the nearest double: 2^64 + 1 and
    // 2^64 + 2 would be equal. Written as an integer, it is compared by its digits.
    if (IsIntegerLiteral(text)) return Leaf(HashOf('#', text == "-0" ? "0" : text));
    constexpr double kLimit = 9007199254740992.0;  // 2^53, as CanonicalNumbers in normalise.cc
    if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) <= kLimit) {
      return Leaf(HashOf('#', std::to_string(static_cast<std::int64_t>(value))));
    }
    return Leaf(HashOf('#', fmt::format("{}", value)));
  }
  bool string(string_t& value) override { return Leaf(HashOf('s', value)); }
  bool binary(binary_t&) override { return Leaf(HashOf('x', "")); }
  bool start_object(std::size_t) override {
    if (stack_.empty()) top_is_object_ = true;
    stack_.push_back({true, {}, {}, {}});
    return true;
  }
  bool key(string_t& value) override {
    stack_.back().key = HashOf('k', value);
    return true;
  }
  bool end_object() override { return Close('{'); }
  bool start_array(std::size_t) override {
    stack_.push_back({false, {}, {}, {}});
    return true;
  }
  bool end_array() override { return Close('['); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }
  bool top_is_object() const { return top_is_object_; }
  OutputDigest digest() const { return result_; }

 private:
  struct Frame {
    bool object;
    OutputDigest key;
    std::vector<OutputDigest> items;  // members, or elements when they are sorted
    Hasher sequence;                  // elements in order, when they are not
  };

  bool Leaf(const OutputDigest& d) {
    if (stack_.empty()) {
      result_ = d;
      return true;
    }
    Frame& frame = stack_.back();
    if (frame.object) {
      Hasher member;
      member.Update(frame.key);
      member.Update(d);
      frame.items.push_back(member.Final());
    } else if (sort_lists_) {
      frame.items.push_back(d);
    } else {
      frame.sequence.Update(d);
    }
    return true;
  }

  bool Close(char tag) {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Hasher h;
    h.Update(&tag, 1);
    if (frame.object || sort_lists_) {
      std::sort(frame.items.begin(), frame.items.end(), Less);
      for (const OutputDigest& d : frame.items) h.Update(d);
    } else {
      h.Update(frame.sequence.Final());
    }
    return Leaf(h.Final());
  }

  static bool IsIntegerLiteral(std::string_view text) {
    if (!text.empty() && text.front() == '-') text.remove_prefix(1);
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  }

  bool sort_lists_;
  bool top_is_object_ = false;
  std::vector<Frame> stack_;
  OutputDigest result_;
  std::string error_;
};

OutputDigest DigestJson(File f, bool json_map, bool sort_lists) {
  const char* name = json_map ? "json-map" : "json";
  CanonicalJson canonical(sort_lists);
  if (!nlohmann::json::sax_parse(f.get(), &canonical)) {
    throw std::runtime_error(
        fmt::format("output is not valid JSON for the '{}' normaliser: {}", name, canonical.error()));
  }
  if (json_map && !canonical.top_is_object()) {
    throw std::runtime_error("output is not a JSON object, as the 'json-map' normaliser expects");
  }
  return canonical.digest();
}

// The first line at which two outputs differ, reading both as streams.
std::string StreamedLineDifference(std::istream& x, std::istream& y, const std::string& a_name,
                                   const std::string& b_name) {
  std::string lx, ly;
  for (std::uint64_t line = 1;; ++line) {
    const bool has_x = static_cast<bool>(std::getline(x, lx));
    const bool has_y = static_cast<bool>(std::getline(y, ly));
    if (!has_x && !has_y) return "outputs differ only in trailing whitespace or line endings";
    if (has_x && has_y && lx == ly) continue;
    return fmt::format("first difference at line {}:\n  {}: {}\n  {}: {}", line, a_name,
                       has_x ? Shortened(lx) : "<no line>", b_name, has_y ? Shortened(ly) : "<no line>");
  }
}

OutputDigest DigestStream(File f, spec::Normaliser normaliser, bool sort_lists) {
  switch (normaliser) {
    case spec::Normaliser::kExact:
    case spec::Normaliser::kNone:  // never compared; a digest of the bytes is harmless
      return DigestExact(std::move(f));
    case spec::Normaliser::kSortedLines:
      return DigestSortedLines(std::move(f));
    case spec::Normaliser::kJson:
      return DigestJson(std::move(f), false, sort_lists);
    case spec::Normaliser::kJsonMap:
      return DigestJson(std::move(f), true, sort_lists);
  }
  return DigestExact(std::move(f));
}

}  // namespace

OutputDigest DigestOutput(const fs::path& file, spec::Normaliser normaliser, bool sort_lists) {
  return DigestStream(Open(file), normaliser, sort_lists);
}

OutputDigest DigestText(const std::string& text, spec::Normaliser normaliser, bool sort_lists) {
  static char empty = 0;  // fmemopen wants a buffer even for no bytes
  File f(::fmemopen(text.empty() ? &empty : const_cast<char*>(text.data()), text.size(), "rb"));
  if (!f)
    throw std::runtime_error(fmt::format("cannot read an answer of {} bytes: {}", text.size(), std::strerror(errno)));
  return DigestStream(std::move(f), normaliser, sort_lists);
}

StreamingDigest::StreamingDigest(spec::Normaliser normaliser, bool sort_lists, std::uintmax_t keep_limit)
    : keep_limit_(keep_limit) {
  kept_.bytes.emplace();
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error(fmt::format("cannot digest an answer: socketpair: {}", std::strerror(errno)));
  }
  feed_ = fds[1];
  File source(::fdopen(fds[0], "rb"));
  if (!source) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("cannot digest an answer: fdopen: {}", std::strerror(error)));
  }
  reader_ = std::thread([this, normaliser, sort_lists, source = std::move(source)]() mutable {
    try {
      // Closes the reading end when done, so a writer the parser gave up on is told (EPIPE).
      digest_ = DigestStream(std::move(source), normaliser, sort_lists);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  });
}

StreamingDigest::~StreamingDigest() {
  if (feed_ >= 0) ::close(feed_);
  if (reader_.joinable()) reader_.join();
}

void StreamingDigest::Write(const char* data, std::size_t size) {
  if (finished_) return;
  kept_.size += size;
  if (kept_.bytes) {
    if (kept_.bytes->size() + size <= keep_limit_) {
      kept_.bytes->append(data, size);
    } else {
      kept_.bytes.reset();  // too large to show: keep none of it
    }
  }
  while (size > 0 && !reader_gone_) {
    const ssize_t n = ::send(feed_, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      reader_gone_ = true;  // the parser stopped at an error; Finish() reports it
      break;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

KeptOutput StreamingDigest::Finish() {
  if (!finished_) {
    finished_ = true;
    ::close(feed_);
    feed_ = -1;
    reader_.join();
    kept_.digest = digest_;
  }
  if (!error_.empty()) throw std::runtime_error(error_);
  return kept_;
}

KeptOutput KeepOutput(const fs::path& file, spec::Normaliser normaliser, bool sort_lists, std::uintmax_t keep_limit) {
  KeptOutput kept;
  kept.digest = DigestOutput(file, normaliser, sort_lists);
  std::error_code ec;
  kept.size = fs::file_size(file, ec);
  if (!ec && kept.size <= keep_limit) kept.bytes = ReadWholeFile(file);
  return kept;
}

std::string DescribeDifference(const KeptOutput& baseline, const fs::path& other, spec::Normaliser normaliser,
                               bool sort_lists, const std::string& baseline_name, const std::string& other_name,
                               std::uintmax_t load_limit) {
  std::error_code ec;
  const std::uintmax_t other_size = fs::file_size(other, ec);
  const auto too_large = [&] {
    return fmt::format("normalised outputs differ ({}: {} bytes, {}: {} bytes; too large to show where)", baseline_name,
                       baseline.size, other_name, other_size);
  };
  if (!baseline.bytes) return too_large();
  std::istringstream kept(*baseline.bytes);
  std::ifstream file(other, std::ios::binary);
  // A binary output is shown as an offset and hex, never as raw bytes on a terminal.
  constexpr std::size_t kHead = 64 << 10;
  if (normaliser == spec::Normaliser::kExact &&
      (LooksBinary(std::string_view(*baseline.bytes).substr(0, kHead)) || LooksBinary(FileHead(other, kHead)))) {
    return ByteDifference(kept, baseline.size, file, other_size, baseline_name, other_name);
  }
  if (!ec && other_size <= load_limit) {
    const std::string a = Normalise(*baseline.bytes, normaliser, sort_lists);
    const std::string b = Normalise(ReadWholeFile(other), normaliser, sort_lists);
    if (auto diff = FirstDifference(a, b, normaliser, baseline_name, other_name)) return *diff;
    return "normalised outputs differ";
  }
  if (normaliser == spec::Normaliser::kExact) return StreamedLineDifference(kept, file, baseline_name, other_name);
  return too_large();
}

}  // namespace pe::run
