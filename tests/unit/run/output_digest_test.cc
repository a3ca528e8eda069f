#include "engine/run/output_digest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "engine/run/normalise.h"

namespace pe::run {
namespace {

namespace fs = std::filesystem;
using spec::Normaliser;

class OutputDigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pe-digest-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  bool Same(const std::string& a, const std::string& b, Normaliser n, bool sort_lists = false) {
    return DigestOutput(Write("a", a), n, sort_lists) == DigestOutput(Write("b", b), n, sort_lists);
  }

  fs::path dir_;
};

// The digests agree with Normalise(): equal digests exactly when the normalised texts are.
TEST_F(OutputDigestTest, AgreesWithNormalise) {
  const std::vector<std::tuple<std::string, std::string, Normaliser, bool>> cases = {
      {"a\nb\n", "a\nb\n", Normaliser::kExact, false},
      {"a\nb\n", "a\nb", Normaliser::kExact, false},
      {"b\r\na\n", "a\nb", Normaliser::kSortedLines, false},
      {"a\na\nb\n", "a\nb\nb\n", Normaliser::kSortedLines, false},
      {R"({"b": 1, "a": [1, 2]})", R"({"a":[1,2],"b":1})", Normaliser::kJson, false},
      {R"({"a":[2,1]})", R"({"a":[1,2]})", Normaliser::kJson, false},
      {R"({"a":[2,1]})", R"({"a":[1,2]})", Normaliser::kJson, true},
      {R"({"a":[[2,1],[3]]})", R"({"a":[[3],[1,2]]})", Normaliser::kJson, true},
      {R"({"n": 842.0, "m": [1e2, -0.0]})", R"({"n": 842, "m": [100, 0]})", Normaliser::kJsonMap, false},
      {R"({"n": 842.5})", R"({"n": 842})", Normaliser::kJson, false},
      {R"({"n": "842"})", R"({"n": 842})", Normaliser::kJson, false},
      {R"({"k": {"x": 1, "y": null}})", R"({"k": {"y": null, "x": 1}})", Normaliser::kJsonMap, false},
      {R"({"k": true})", R"({"k": 1})", Normaliser::kJsonMap, false},
      {R"({"a": "x", "b": "y"})", R"({"a": "y", "b": "x"})", Normaliser::kJsonMap, false},
  };
  for (const auto& [a, b, normaliser, sort_lists] : cases) {
    const bool normalised_equal = Normalise(a, normaliser, sort_lists) == Normalise(b, normaliser, sort_lists);
    EXPECT_EQ(Same(a, b, normaliser, sort_lists), normalised_equal) << a << " vs " << b;
  }
}

TEST_F(OutputDigestTest, ErrorsAreNormalisesErrors) {
  try {
    DigestOutput(Write("a", "{"), Normaliser::kJson, false);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("output is not valid JSON for the 'json' normaliser: ", 0), 0u) << e.what();
  }
  try {
    DigestOutput(Write("a", "[1]"), Normaliser::kJsonMap, false);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "output is not a JSON object, as the 'json-map' normaliser expects");
  }
}

TEST_F(OutputDigestTest, DescribesDifferencesLikeFirstDifferenceAndStreamsLargeOnes) {
  const fs::path a = Write("a", "x\ny\nz\n"), b = Write("b", "x\nY\nz\n");
  const KeptOutput kept = KeepOutput(a, Normaliser::kExact, false);
  EXPECT_EQ(DescribeDifference(kept, b, Normaliser::kExact, false, "baseline", "candidate"),
            "first difference at line 2 of 3 vs 3:\n  baseline: y\n  candidate: Y");
  // Past the load limit nothing is loaded whole: exact outputs are compared line by line.
  EXPECT_EQ(DescribeDifference(kept, b, Normaliser::kExact, false, "baseline", "candidate", 2),
            "first difference at line 2:\n  baseline: y\n  candidate: Y");
  EXPECT_EQ(DescribeDifference(KeepOutput(Write("c", "b\na\n"), Normaliser::kSortedLines, false), Write("d", "a\nc\n"),
                               Normaliser::kSortedLines, false, "baseline", "candidate", 2),
            "normalised outputs differ (baseline: 4 bytes, candidate: 4 bytes; too large to show where)");
  // A baseline too large to keep is known by its digest and size only: it is not on disk.
  const KeptOutput digest_only = KeepOutput(a, Normaliser::kExact, false, 2);
  EXPECT_EQ(digest_only.bytes, std::nullopt);
  EXPECT_EQ(digest_only.digest, DigestOutput(a, Normaliser::kExact, false));
  EXPECT_EQ(DescribeDifference(digest_only, b, Normaliser::kExact, false, "baseline", "candidate"),
            "normalised outputs differ (baseline: 6 bytes, candidate: 6 bytes; too large to show where)");
  // Binary outputs are shown in hex, the baseline's from memory.
  const KeptOutput binary = KeepOutput(Write("e", std::string("\x1f\x8b\x08\x00", 4)), Normaliser::kExact, false);
  EXPECT_EQ(DescribeDifference(binary, Write("f", std::string("\x1f\x8b\x08\x01", 4)), Normaliser::kExact, false,
                               "baseline", "candidate"),
            "first difference at byte 3 (0x3); baseline: 4 bytes, candidate: 4 bytes\n"
            "  baseline   00000000: 1f 8b 08 00                                       |....|\n"
            "  candidate  00000000: 1f 8b 08 01                                       |....|");
}

