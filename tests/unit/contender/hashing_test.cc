// Hashing: what changes a hash and what must not.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string_view>

#include "error.h"
#include "fixture.h"
#include "hash_json.h"
#include "query_stream.h"
#include "target_graph.h"
#include "target_hasher.h"

namespace pe::refdiff {
namespace {

namespace fs = std::filesystem;
using testing::Fixture;
using testing::GeneratedFile;
using testing::Rule;
using testing::SourceFile;

std::map<std::string, HashedTarget> Hash(const Fixture& fixture, const std::vector<blaze_query::Target>& targets,
                                         int threads = 1) {
  TargetGraph graph(DecodeTargets(testing::EncodeStream(targets), threads), threads);
  std::map<std::string, HashedTarget> by_label;
  for (HashedTarget& target : HashTargets(graph, {fixture.workspace(), threads})) {
    by_label.emplace(target.label, std::move(target));
  }
  return by_label;
}

// //a:a.cc <- //a:lib <- //b:bin (+ //b:gen's out), and an unrelated //c:c.cc <- //c:other.
class SmallGraph : public ::testing::Test {
 protected:
  void SetUp() override {
    fixture_.WriteSource("a/a.cc", "int a() { return 1; }\n");
    fixture_.WriteSource("c/c.cc", "int c() { return 3; }\n");
    fixture_.WriteSource("a/defs.bzl", "def my_macro(): pass\n");
  }

  std::vector<blaze_query::Target> Targets(const std::string& lib_copts = "-O2") const {
    return {
        SourceFile("//a:a.cc"),
        Rule("//a:lib", "cc_library", {"//a:a.cc"}, {{"copts", lib_copts}, {"srcs", "//a:a.cc"}},
             {"a/defs.bzl:2:19: my_macro"}),
        Rule("//b:bin", "cc_binary", {"//a:lib"}, {{"deps", "//a:lib"}}),
        Rule("//b:gen", "genrule", {"//b:bin"}, {{"cmd", "$(location //b:bin) > $@"}}),
        GeneratedFile("//b:out.txt", "//b:gen"),
        SourceFile("//c:c.cc"),
        Rule("//c:other", "cc_library", {"//c:c.cc"}, {{"srcs", "//c:c.cc"}}),
    };
  }

  // Labels whose direct / transitive hash differs between two runs.
  static std::vector<std::string> Changed(const std::map<std::string, HashedTarget>& before,
                                          const std::map<std::string, HashedTarget>& after, bool direct) {
    std::vector<std::string> changed;
    for (const auto& [label, target] : after) {
      const HashedTarget& old = before.at(label);
      if (direct ? old.direct != target.direct : old.transitive != target.transitive) changed.push_back(label);
    }
    return changed;
  }

