// Decoding the streamed_proto query output, and what a broken one reports.
#include <gtest/gtest.h>

#include "error.h"
#include "fixture.h"
#include "query_stream.h"

namespace pe::refdiff {
namespace {

using testing::EncodeStream;
using testing::Rule;
using testing::SourceFile;

std::string ErrorOf(const std::string& stream) {
  try {
    DecodeTargets(stream, 2);
  } catch (const RefDiffError& error) {
    return error.what();
  }
  return "no error";
}

TEST(QueryStream, DecodesTargetsInStreamOrder) {
  std::string stream = EncodeStream(
      {SourceFile("//a:x.cc"), Rule("//a:x", "cc_library", {"//a:x.cc"}), testing::GeneratedFile("//a:x.o", "//a:x")});
  std::vector<Target> targets = DecodeTargets(stream, 1);
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].label, "//a:x.cc");
  EXPECT_EQ(targets[0].kind, TargetKind::kSourceFile);
  EXPECT_EQ(targets[1].kind, TargetKind::kRule);
  EXPECT_EQ(targets[1].inputs, std::vector<std::string>{"//a:x.cc"});
  EXPECT_EQ(targets[2].kind, TargetKind::kGeneratedFile);
  EXPECT_EQ(targets[2].inputs, std::vector<std::string>{"//a:x"});
}

TEST(QueryStream, KeepsOnlyBzlFramesOfTheInstantiationStack) {
  std::string stream = EncodeStream({Rule("//a:x", "cc_library", {}, {},
                                          {"a/defs.bzl:2:19: my_macro", "a/BUILD:3:1: <toplevel>",
                                           "tools/rules.bzl:10:5: inner", "a/defs.bzl:7:3: my_macro"})});
  std::vector<Target> targets = DecodeTargets(stream, 1);
  EXPECT_EQ(targets[0].bzl_files, (std::vector<std::string>{"a/defs.bzl", "tools/rules.bzl"}));
}

// Upstream 37's rule, RuleHasher.kt:40-48 (Tinder/bazel-diff 37.0.0): the text before the first
// ':', kept when it ends in .bzl or .scl and starts with none of external/, @, ../.
TEST(QueryStream, FramesAreKeptByUpstreamsRule) {
  EXPECT_EQ(BzlFileOfFrame("a/defs.bzl:2:19: my_macro"), "a/defs.bzl");
  EXPECT_EQ(BzlFileOfFrame("a/consts.scl:4:1: consts"), "a/consts.scl");  // .scl: hashed upstream
  EXPECT_EQ(BzlFileOfFrame("/root/.cache/bazel/_bazel_root/0f3c/external/extrepo/macros.bzl:2:19: ext_macro"),
            "/root/.cache/bazel/_bazel_root/0f3c/external/extrepo/macros.bzl");  // kept, resolved later
  EXPECT_EQ(BzlFileOfFrame("external/extrepo/macros.bzl:2:19: ext_macro"), "");
  EXPECT_EQ(BzlFileOfFrame("../extrepo/macros.bzl:2:19: ext_macro"), "");
  EXPECT_EQ(BzlFileOfFrame("@extrepo//:macros.bzl:2:19: ext_macro"), "");
  EXPECT_EQ(BzlFileOfFrame("a/BUILD:3:1: <toplevel>"), "");
  EXPECT_EQ(BzlFileOfFrame("a/defs.bzl"), "a/defs.bzl");  // no ':' at all: the whole frame
}

TEST(QueryStream, SkipsPackageGroups) {
  blaze_query::Target group;
  group.set_type(blaze_query::Target::PACKAGE_GROUP);
  std::vector<Target> targets = DecodeTargets(EncodeStream({group, SourceFile("//a:b")}), 1);
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets[0].label, "//a:b");
}

TEST(QueryStream, EmptyStreamHasNoTargets) { EXPECT_TRUE(DecodeTargets("", 2).empty()); }

TEST(QueryStream, TruncatedMessageNamesItsOffset) {
  std::string first = EncodeStream({SourceFile("//a:b")});
  std::string stream = EncodeStream({SourceFile("//a:b"), Rule("//a:c", "cc_library")});
  std::string cut = stream.substr(0, stream.size() - 3);
  std::size_t left = cut.size() - first.size() - 1;
  EXPECT_EQ(ErrorOf(cut), "query output is truncated at byte " + std::to_string(first.size()) + " (a " +
                              std::to_string(left + 3) + "-byte target with " + std::to_string(left) + " bytes left)");
}

TEST(QueryStream, TruncatedLengthPrefixNamesItsOffset) {
  std::string stream = EncodeStream({SourceFile("//a:b")});
  EXPECT_EQ(ErrorOf(stream + "\x85"), "query output is truncated at byte " + std::to_string(stream.size()) +
                                          " (a length prefix runs past the end)");
}

TEST(QueryStream, GarbageIsReportedAtTheFirstBadMessage) {
  std::string good = EncodeStream({SourceFile("//a:b")});
  std::string garbage = "\x03\xff\xff\xff";
  // Many good batches after the bad one: the reported offset must not depend on thread timing.
  std::string tail;
  for (int i = 0; i < 3000; ++i) tail += good;
  EXPECT_EQ(ErrorOf(good + garbage + tail + garbage),
            "query output has a target that does not decode at byte " + std::to_string(good.size() + 1));
}

TEST(QueryStream, RuleWithoutItsRuleMessageIsMalformed) {
  blaze_query::Target target;
  target.set_type(blaze_query::Target::RULE);
  EXPECT_EQ(ErrorOf(EncodeStream({target})), "query output has a target that does not decode at byte 1");
}

}  // namespace
}  // namespace pe::refdiff
