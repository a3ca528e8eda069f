#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "generators/file_io.h"
#include "generators/sha256.h"
#include "test_util.h"

namespace pe::gen {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Generate;
using testing::ScratchDir;

json Load(const fs::path& path) { return json::parse(ReadFile(path)); }

std::pair<std::string, std::string> Split(const std::string& value) {
  const auto tilde = value.find('~');
  return {value.substr(0, tilde), value.substr(tilde + 1)};
}

// Upstream's get-impacted-targets requires -w and may ask bazel whether the workspace is on
// bzlmod: the fixture carries an empty WORKSPACE-mode workspace and the replay bazel.
TEST(HashPair, CarriesAWorkspaceAndTheShim) {
  ScratchDir dir;
  Generate("hash_pair", {{"targets", std::int64_t{100}}}, dir.path());
  EXPECT_EQ(ReadFile(dir.path() / "workspace" / "WORKSPACE"), "workspace(name = \"perfengine_hash_pair\")\n");
  EXPECT_TRUE(fs::is_regular_file(dir.path() / "bazel"));
  EXPECT_TRUE(fs::is_regular_file(dir.path() / "shim.json"));
  const testing::RunResult mod =
      testing::RunProgram({(dir.path() / "bazel").string(), "mod", "graph"}, dir.path() / "workspace", dir.path());
  EXPECT_EQ(mod.exit_code, 2);  // not bzlmod: //external:* labels stay in the answer
}

// Changed and removed fractions are picked among rules and source files (a generated file
// cannot change apart from its rule); a removed rule's generated files go with it.
TEST(HashPair, ExactFractionsWithoutPropagation) {
  ScratchDir dir;
  Generate("hash_pair", {{"targets", std::int64_t{1000}}, {"target_types", true}}, dir.path());
  const json start = Load(dir.path() / "start.json");
  const json final = Load(dir.path() / "final.json");
  EXPECT_FALSE(fs::exists(dir.path() / "deps.json"));
  ASSERT_EQ(start.size(), 1000u);
  const std::regex shape("(Rule|SourceFile|GeneratedFile)#[0-9a-f]{64}~[0-9a-f]{64}");
  int changed = 0;
  int removed = 0;
  int removed_generated = 0;
  for (const auto& [label, value] : start.items()) {
    EXPECT_TRUE(std::regex_match(value.get<std::string>(), shape)) << value;
    const bool generated = value.get<std::string>().starts_with("GeneratedFile#");
    if (!final.contains(label)) {
      ++(generated ? removed_generated : removed);
    } else if (final[label] != value && !generated) {
      ++changed;
      // Without propagation only the changed targets' own (direct) hashes move.
      EXPECT_NE(Split(final[label]).second, Split(value).second);
    }
  }
  int added = 0;
  for (const auto& [label, value] : final.items()) added += start.contains(label) ? 0 : 1;
  EXPECT_EQ(removed, 10);
  EXPECT_EQ(added, 10);
  EXPECT_EQ(final.size(), 1000u - removed - removed_generated + added);
  // 50 picked, plus dependents of removed targets whose inputs changed.
  EXPECT_GE(changed, 50);
  EXPECT_LT(changed, 50 + 10 * 8);
}

// TargetHash.fromJson (TargetHash.kt:26-39, Tinder/bazel-diff 37.0.0): an optional "<type>#",
// then exactly two hashes around '~'. Returns {type, total, direct}; fails the test otherwise.
struct UpstreamHash {
  std::string type, total, direct;
};
UpstreamHash FromJson(const std::string& value) {
  UpstreamHash hash;
  std::string rest = value;
  if (const auto hashmark = value.find('#'); hashmark != std::string::npos) {
    EXPECT_EQ(value.find('#', hashmark + 1), std::string::npos) << value;
    hash.type = value.substr(0, hashmark);
    rest = value.substr(hashmark + 1);
  }
  const auto tilde = rest.find('~');
  EXPECT_NE(tilde, std::string::npos) << value;
  EXPECT_EQ(rest.find('~', tilde + 1), std::string::npos) << value;
  hash.total = rest.substr(0, tilde);
  hash.direct = rest.substr(tilde + 1);
  return hash;
}

// The files as upstream writes them (generators/hash_pair.cc cites the upstream lines): a source
// file is "X~X"; a generated file has its rule's value; deps.json has a key per rule and
// generated file (never a source file), a rule's list names rules and generated files only, a
// generated file's names its rule.
TEST(HashPair, FilesHaveUpstreamsShape) {
  ScratchDir dir;
  Generate("hash_pair", {{"targets", std::int64_t{800}}, {"edges", true}, {"target_types", true}}, dir.path());
  const json deps = Load(dir.path() / "deps.json");
  for (const char* name : {"start.json", "final.json"}) {
    const json hashes = Load(dir.path() / name);
    std::map<std::string, UpstreamHash> decoded;
    int sources = 0;
    int generated = 0;
    for (const auto& [label, value] : hashes.items()) decoded[label] = FromJson(value.get<std::string>());
    for (const auto& [label, hash] : decoded) {
      if (hash.type == "SourceFile") {
        ++sources;
        EXPECT_EQ(hash.total, hash.direct) << label;
      } else if (name == std::string("final.json")) {
        ASSERT_TRUE(deps.contains(label)) << label;
      }
      if (hash.type == "GeneratedFile" && name == std::string("final.json")) {
        ++generated;
        ASSERT_EQ(deps[label].size(), 1u) << label;
        const std::string rule = deps[label][0];
        ASSERT_TRUE(decoded.contains(rule)) << rule;
        EXPECT_EQ(decoded[rule].type, "Rule");
        EXPECT_EQ(hashes[label].get<std::string>().substr(std::string("GeneratedFile").size()),
                  hashes[rule].get<std::string>().substr(std::string("Rule").size()))
            << label;
      }
    }
    EXPECT_GT(sources, 0);
    if (name == std::string("final.json")) {
      EXPECT_GT(generated, 0);
      int keys = 0;
      for (const auto& [label, list] : deps.items()) {
        ++keys;
        ASSERT_TRUE(decoded.contains(label)) << label;
        EXPECT_NE(decoded[label].type, "SourceFile") << label;
        for (const auto& dep : list) {
          ASSERT_TRUE(decoded.contains(dep.get<std::string>())) << dep;
          EXPECT_NE(decoded[dep.get<std::string>()].type, "SourceFile") << label << " -> " << dep;
        }
      }
      EXPECT_EQ(keys + sources, static_cast<int>(hashes.size()));
    }
  }
}

TEST(HashPair, EdgesPropagateAndMatchFinal) {
  ScratchDir dir;
  Generate("hash_pair", {{"targets", std::int64_t{800}}, {"edges", true}, {"target_types", true}}, dir.path());
  const json final = Load(dir.path() / "final.json");
  const json start = Load(dir.path() / "start.json");
  const json deps = Load(dir.path() / "deps.json");
  const std::regex shape("(Rule|SourceFile|GeneratedFile)#[0-9a-f]{64}~[0-9a-f]{64}");
  for (const auto& [label, value] : final.items()) {
    EXPECT_TRUE(std::regex_match(value.get<std::string>(), shape)) << value;
    if (!deps.contains(label)) continue;  // a source file
    for (const auto& dep : deps[label]) EXPECT_TRUE(final.contains(dep.get<std::string>())) << dep;
  }
  // A rule whose total changed while its direct hash did not must have a changed input among
  // its deps (its source files are in its direct hash, as upstream's are).
  int propagated = 0;
  for (const auto& [label, value] : final.items()) {
    if (!start.contains(label) || start[label] == value) continue;
    if (!value.get<std::string>().starts_with("Rule#")) continue;
    if (Split(start[label]).second != Split(value).second) continue;
    ++propagated;
    bool input_changed = false;
    for (const auto& dep : deps[label]) {
      input_changed |= !start.contains(dep) || start[dep.get<std::string>()] != final[dep.get<std::string>()];
    }
    EXPECT_TRUE(input_changed) << label;
  }
  EXPECT_GT(propagated, 0);
  int builds = 0;
  for (const auto& [label, value] : final.items()) {
    if (!label.ends_with(":BUILD")) continue;
    ++builds;
    EXPECT_TRUE(value.get<std::string>().starts_with("SourceFile#")) << label;
  }
  EXPECT_GT(builds, 0);
}

TEST(HashPair, BytesArePinned) {
  ScratchDir dir;
  const Params params = {{"targets", std::int64_t{500}}, {"edges", true}};
  Generate("hash_pair", params, dir.path() / "a", 5);
  Generate("hash_pair", params, dir.path() / "b", 5);
  Generate("hash_pair", params, dir.path() / "c", 6);
  // The hash files only: the fixture also holds the shim binary, whose bytes are the compiler's.
  auto digest_of = [](const fs::path& fixture) {
    return Sha256Hex(ReadFile(fixture / "start.json") + ReadFile(fixture / "final.json") +
                     ReadFile(fixture / "deps.json"));
  };
  const std::string digest = digest_of(dir.path() / "a");
  EXPECT_EQ(digest, digest_of(dir.path() / "b"));
  EXPECT_NE(digest, digest_of(dir.path() / "c"));
  // Changed deliberately with Version() 4 (upstream's shape: X~X sources, generated files equal to
  // their rule, deps.json without source files); was a7ef1151...b007 at version 3.
  EXPECT_EQ(digest, "eb376ed822fa912f17e30d91d7253a81199a00e6a24f025819f37c620ec9f082");
}

}  // namespace
}  // namespace pe::gen
