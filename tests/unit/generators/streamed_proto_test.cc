#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>

#include "build.pb.h"
#include "generators/file_io.h"
#include "generators/sha256.h"
#include "test_util.h"

namespace pe::gen {
namespace {

using testing::Generate;
using testing::ScratchDir;

std::vector<blaze_query::Target> Decode(const std::string& data) {
  std::vector<blaze_query::Target> targets;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(data.data()),
                                            static_cast<int>(data.size()));
  std::uint32_t size = 0;
  while (in.ReadVarint32(&size)) {
    const auto limit = in.PushLimit(static_cast<int>(size));
    blaze_query::Target target;
    EXPECT_TRUE(target.ParsePartialFromCodedStream(&in));
    EXPECT_TRUE(target.IsInitialized()) << target.InitializationErrorString();
    in.PopLimit(limit);
    targets.push_back(std::move(target));
  }
  return targets;
}

const Params kStreamedProtoSmall = {{"targets", std::int64_t{300}}, {"fan_in", std::int64_t{3}}};

TEST(StreamedProto, BytesArePinned) {
  ScratchDir dir;
  Generate("streamed_proto", kStreamedProtoSmall, dir.path() / "a", 1);
  Generate("streamed_proto", kStreamedProtoSmall, dir.path() / "b", 1);
  Generate("streamed_proto", kStreamedProtoSmall, dir.path() / "c", 2);
  const std::string a = Sha256FileHex(dir.path() / "a" / "query.pb");
  EXPECT_EQ(a, Sha256FileHex(dir.path() / "b" / "query.pb"));
  EXPECT_NE(a, Sha256FileHex(dir.path() / "c" / "query.pb"));
  EXPECT_EQ(a, "656e89c8b34b53046248c34d3158b7e4bd3fa0dec2ae98a73813ad9a64024507");
}

TEST(StreamedProto, DecodesWithRequiredFieldsAndExactCount) {
  ScratchDir dir;
  Generate("streamed_proto", kStreamedProtoSmall, dir.path());
  const auto targets = Decode(ReadFile(dir.path() / "query.pb"));
  ASSERT_EQ(targets.size(), 300u);
  int externals = 0;
  int macro_rules = 0;
  for (const auto& target : targets) {
    if (target.type() != blaze_query::Target::RULE) continue;
    const auto& rule = target.rule();
    if (rule.name().rfind("//external:", 0) == 0) {
      ++externals;
      continue;
    }
    EXPECT_TRUE(std::is_sorted(rule.rule_input().begin(), rule.rule_input().end()));
    ASSERT_FALSE(rule.instantiation_stack().empty());
    EXPECT_EQ(rule.instantiation_stack(0), rule.location() + ": <toplevel>");
    if (rule.instantiation_stack_size() == 2) ++macro_rules;
  }
  // Bazel 4.2.3's 30 default repositories, the workspace's own, and the 5 of the WORKSPACE.
  EXPECT_EQ(externals, 36);
  EXPECT_GT(macro_rules, 0);
}

TEST(StreamedProto, ScaleMultipliesTargets) {
  ScratchDir dir;
  Generate("streamed_proto", kStreamedProtoSmall, dir.path(), 1, 2.5);
  EXPECT_EQ(Decode(ReadFile(dir.path() / "query.pb")).size(), 750u);
}

TEST(StreamedProto, FirstRuleLooksLikeQueryOutput) {
  ScratchDir dir;
  Generate("streamed_proto", kStreamedProtoSmall, dir.path());
  const auto targets = Decode(ReadFile(dir.path() / "query.pb"));
  // After Bazel's own 30 repositories, //external:WORKSPACE, the workspace's repository and
  // the 5 of the WORKSPACE: //src/l00/p00000:BUILD (which loads defs.bzl, not a target), then
  // the package's targets by name, so the first rule is :mod0.
  ASSERT_GT(targets.size(), 39u);
  EXPECT_EQ(targets[30].source_file().name(), "//external:WORKSPACE");
  EXPECT_EQ(targets[31].rule().name(), "//external:perfengine_fixture");
  EXPECT_EQ(targets[37].source_file().name(), "//src/l00/p00000:BUILD");
  EXPECT_EQ(targets[37].source_file().subinclude(0), "//src/l00/p00000:defs.bzl");
  std::size_t first_rule = 38;
  while (first_rule < targets.size() && !targets[first_rule].has_rule()) ++first_rule;
  ASSERT_LT(first_rule, targets.size());
  const auto& rule = targets[first_rule].rule();
  EXPECT_EQ(rule.name(), "//src/l00/p00000:mod0");
  EXPECT_EQ(rule.location().rfind("src/l00/p00000/BUILD:3:", 0), 0u) << rule.location();
}

}  // namespace
}  // namespace pe::gen
