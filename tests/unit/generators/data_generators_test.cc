// The generic data generators: random_bytes, text_lines, json_docs. Each is pinned by digest
// (a pure function of parameters, scale and seed), and each knob is shown to do what it says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/unit/generators/test_util.h"

namespace pe::gen {
namespace {

using testing::Generate;
using testing::ScratchDir;
using testing::TreeDigest;

std::string Error(std::string_view name, const Params& params) {
  try {
    BuiltinRegistry().Create(name)->Check(params);
  } catch (const ParamError& e) {
    return e.key + ": " + e.what();
  }
  return "";
}

// Bytes gzip (its default level, 6) writes for the file: an independent judge of compressibility.
std::size_t GzipSize(const std::filesystem::path& file, const std::filesystem::path& scratch) {
  const auto result = testing::RunProgram({"/bin/gzip", "-c", file.string()}, scratch, scratch);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out.size();
}

TEST(RandomBytes, PinnedBySeedAndSizedExactly) {
  ScratchDir a, b, c;
  Generate("random_bytes", {{"bytes", std::int64_t{100000}}}, a.path(), 7);
  Generate("random_bytes", {{"bytes", std::int64_t{100000}}}, b.path(), 7);
  Generate("random_bytes", {{"bytes", std::int64_t{100000}}}, c.path(), 8);
  EXPECT_EQ(std::filesystem::file_size(a.path() / "data.bin"), 100000u);
  EXPECT_EQ(TreeDigest(a.path()), TreeDigest(b.path()));
  EXPECT_NE(TreeDigest(a.path()), TreeDigest(c.path()));
  EXPECT_EQ(TreeDigest(a.path()), "5f9b90c47b0b5f2206712fc3c1a0de72d7ea6149af5c432992d243866960fbce");
  ScratchDir scaled;
  Generate("random_bytes", {{"bytes", std::int64_t{1000}}}, scaled.path(), 7, 2.5);
  EXPECT_EQ(std::filesystem::file_size(scaled.path() / "data.bin"), 2500u);
}

TEST(RandomBytes, CompressibilityIsWhatGzipFinds) {
  ScratchDir work;
  std::map<double, std::size_t> sizes;
  for (double knob : {0.0, 0.5, 0.9}) {
    ScratchDir dir;
    Generate("random_bytes", {{"bytes", std::int64_t{1} << 20}, {"compressibility", knob}}, dir.path(), 3);
    sizes[knob] = GzipSize(dir.path() / "data.bin", work.path());
  }
  const double mib = 1 << 20;
  EXPECT_GT(sizes[0.0] / mib, 0.99);          // incompressible
  EXPECT_NEAR(sizes[0.5] / mib, 0.53, 0.05);  // the fresh half, and the matches' cost
  EXPECT_LT(sizes[0.9] / mib, 0.2);           // mostly copies
  EXPECT_EQ(Error("random_bytes", {{"compressibility", 1.5}}),
            "compressibility: 'compressibility' must be in [0, 1], got 1.5");
}

TEST(TextLines, ZipfFrequenciesAndPinnedBytes) {
  ScratchDir dir, other;
  Generate("text_lines", {{"lines", std::int64_t{20000}}, {"vocabulary", std::int64_t{1000}}}, dir.path(), 5);
  Generate("text_lines", {{"lines", std::int64_t{20000}}, {"vocabulary", std::int64_t{1000}}}, other.path(), 6);
  EXPECT_EQ(TreeDigest(dir.path()), "7f3ec5e8b10b4f02af867c81e888e20b93e6b2ef1f3390c6abb89473bb70a80c");
  EXPECT_NE(TreeDigest(dir.path()), TreeDigest(other.path()));
  std::istringstream text(ReadFile(dir.path() / "lines.txt"));
  std::map<std::string, int> counts;
  std::string line;
  int lines = 0;
  long words = 0;
  while (std::getline(text, line)) {
    ++lines;
    std::istringstream in(line);
    std::string word;
    while (in >> word) {
      ++counts[word];
      ++words;
    }
  }
  EXPECT_EQ(lines, 20000);
  EXPECT_NEAR(static_cast<double>(words) / lines, 10, 0.3);  // words_per_line is the mean
  EXPECT_LE(counts.size(), 1000u);
  // Zipf with s = 1: the top word about twice the second and ten times the tenth.
  std::vector<int> ranked;
  for (const auto& [w, n] : counts) ranked.push_back(n);
  std::sort(ranked.rbegin(), ranked.rend());
  EXPECT_NEAR(static_cast<double>(ranked[0]) / ranked[1], 2.0, 0.3);
  EXPECT_NEAR(static_cast<double>(ranked[0]) / ranked[9], 10.0, 2.0);
}

TEST(JsonDocs, ParsesWithDepthAndNumberStyle) {
  ScratchDir dir;
  Generate("json_docs",
           {{"documents", std::int64_t{200}}, {"depth", std::int64_t{2}}, {"numbers", std::string("integers")}},
           dir.path(), 9);
  EXPECT_EQ(TreeDigest(dir.path()), "0754167bbabcbc3391f5d36ecfc87e549ad1fb9715c82173f73ff75a5d7d3d6d");
  std::istringstream text(ReadFile(dir.path() / "docs.jsonl"));
  std::string line;
  int documents = 0;
  int deepest = 0;
  std::function<void(const nlohmann::json&, int)> walk = [&](const nlohmann::json& j, int level) {
    if (j.is_number()) EXPECT_TRUE(j.is_number_integer()) << j;
    if (j.is_object() || j.is_array()) {
      deepest = std::max(deepest, level);
      for (const auto& v : j) walk(v, level + 1);
    }
  };
  while (std::getline(text, line)) {
    ++documents;
    const auto doc = nlohmann::json::parse(line);  // throws, failing the test, if not JSON
    ASSERT_TRUE(doc.is_object());
    walk(doc, 0);
  }
  EXPECT_EQ(documents, 200);
  EXPECT_EQ(deepest, 2);  // depth 2: containers nest two levels below the document
}

TEST(JsonDocs, ArrayLayoutAndExponents) {
  ScratchDir dir;
  Generate("json_docs",
           {{"documents", std::int64_t{50}}, {"layout", std::string("array")}, {"numbers", std::string("exponents")}},
           dir.path(), 9);
  const auto doc = nlohmann::json::parse(ReadFile(dir.path() / "docs.json"));
  ASSERT_TRUE(doc.is_array());
  EXPECT_EQ(doc.size(), 50u);
  EXPECT_NE(ReadFile(dir.path() / "docs.json").find("e-"), std::string::npos);
  EXPECT_EQ(Error("json_docs", {{"numbers", std::string("hex")}}),
            "numbers: 'numbers' must be one of integers, decimals, exponents, mixed, not 'hex'");
  EXPECT_EQ(Error("json_docs", {{"layout", std::string("tree")}}),
            "layout: 'layout' must be \"lines\" (docs.jsonl) or \"array\" (docs.json), not 'tree'");
}

}  // namespace
}  // namespace pe::gen
