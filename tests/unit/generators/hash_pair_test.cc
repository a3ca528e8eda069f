#include <gtest/gtest.h>

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

TEST(HashPair, ExactFractionsWithoutPropagation) {
  ScratchDir dir;
  Generate("hash_pair", {{"targets", std::int64_t{1000}}}, dir.path());
  const json start = Load(dir.path() / "start.json");
  const json final = Load(dir.path() / "final.json");
  EXPECT_FALSE(fs::exists(dir.path() / "deps.json"));
  ASSERT_EQ(start.size(), 1000u);
  EXPECT_EQ(final.size(), 1000u - 10 + 10);
  const std::regex shape("[0-9a-f]{64}~[0-9a-f]{64}");
  int changed = 0;
  int removed = 0;
  for (const auto& [label, value] : start.items()) {
    EXPECT_TRUE(std::regex_match(value.get<std::string>(), shape)) << value;
    if (!final.contains(label)) {
      ++removed;
    } else if (final[label] != value) {
      ++changed;
      // Without propagation only the changed targets' own (direct) hashes move.
      EXPECT_NE(Split(final[label]).second, Split(value).second);
    }
  }
  int added = 0;
  for (const auto& [label, value] : final.items()) added += start.contains(label) ? 0 : 1;
  EXPECT_EQ(removed, 10);
  EXPECT_EQ(added, 10);
  // 50 picked, plus dependents of removed targets whose inputs changed.
  EXPECT_GE(changed, 50);
  EXPECT_LT(changed, 50 + 10 * 8);
}

TEST(HashPair, EdgesPropagateAndMatchFinal) {
  ScratchDir dir;
  Generate("hash_pair", {{"targets", std::int64_t{800}}, {"edges", true}, {"target_types", true}}, dir.path());
  const json final = Load(dir.path() / "final.json");
  const json start = Load(dir.path() / "start.json");
  const json deps = Load(dir.path() / "deps.json");
  ASSERT_EQ(deps.size(), final.size());
  const std::regex shape("(Rule|SourceFile|GeneratedFile)#[0-9a-f]{64}~[0-9a-f]{64}");
  for (const auto& [label, value] : final.items()) {
    EXPECT_TRUE(std::regex_match(value.get<std::string>(), shape)) << value;
    ASSERT_TRUE(deps.contains(label));
    for (const auto& dep : deps[label]) EXPECT_TRUE(final.contains(dep.get<std::string>())) << dep;
  }
  // A target whose total changed while its direct hash did not must have a changed input.
  int propagated = 0;
  for (const auto& [label, value] : final.items()) {
    if (!start.contains(label) || start[label] == value) continue;
    if (Split(start[label]).second != Split(value).second) continue;
    ++propagated;
    bool input_changed = false;
    for (const auto& dep : deps[label]) {
      input_changed |= !start.contains(dep) || start[dep.get<std::string>()] != final[dep.get<std::string>()];
    }
    EXPECT_TRUE(input_changed) << label;
  }
  EXPECT_GT(propagated, 0);
  EXPECT_EQ(std::string(final["//src/l00/p00000:BUILD"]).rfind("SourceFile#", 0), 0u);
  EXPECT_EQ(std::string(final["//src/l00/p00000:mod0"]).rfind("Rule#", 0), 0u);
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
  EXPECT_EQ(digest, "a7ef1151981f9e2997bf5f1186b4a73eb8c58990332c6c3bfec273ae39e1b007");
}

}  // namespace
}  // namespace pe::gen