  Fixture fixture_;
};

TEST_F(SmallGraph, StreamOrderDoesNotMatter) {
  std::vector<blaze_query::Target> targets = Targets();
  auto expected = Hash(fixture_, targets);
  std::mt19937 random(7);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(targets.begin(), targets.end(), random);
    auto hashed = Hash(fixture_, targets, /*threads=*/round % 2 + 1);
    for (const auto& [label, target] : expected) {
      EXPECT_EQ(ToHex(hashed.at(label).transitive), ToHex(target.transitive)) << label << " round " << round;
      EXPECT_EQ(ToHex(hashed.at(label).direct), ToHex(target.direct)) << label;
    }
  }
}

TEST_F(SmallGraph, AttributeAndInputOrderDoNotMatter) {
  std::vector<blaze_query::Target> targets = Targets();
  auto expected = Hash(fixture_, targets);
  blaze_query::Rule* lib = targets[1].mutable_rule();
  std::swap(*lib->mutable_attribute(0), *lib->mutable_attribute(1));
  lib->add_rule_input("//a:a.cc");  // listed twice counts once
  std::swap(*lib->mutable_rule_input(0), *lib->mutable_rule_input(1));
  auto hashed = Hash(fixture_, targets);
  EXPECT_EQ(hashed.at("//a:lib").direct, expected.at("//a:lib").direct);
  EXPECT_EQ(hashed.at("//a:lib").transitive, expected.at("//a:lib").transitive);
}

TEST_F(SmallGraph, ChangedSourceFileChangesExactlyItsDependents) {
  auto before = Hash(fixture_, Targets());
  fixture_.WriteSource("a/a.cc", "int a() { return 2; }\n");
  auto after = Hash(fixture_, Targets());
  // The rule that lists the file takes its digest into its own direct hash (upstream's
  // RuleHasher), so -d reports it at distance 0.
  EXPECT_EQ(Changed(before, after, /*direct=*/true), (std::vector<std::string>{"//a:a.cc", "//a:lib"}));
  EXPECT_EQ(Changed(before, after, /*direct=*/false),
            (std::vector<std::string>{"//a:a.cc", "//a:lib", "//b:bin", "//b:gen", "//b:out.txt"}));
}

TEST_F(SmallGraph, OwnerExecuteBitCounts) {
  auto before = Hash(fixture_, Targets());
  std::filesystem::permissions(fixture_.workspace() / "a" / "a.cc", std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  auto after = Hash(fixture_, Targets());
  EXPECT_EQ(Changed(before, after, /*direct=*/true), (std::vector<std::string>{"//a:a.cc", "//a:lib"}));
  // Group and others bits are not tracked by git, nor by upstream.
  std::filesystem::permissions(fixture_.workspace() / "a" / "a.cc",
                               std::filesystem::perms::group_exec | std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add);
  auto again = Hash(fixture_, Targets());
  EXPECT_EQ(Changed(after, again, /*direct=*/false), (std::vector<std::string>{}));
}

// Every attribute type of build.proto is hashed, with all its fields, as upstream hashes the
// attribute's serialized message: a changed `env = {...}` or `licenses = [...]` impacts the rule.
TEST_F(SmallGraph, EveryAttributeTypeCounts) {
  auto with = [&](auto edit) {
    std::vector<blaze_query::Target> targets = Targets();
    blaze_query::Attribute* attribute = targets[1].mutable_rule()->add_attribute();
    edit(*attribute);
    return Hash(fixture_, targets);
  };
  auto env = [](const char* value) {
    return [value](blaze_query::Attribute& a) {
      a.set_name("env");
      a.set_type(blaze_query::Attribute::STRING_DICT);
      auto* entry = a.add_string_dict_value();
      entry->set_key("MODE");
      entry->set_value(value);
    };
  };
  auto license = [](const char* type) {
    return [type](blaze_query::Attribute& a) {
      a.set_name("licenses");
      a.set_type(blaze_query::Attribute::LICENSE);
      a.mutable_license()->add_license_type(type);
    };
  };
  auto label_dict = [](const char* value) {
    return [value](blaze_query::Attribute& a) {
      a.set_name("resources");
      a.set_type(blaze_query::Attribute::LABEL_KEYED_STRING_DICT);
      auto* entry = a.add_label_keyed_string_dict_value();
      entry->set_key("//a:a.cc");
      entry->set_value(value);
    };
  };
  EXPECT_NE(with(env("fast")).at("//a:lib").direct, with(env("slow")).at("//a:lib").direct);
  EXPECT_NE(with(license("notice")).at("//a:lib").direct, with(license("restricted")).at("//a:lib").direct);
  EXPECT_NE(with(label_dict("x")).at("//a:lib").direct, with(label_dict("y")).at("//a:lib").direct);
  EXPECT_EQ(with(env("fast")).at("//b:bin").direct, with(env("slow")).at("//b:bin").direct);
}

// A rule input in another repository links the rule to that repository's //external target, so
// a changed repository rule (its path, url, sha256) impacts its users, not only the WORKSPACE.
TEST_F(SmallGraph, ExternalRepositoryInputsLinkToTheirExternalTarget) {
  auto with_path = [&](const std::string& path) {
    std::vector<blaze_query::Target> targets = Targets();
    targets[6].mutable_rule()->add_rule_input("@zlib//:zlib");
    targets.push_back(Rule("//external:zlib", "local_repository", {}, {{"path", path}}));
    return Hash(fixture_, targets);
  };
  auto before = with_path("third_party/zlib");
  auto after = with_path("third_party/zlib-1.3");
  EXPECT_EQ(Changed(before, after, /*direct=*/true), (std::vector<std::string>{"//external:zlib"}));
  EXPECT_EQ(Changed(before, after, /*direct=*/false), (std::vector<std::string>{"//c:other", "//external:zlib"}));
}

// A BUILD file's hash takes in the .bzl files it loads (subinclude), as upstream's seed does.
TEST_F(SmallGraph, ABuildFilesLoadsCount) {
  auto with_loads = [&](std::vector<std::string> loads) {
    std::vector<blaze_query::Target> targets = Targets();
    blaze_query::Target build = SourceFile("//a:BUILD");
    for (const std::string& load : loads) build.mutable_source_file()->add_subinclude(load);
    targets.push_back(build);
    return Hash(fixture_, targets);
  };
  auto before = with_loads({"//a:defs.bzl"});
  auto after = with_loads({"//a:defs.bzl", "//a:more.bzl"});
  EXPECT_EQ(Changed(before, after, /*direct=*/false), (std::vector<std::string>{"//a:BUILD"}));
}

TEST_F(SmallGraph, ChangedAttributeChangesTheRuleDirectlyAndItsDependentsTransitively) {
  auto before = Hash(fixture_, Targets("-O2"));
  auto after = Hash(fixture_, Targets("-O3"));
  EXPECT_EQ(Changed(before, after, /*direct=*/true), (std::vector<std::string>{"//a:lib"}));
  EXPECT_EQ(Changed(before, after, /*direct=*/false),
            (std::vector<std::string>{"//a:lib", "//b:bin", "//b:gen", "//b:out.txt"}));
}

TEST_F(SmallGraph, ChangedBzlFileChangesTheRulesItInstantiates) {
  auto before = Hash(fixture_, Targets());
  fixture_.WriteSource("a/defs.bzl", "def my_macro(): fail()\n");
  auto after = Hash(fixture_, Targets());
  EXPECT_EQ(Changed(before, after, /*direct=*/true), (std::vector<std::string>{"//a:lib"}));
}

// The frame kinds of upstream 37's ruleBzlSeed (RuleHasher.kt:36-62) with softDigest's lookup
// (SourceFileHasher.kt:130-145): a frame's file counts only when it is a regular file at
// workspace/<frame path>.
class FrameKinds : public ::testing::Test {
 protected:
  std::map<std::string, HashedTarget> HashWith(const std::string& frame) const {
    return Hash(fixture_, {Rule("//a:lib", "cc_library", {}, {}, {frame})});
  }
  Digest DirectWith(const std::string& frame) const { return HashWith(frame).at("//a:lib").direct; }

  Fixture fixture_;
};

// Bazel 4.2.3 writes a macro of another repository as an absolute output-base path. Upstream
// resolves it under the workspace (Paths.get(workspace, "/abs/...")), finds no file, and skips
// it: editing that macro changes nothing, and the rule hashes as if the frame were absent.
TEST_F(FrameKinds, AnAbsoluteFrameOutsideTheWorkspaceIsSkipped) {
  const fs::path outside = fixture_.dir() / "output_base" / "external" / "extrepo" / "macros.bzl";
  fs::create_directories(outside.parent_path());
  std::ofstream(outside) << "def ext_macro(): pass\n";
  const std::string frame = outside.string() + ":2:19: ext_macro";
  const Digest before = DirectWith(frame);
  std::ofstream(outside) << "def ext_macro(): fail()\n";
  EXPECT_EQ(DirectWith(frame), before);
  EXPECT_EQ(DirectWith("/nowhere/else/macros.bzl:2:19: ext_macro"), before);  // the path string counts for nothing
  EXPECT_EQ(DirectWith("a/BUILD:3:1: <toplevel>"), before);
}

// ... unless workspace/<absolute path> exists, where upstream does read it.
TEST_F(FrameKinds, AnAbsoluteFrameIsReadUnderTheWorkspace) {
  const Digest absent = DirectWith("/tools/abs.bzl:1:1: m");
  fixture_.WriteSource("tools/abs.bzl", "def m(): pass\n");
  const Digest present = DirectWith("/tools/abs.bzl:1:1: m");
  EXPECT_NE(present, absent);
  fixture_.WriteSource("tools/abs.bzl", "def m(): fail()\n");
  EXPECT_NE(DirectWith("/tools/abs.bzl:1:1: m"), present);
}

TEST_F(FrameKinds, AnSclFrameIsHashed) {
  fixture_.WriteSource("a/consts.scl", "X = 1\n");
  const Digest before = DirectWith("a/consts.scl:1:1: consts");
  fixture_.WriteSource("a/consts.scl", "X = 2\n");
  EXPECT_NE(DirectWith("a/consts.scl:1:1: consts"), before);
}

// external/... and ../... frames are skipped even when the workspace has a file at that path.
TEST_F(FrameKinds, ExternalAndParentFramesAreSkipped) {
  const Digest none = DirectWith("a/BUILD:3:1: <toplevel>");
  fixture_.WriteSource("external/extrepo/macros.bzl", "def ext_macro(): pass\n");
  EXPECT_EQ(DirectWith("external/extrepo/macros.bzl:2:19: ext_macro"), none);
  fs::create_directories(fixture_.workspace().parent_path() / "extrepo");
  std::ofstream(fixture_.workspace().parent_path() / "extrepo" / "macros.bzl") << "def ext_macro(): pass\n";
  EXPECT_EQ(DirectWith("../extrepo/macros.bzl:2:19: ext_macro"), none);
}

// A frame naming a directory or a missing file: softDigest returns null, nothing is hashed.
TEST_F(FrameKinds, AMissingFileOrADirectoryIsSkipped) {
  const Digest none = DirectWith("a/BUILD:3:1: <toplevel>");
  EXPECT_EQ(DirectWith("a/missing.bzl:1:1: m"), none);
  fs::create_directories(fixture_.workspace() / "a" / "dir.bzl");
  EXPECT_EQ(DirectWith("a/dir.bzl:1:1: m"), none);
}

// A source label naming a directory: upstream writes neither the "exists" nor the "missing"
// byte (SourceFileHasher.kt:107-123: `if (file.exists()) { if (file.isFile) ... } else 0x00`).
TEST_F(FrameKinds, ADirectorySourceHasNoMissingByte) {
  auto direct = [&] { return Hash(fixture_, {SourceFile("//a:data")}).at("//a:data").direct; };
  const Digest missing = direct();
  fs::create_directories(fixture_.workspace() / "a" / "data");
  const Digest directory = direct();
  EXPECT_NE(directory, missing);
  fixture_.WriteSource("a/data/inside.txt", "contents do not count\n");
  EXPECT_EQ(direct(), directory);
}

TEST_F(SmallGraph, GeneratorLocationIsIgnored) {
  std::vector<blaze_query::Target> targets = Targets();
  auto before = Hash(fixture_, targets);
  blaze_query::Attribute* location = targets[2].mutable_rule()->add_attribute();
  location->set_name("generator_location");
  location->set_type(blaze_query::Attribute::STRING);
  location->set_string_value("b/BUILD:17:10");
  auto after = Hash(fixture_, targets);
  EXPECT_EQ(after.at("//b:bin").transitive, before.at("//b:bin").transitive);
}

TEST_F(SmallGraph, GeneratedFileHashesAsItsRule) {
  auto hashed = Hash(fixture_, Targets());
  EXPECT_EQ(hashed.at("//b:out.txt").direct, hashed.at("//b:gen").direct);
  EXPECT_EQ(hashed.at("//b:out.txt").transitive, hashed.at("//b:gen").transitive);
}

TEST_F(SmallGraph, SourceFileHashIsItsContentOrItsLabelWhenMissing) {
  std::vector<blaze_query::Target> targets = Targets();
  targets.push_back(SourceFile("//a:missing.cc"));
  targets.push_back(SourceFile("//a:assets"));
  std::filesystem::create_directories(fixture_.workspace() / "a" / "assets");
  auto hashed = Hash(fixture_, targets);
  // Upstream's SourceFileHasher: content, 0x01 (exists), the owner-execute bit, then the label;
  // a missing file: 0x00, then the label; a directory: the label alone
  // (SourceFileHasher.kt:107-123).
  Sha256 hasher;
  using namespace std::string_view_literals;
  EXPECT_EQ(hashed.at("//a:assets").direct, hasher.Field("//a:assets").Finish());
  EXPECT_EQ(hashed.at("//a:a.cc").direct,
            hasher.Update("int a() { return 1; }\n").Update("\x01\x00"sv).Field("//a:a.cc").Finish());
  EXPECT_EQ(hashed.at("//a:missing.cc").direct, hasher.Update("\x00"sv).Field("//a:missing.cc").Finish());
  // "X~X": a source file's transitive hash is its direct one.
  EXPECT_EQ(hashed.at("//a:a.cc").transitive, hashed.at("//a:a.cc").direct);
}

// Upstream puts every input label into the rule's direct digest.
TEST_F(SmallGraph, InputThatIsNotATargetContributesItsLabel) {
  std::vector<blaze_query::Target> targets = Targets();
  targets[6].mutable_rule()->add_rule_input("//c:not_a_target.h");
  auto with_one = Hash(fixture_, targets);
  targets[6].mutable_rule()->set_rule_input(1, "//c:other_header.h");
  auto with_other = Hash(fixture_, targets);
  EXPECT_NE(with_one.at("//c:other").direct, with_other.at("//c:other").direct);
}

TEST(TargetHasher, DeepChainNeedsNoRecursion) {
  Fixture fixture;
  std::vector<blaze_query::Target> targets;
  constexpr int kDepth = 100000;
  for (int i = 0; i < kDepth; ++i) {
    std::vector<std::string> inputs;
    if (i > 0) inputs.push_back("//chain:t" + std::to_string(i - 1));
    targets.push_back(Rule("//chain:t" + std::to_string(i), "filegroup", inputs));
  }
  auto hashed = Hash(fixture, targets, 2);
  EXPECT_EQ(hashed.size(), static_cast<std::size_t>(kDepth));
}

TEST(TargetHasher, CycleIsAnErrorNamingIt) {
  Fixture fixture;
  std::vector<blaze_query::Target> targets = {
      Rule("//x:a", "filegroup", {"//x:b"}),
      Rule("//x:b", "filegroup", {"//x:c"}),
      Rule("//x:c", "filegroup", {"//x:a"}),
      Rule("//x:top", "filegroup", {"//x:a"}),
  };
  try {
    Hash(fixture, targets);
    FAIL() << "a cycle was hashed";
  } catch (const RefDiffError& error) {
    EXPECT_STREQ(error.what(), "query output has a dependency cycle: //x:a -> //x:b -> //x:c -> //x:a");
  }
}

TEST(TargetHasher, DuplicateLabelIsAnError) {
  Fixture fixture;
  EXPECT_THROW(Hash(fixture, {SourceFile("//a:b"), SourceFile("//a:b")}), RefDiffError);
}

TEST(SourcePath, MapsLabelsToWorkspaceFiles) {
  EXPECT_EQ(SourcePath("/ws", "//pkg/sub:name.ext"), "/ws/pkg/sub/name.ext");
  EXPECT_EQ(SourcePath("/ws", "//:top.txt"), "/ws/top.txt");
  EXPECT_EQ(SourcePath("/ws", "@@//pkg:x"), "/ws/pkg/x");
  EXPECT_EQ(SourcePath("/ws", "//external:zlib"), "");
  EXPECT_EQ(SourcePath("/ws", "@zlib//:zlib.h"), "");
}

TEST(HashJson, FormatsSortedKeysWithTypesAndPerturbs) {
  std::vector<HashedTarget> targets(3);
  targets[0] = {"//a:lib", TargetKind::kRule, Sha256Of("d1"), Sha256Of("t1")};
  targets[1] = {"//a:out", TargetKind::kGeneratedFile, Sha256Of("d2"), Sha256Of("t2")};
  targets[2] = {"//external:zlib", TargetKind::kRule, Sha256Of("d3"), Sha256Of("t3")};
  std::string plain = FormatHashesJson(targets, {});
  EXPECT_EQ(plain, "{\n  \"//a:lib\": \"" + ToHex(Sha256Of("t1")) + "~" + ToHex(Sha256Of("d1")) +
                       "\",\n  \"//a:out\": \"" + ToHex(Sha256Of("t2")) + "~" + ToHex(Sha256Of("d2")) +
                       "\",\n  \"//external:zlib\": \"" + ToHex(Sha256Of("t3")) + "~" + ToHex(Sha256Of("d3")) +
                       "\"\n}\n");
  // --includeTargetType: upstream puts the type on the value, the key stays the label.
  HashEntries typed = ParseHashesJson(FormatHashesJson(targets, {true, true, ""}), "typed");
  ASSERT_EQ(typed.size(), 2u);
  EXPECT_EQ(typed[0], (std::pair<std::string, std::string>(
                          "//a:lib", "Rule#" + ToHex(Sha256Of("t1")) + "~" + ToHex(Sha256Of("d1")))));
  EXPECT_EQ(typed[1], (std::pair<std::string, std::string>(
                          "//a:out", "GeneratedFile#" + ToHex(Sha256Of("t2")) + "~" + ToHex(Sha256Of("d2")))));

  // On bzlmod the hashes go under "hashes", with the module graph as metadata.
  HashJsonOptions bzlmod;
  bzlmod.module_graph_json = "{\"key\": \"<root>\"}";
  std::string wrapped = FormatHashesJson({targets[0]}, bzlmod);
  EXPECT_EQ(wrapped, "{\n  \"hashes\": {\n    \"//a:lib\": \"" + ToHex(Sha256Of("t1")) + "~" + ToHex(Sha256Of("d1")) +
                         "\"\n  },\n  \"metadata\": {\"moduleGraphJson\": \"{\\\"key\\\": \\\"<root>\\\"}\"}\n}\n");
  HashesFile read_back = ParseHashFile(wrapped, "bzlmod");
  EXPECT_EQ(read_back.hashes, ParseHashesJson(FormatHashesJson({targets[0]}, {}), "plain"));
  EXPECT_EQ(read_back.module_graph_json, bzlmod.module_graph_json);

  HashEntries perturbed = ParseHashesJson(FormatHashesJson(targets, {false, false, "//a:out"}), "p");
  HashEntries original = ParseHashesJson(plain, "plain");
  EXPECT_EQ(perturbed[0], original[0]);
  EXPECT_NE(perturbed[1].second, original[1].second);
  EXPECT_EQ(perturbed[2], original[2]);
  EXPECT_THROW(FormatHashesJson(targets, {false, false, "//nope:x"}), RefDiffError);
}

TEST(HashJson, BytesDoNotDependOnThreads) {
  std::vector<HashedTarget> targets;
  for (int i = 0; i < 10000; ++i) {
    std::string label = "//p" + std::to_string(i % 97) + ":t" + std::to_string(i);
    targets.push_back(
        {label, i % 3 == 0 ? TargetKind::kSourceFile : TargetKind::kRule, Sha256Of(label), Sha256Of(label + "!")});
  }
  std::sort(targets.begin(), targets.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
  HashJsonOptions typed{true, false, "//p5:t5"};
  EXPECT_EQ(FormatHashesJson(targets, typed, 2), FormatHashesJson(targets, typed, 1));
  EXPECT_EQ(FormatHashesJson(targets, {}, 4), FormatHashesJson(targets, {}, 1));
}

}  // namespace
}  // namespace pe::refdiff