// Integers past 64 bits reach the parser as doubles: 2^64 + 1 and 2^64 + 2 were the same
// number, a false pass (issue 26, minor 7). They compare by their digits.
TEST_F(OutputDigestTest, IntegersPast64BitsCompareExactly) {
  EXPECT_FALSE(Same("[18446744073709551617]", "[18446744073709551618]", Normaliser::kJson));
  EXPECT_FALSE(Same(R"({"n": -18446744073709551617})", R"({"n": -18446744073709551618})", Normaliser::kJsonMap));
  EXPECT_TRUE(Same("[18446744073709551617]", "[ 18446744073709551617 ]", Normaliser::kJson));
  EXPECT_TRUE(Same("[18446744073709551615, 842.0]", "[18446744073709551615, 842]", Normaliser::kJson));
  EXPECT_FALSE(DigestText("[18446744073709551617]", Normaliser::kJson, false) ==
               DigestText("[18446744073709551618]", Normaliser::kJson, false));
  EXPECT_EQ(DigestText("[1, 2]", Normaliser::kJson, true), DigestOutput(Write("g", "[2,1]"), Normaliser::kJson, true));
  EXPECT_EQ(DigestText("", Normaliser::kExact, false), DigestOutput(Write("h", ""), Normaliser::kExact, false));
}

// A server's answer is digested as it arrives, in pieces of any size: the same digest as the
// file of the same bytes, the bytes kept only up to the limit, a parse error thrown at the end.
TEST_F(OutputDigestTest, AStreamedOutputDigestsAsItsFileDoes) {
  const std::string text = R"({"b": [2, 1], "a": 842.0, "c": "x\ny"})";
  for (Normaliser n : {Normaliser::kExact, Normaliser::kSortedLines, Normaliser::kJson, Normaliser::kJsonMap}) {
    StreamingDigest streamed(n, true, 16);
    for (std::size_t i = 0; i < text.size(); i += 7)
      streamed.Write(text.data() + i, std::min<std::size_t>(7, text.size() - i));
    const KeptOutput kept = streamed.Finish();
    EXPECT_EQ(kept.digest, DigestOutput(Write("s", text), n, true));
    EXPECT_EQ(kept.size, text.size());
    EXPECT_FALSE(kept.bytes.has_value());  // over the 16-byte limit
  }
  StreamingDigest small(Normaliser::kExact, false);
  small.Write("ab", 2);
  EXPECT_EQ(small.Finish().bytes, std::optional<std::string>("ab"));
  StreamingDigest empty(Normaliser::kExact, false);
  EXPECT_EQ(empty.Finish().digest, DigestOutput(Write("e", ""), Normaliser::kExact, false));
  // The parser gives up at the first bad byte; what is written after it is not waited for.
  StreamingDigest bad(Normaliser::kJson, false);
  const std::string mib(1 << 20, 'x');
  for (int i = 0; i < 8; ++i) bad.Write(mib.data(), mib.size());
  EXPECT_THROW(bad.Finish(), std::runtime_error);
}

long PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// The engine's footprint does not grow with the output: 96 MiB of output, each normaliser.
TEST_F(OutputDigestTest, LargeOutputsCostABufferNotTheirSize) {
  const fs::path lines = dir_ / "lines";
  {
    std::ofstream out(lines, std::ios::binary);
    std::string line(95, 'x');
    for (int i = 0; i < 1'000'000; ++i) out << line << (i % 10) << '\n';
  }
  const fs::path json = dir_ / "map.json";
  {
    std::ofstream out(json, std::ios::binary);
    out << '{';
    for (int i = 0; i < 200'000; ++i)
      out << (i ? "," : "") << "\"//pkg/target:" << i << "\": \"" << std::string(64, 'a' + i % 26) << '"';
    out << '}';
  }
  // Resets VmHWM to the current RSS (Linux 4.0+), so the peak below is this test's alone.
  std::ofstream("/proc/self/clear_refs") << "5";
  const long before = PeakRssKib();
  DigestOutput(lines, Normaliser::kExact, false);
  DigestOutput(lines, Normaliser::kSortedLines, false);
  DigestOutput(json, Normaliser::kJsonMap, false);
  const long growth = PeakRssKib() - before;
  EXPECT_LT(growth, 24 * 1024) << "peak RSS grew by " << growth << " KiB for 96 MiB and 17 MiB outputs";
}

}  // namespace
}  // namespace pe::run
