// The bzlmod shape of the Bazel fixtures (stream = "bzlmod", generators/bzlmod_fixture.h): the
// same main-repository targets as the WORKSPACE recording, no //external package, and a shim
// that plays Bazel 8.6 (dump_repo_mapping, show_repo) and refuses what older Bazels lack.
#include "generators/bzlmod_fixture.h"

#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "build.pb.h"
#include "generators/bazel_graph.h"
#include "generators/file_io.h"
#include "generators/sha256.h"
#include "repository.pb.h"
#include "test_util.h"

namespace pe::gen {
namespace {

namespace fs = std::filesystem;
using testing::Generate;
using testing::RunProgram;
using testing::RunResult;
using testing::ScratchDir;

// The varint-delimited messages of a stream, each parsed as M (required fields checked).
template <class M>
std::vector<M> BzlmodFixtureDecode(const std::string& data) {
  std::vector<M> messages;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(data.data()),
                                            static_cast<int>(data.size()));
  std::uint32_t size = 0;
  while (in.ReadVarint32(&size)) {
    const auto limit = in.PushLimit(static_cast<int>(size));
    M message;
    EXPECT_TRUE(message.ParsePartialFromCodedStream(&in));
    EXPECT_TRUE(message.IsInitialized()) << message.InitializationErrorString();
    in.PopLimit(limit);
    messages.push_back(std::move(message));
  }
  return messages;
}

std::string LabelOf(const blaze_query::Target& target) {
  switch (target.type()) {
    case blaze_query::Target::RULE:
      return target.rule().name();
    case blaze_query::Target::SOURCE_FILE:
      return target.source_file().name();
    case blaze_query::Target::GENERATED_FILE:
      return target.generated_file().name();
    default:
      return target.package_group().name();
  }
}

const Params kBzlmodFixtureSmall = {
    {"targets", std::int64_t{300}}, {"fan_in", std::int64_t{3}}, {"source_bytes", std::int64_t{100}}};

Params With(Params params, const std::string& key, ParamValue value) {
  params[key] = std::move(value);
  return params;
}

class BzlmodFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    workspace_ = Generate("bazel_workspace", kBzlmodFixtureSmall, dir_.path() / "ws");
    bzlmod_ =
        Generate("bazel_workspace", With(kBzlmodFixtureSmall, "stream", std::string("bzlmod")), dir_.path() / "bzlmod");
  }

  RunResult Bazel(std::vector<std::string> args) {
    args.insert(args.begin(), (bzlmod_ / "bazel").string());
    return RunProgram(args, bzlmod_ / "workspace", dir_.path());
  }

  ScratchDir dir_;
  fs::path workspace_, bzlmod_;
};

// The default is the WORKSPACE recording, byte for byte (its digests are pinned elsewhere).
TEST_F(BzlmodFixture, WorkspaceIsTheDefaultStream) {
  const fs::path named =
      Generate("bazel_workspace", With(kBzlmodFixtureSmall, "stream", std::string("workspace")), dir_.path() / "n");
  EXPECT_EQ(ReadFile(named / "query.pb"), ReadFile(workspace_ / "query.pb"));
  EXPECT_EQ(ReadFile(named / "shim.json"), ReadFile(workspace_ / "shim.json"));
  EXPECT_FALSE(fs::exists(workspace_ / "repos.pb"));
  EXPECT_FALSE(fs::exists(workspace_ / "workspace/MODULE.bazel"));
}

// The bzlmod shape is a pure function of (params, seed) too: its new files pinned.
TEST_F(BzlmodFixture, BzlmodBytesArePinned) {
  EXPECT_EQ(Sha256FileHex(bzlmod_ / "query.pb"), "2a7841e28d8e2655b15e6694baccf5d17aa97b63c781379a172409e443a66036");
  EXPECT_EQ(Sha256FileHex(bzlmod_ / "repos.pb"), "3c5ef0da6b055dac84935b6208673bf7c73d8e22ed89c38dfafdf624f301e287");
  EXPECT_EQ(Sha256FileHex(bzlmod_ / "workspace/MODULE.bazel"),
            "dd31b40edeacfb1ce262eed42fef9c06dff8d8b8169b4a29c56a4a07de4f9736");
  EXPECT_EQ(Sha256FileHex(bzlmod_ / "shim.json"), "3bfc3db86c49f4d40164ec929cf388d20a2a384d724797b72ce97a483f131820");
}

// Bazel 8 with WORKSPACE off: no //external: target; every other target is the recording's,
// byte for byte, since the only other repository its labels name is @bazel_tools, which the
// root module sees under that name.
TEST_F(BzlmodFixture, StreamIsTheRecordingWithoutTheExternalPackage) {
  const auto recorded = BzlmodFixtureDecode<blaze_query::Target>(ReadFile(workspace_ / "query.pb"));
  const auto bzlmod = BzlmodFixtureDecode<blaze_query::Target>(ReadFile(bzlmod_ / "query.pb"));
  std::vector<std::string> expected;
  std::size_t externals = 0;
  for (const auto& target : recorded) {
    if (LabelOf(target).starts_with("//external:")) {
      ++externals;
      continue;
    }
    expected.push_back(target.SerializeAsString());
  }
  EXPECT_EQ(externals, 37u);  // 4.2.3's 30 defaults, the workspace's own, WORKSPACE's 5, //external:WORKSPACE
  ASSERT_EQ(bzlmod.size(), expected.size());
  for (std::size_t i = 0; i < bzlmod.size(); ++i) {
    EXPECT_EQ(bzlmod[i].SerializeAsString(), expected[i]) << LabelOf(bzlmod[i]);
  }
  bool bazel_tools = false;
  for (const auto& target : bzlmod) {
    if (target.type() != blaze_query::Target::RULE) continue;
    for (const auto& input : target.rule().rule_input()) bazel_tools |= input.starts_with("@bazel_tools//");
  }
  EXPECT_TRUE(bazel_tools);
}

TEST(BzlmodLabels, DisplayFormIsApparentWhereTheRootSeesTheRepository) {
  BazelGraph graph;
  graph.externals = {"zlib"};
  const RepoMapping root = RootRepoMapping(graph);
  EXPECT_EQ(root,
            (RepoMapping{
                {"", ""}, {"bazel_tools", "bazel_tools"}, {"perfengine_fixture", ""}, {"zlib", "+_repo_rules+zlib"}}));
  EXPECT_EQ(RepoMappingJson(root),
            R"({"":"","bazel_tools":"bazel_tools","perfengine_fixture":"","zlib":"+_repo_rules+zlib"})");
  EXPECT_EQ(DisplayLabel("@bazel_tools//tools/cpp:toolchain", root), "@bazel_tools//tools/cpp:toolchain");
  EXPECT_EQ(DisplayLabel("+_repo_rules+zlib", "//:zlib", root), "@zlib//:zlib");
  EXPECT_EQ(DisplayLabel("@@+_repo_rules+zlib//:zlib", root), "@zlib//:zlib");
  // A repository the root module does not see keeps its canonical name, with @@.
  EXPECT_EQ(DisplayLabel("@rules_java//toolchains:x", root), "@@rules_java//toolchains:x");
  EXPECT_EQ(DisplayLabel("rules_java+", "//toolchains:x", root), "@@rules_java+//toolchains:x");
  EXPECT_EQ(DisplayLabel("//src/l00:mod0", root), "//src/l00:mod0");
  EXPECT_EQ(DisplayLabel("", "//src/l00:mod0", root), "//src/l00:mod0");
}

TEST_F(BzlmodFixture, ShimPlaysBazel8Point6) {
  RunResult r = Bazel({"version"});
  EXPECT_EQ(r.out.rfind("Build label: 8.6.0\n", 0), 0u) << r.out;
  r = Bazel({"mod", "dump_repo_mapping", ""});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  const nlohmann::ordered_json mapping = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(mapping.at("perfengine_fixture"), "");
  EXPECT_EQ(mapping.at("bazel_tools"), "bazel_tools");

  // The MODULE.bazel declares each repository; show_repo defines it with the same attributes.
  const std::string module = ReadFile(bzlmod_ / "workspace/MODULE.bazel");
  EXPECT_TRUE(module.starts_with("module(name = \"perfengine_fixture\")\n")) << module;
  std::vector<std::string> arguments = {"mod", "show_repo"};
  std::vector<std::string> names;
  for (const auto& [apparent, canonical] : mapping.items()) {
    if (canonical.get<std::string>().find('+') == std::string::npos) continue;
    EXPECT_EQ(canonical, "+_repo_rules+" + apparent);
    EXPECT_NE(module.find("    name = \"" + apparent + "\",\n"), std::string::npos) << apparent;
    arguments.push_back("@@" + canonical.get<std::string>());
    names.push_back(apparent);
  }
  ASSERT_EQ(names.size(), 5u);
  std::reverse(arguments.begin() + 2, arguments.end());  // the answer follows the arguments' order
  std::reverse(names.begin(), names.end());
  arguments.push_back("--output=streamed_proto");
  r = Bazel(arguments);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto repos = BzlmodFixtureDecode<blaze_query::Repository>(r.out);
  ASSERT_EQ(repos.size(), names.size());
  for (std::size_t i = 0; i < repos.size(); ++i) {
    EXPECT_EQ(repos[i].canonical_name(), "+_repo_rules+" + names[i]);
    EXPECT_EQ(repos[i].repo_rule_name(), "http_archive");
    EXPECT_EQ(repos[i].repo_rule_bzl_label(), "@@bazel_tools//tools/build_defs/repo:http.bzl");
    std::string sha256;
    for (const auto& attribute : repos[i].attribute()) {
      if (attribute.name() == "sha256") sha256 = attribute.string_value();
    }
    EXPECT_EQ(sha256.size(), 64u);
    EXPECT_NE(module.find("sha256 = \"" + sha256 + "\""), std::string::npos) << names[i];
  }
  r = Bazel({"mod", "show_repo", "@@nope+", "--output=streamed_proto"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ERROR: In repo argument @@nope+: no such repo\n");
  // And no //external package, so upstream 37's first query fails and its retry succeeds.
  WriteFile(dir_.path() / "with.txt", "'//external:all-targets' + '//...:all-targets'");
  r = Bazel({"query", "--output", "streamed_proto", "--query_file", (dir_.path() / "with.txt").string()});
  EXPECT_EQ(r.exit_code, 7);
}

// A label as Bazel 8 orders it (Label.compareTo): the repository's canonical name ("" for the
// main one; an apparent "@name" through the root module's mapping, a "@@canonical" as it is),
// then the package, then the name.
struct Bazel8Key {
  std::string repository, package, name;
  auto operator<=>(const Bazel8Key&) const = default;
};
Bazel8Key KeyOf(const std::string& label, const nlohmann::ordered_json& mapping) {
  Bazel8Key key;
  const std::size_t slashes = label.find("//");
  const std::size_t colon = label.find(':', slashes);
  EXPECT_NE(slashes, std::string::npos) << label;
  EXPECT_NE(colon, std::string::npos) << label;
  if (label.starts_with("@@")) {
    key.repository = label.substr(2, slashes - 2);
  } else if (label.starts_with("@")) {
    const std::string apparent = label.substr(1, slashes - 1);
    EXPECT_TRUE(mapping.contains(apparent)) << label << ": the root module sees no repository " << apparent;
    if (mapping.contains(apparent)) key.repository = mapping.at(apparent).get<std::string>();
  }
  key.package = label.substr(slashes + 2, colon - slashes - 2);
  key.name = label.substr(colon + 1);
  return key;
}

// The calibrated shape's rules name the fixture's own repositories (external_fraction). In the
// bzlmod stream each such label is what Bazel 8.6 prints: the display form through the root
// module's mapping (dump_repo_mapping's answer: "@zlib//:zlib", never "@@"), for a repository
// show_repo defines, and a rule's inputs in Bazel 8's label order, which compares canonical
// names: "+_repo_rules+zlib" sorts before "bazel_tools", so a rule's own repositories come
// before its implicit @bazel_tools inputs (Bazel 4.2.3 put them after: "@bazel_tools" < "@zlib").
TEST_F(BzlmodFixture, CalibratedShapesRepositoryLabelsAreWhatBazel8Prints) {
  const Params calibrated = {{"targets", std::int64_t{3000}},
                             {"shape", std::string("calibrated")},
                             {"source_bytes", std::int64_t{100}},
                             {"stream", std::string("bzlmod")}};
  bzlmod_ = Generate("bazel_workspace", calibrated, dir_.path() / "calibrated");
  RunResult r = Bazel({"mod", "dump_repo_mapping", ""});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::ordered_json mapping = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> show = {"mod", "show_repo"};
  for (const auto& [apparent, canonical] : mapping.items()) {
    if (canonical.get<std::string>().find('+') != std::string::npos)
      show.push_back("@@" + canonical.get<std::string>());
  }
  show.push_back("--output=streamed_proto");
  r = Bazel(show);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> defined = {"bazel_tools"};  // Bazel's own, visible from every module
  for (const auto& repo : BzlmodFixtureDecode<blaze_query::Repository>(r.out)) defined.insert(repo.canonical_name());

  int external_rules = 0, with_bazel_tools = 0;
  for (const auto& target : BzlmodFixtureDecode<blaze_query::Target>(ReadFile(bzlmod_ / "query.pb"))) {
    if (target.type() != blaze_query::Target::RULE) continue;
    const blaze_query::Rule& rule = target.rule();
    std::vector<std::string> labels(rule.rule_input().begin(), rule.rule_input().end());
    for (const auto& attribute : rule.attribute()) {
      if (attribute.type() == blaze_query::Attribute::LABEL) labels.push_back(attribute.string_value());
      if (attribute.type() == blaze_query::Attribute::LABEL_LIST) {
        labels.insert(labels.end(), attribute.string_list_value().begin(), attribute.string_list_value().end());
      }
    }
    bool external = false;
    for (const std::string& label : labels) {
      if (!label.starts_with("@")) continue;
      EXPECT_FALSE(label.starts_with("@@")) << rule.name() << ": " << label;
      const std::string repository = KeyOf(label, mapping).repository;
      EXPECT_TRUE(defined.contains(repository)) << rule.name() << ": " << label;
      external |= repository != "bazel_tools";
    }
    std::vector<Bazel8Key> keys;
    bool bazel_tools = false;
    for (const std::string& input : rule.rule_input()) {
      keys.push_back(KeyOf(input, mapping));
      bazel_tools |= keys.back().repository == "bazel_tools";
    }
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end())) << rule.name() << " lists its inputs out of Bazel 8's order";
    external_rules += external ? 1 : 0;
    with_bazel_tools += external && bazel_tools ? 1 : 0;
  }
  // The order is tested where it matters: rules with both kinds of input.
  EXPECT_GT(external_rules, 10);
  EXPECT_GT(with_bazel_tools, 5);
}

TEST(BazelShim, RefusesModSubcommandsItsVersionLacks) {
  ScratchDir dir;
  auto shim = [&](const std::string& version, bool bzlmod) {
    return Generate("bazel_shim", {{"bazel_version", version}, {"bzlmod", bzlmod}}, dir.path() / version);
  };
  auto run = [&](const fs::path& fixture, std::vector<std::string> args) {
    args.insert(args.begin(), (fixture / "bazel").string());
    return RunProgram(args, fixture, dir.path());
  };
  const std::vector<std::string> show = {"mod", "show_repo", "@@zlib+", "--output=streamed_proto"};
  RunResult r = run(shim("7.0.2", true), {"mod", "dump_repo_mapping", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ERROR: Invalid subcommand: dump_repo_mapping. Type 'bazel help mod' for syntax and help.\n");
  r = run(shim("7.1.0", true), {"mod", "dump_repo_mapping", ""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"\":\"\",\"bazel_tools\":\"bazel_tools\"}\n");
  for (const std::string version : {"8.5.1", "9.0.0"}) {
    r = run(shim(version, true), show);
    EXPECT_EQ(r.exit_code, 2) << version;
    EXPECT_EQ(r.err,
              "ERROR: While parsing option --output=streamed_proto: Not a valid output format: 'streamed_proto' "
              "(should be text, json or graph)\n")
        << version;
  }
  // 9.0.1 has it; this fixture has no repository to show.
  r = run(shim("9.0.1", true), show);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ERROR: In repo argument @@zlib+: no such repo\n");
  r = run(shim("8.6.0", false), show);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Bzlmod has to be enabled"), std::string::npos) << r.err;
}

// The stream and the shim tell one story: a WORKSPACE stream lists //external, which only a
// Bazel with WORKSPACE on has; a bzlmod stream has none, which only Bazel 8 with bzlmod has.
TEST(BazelShim, StreamAndVersionMustAgree) {
  auto error = [](const Params& params) -> std::string {
    try {
      BuiltinRegistry().Create("bazel_workspace")->Check(params);
    } catch (const ParamError& e) {
      return e.key + ": " + e.what();
    }
    return "";
  };
  EXPECT_EQ(error({{"stream", std::string("bzlmod")}}), "");
  EXPECT_EQ(error({{"stream", std::string("bzlmod")}, {"bazel_version", std::string("8.0.0")}}), "");
  EXPECT_EQ(error({{"stream", std::string("bzlmod")}, {"bazel_version", std::string("7.4.1")}}),
            "bazel_version: stream = \"bzlmod\" has no //external package, as Bazel 8.0.0 or later with bzlmod "
            "answers; bazel_version is 7.4.1");
  EXPECT_EQ(error({{"stream", std::string("bzlmod")}, {"bzlmod", false}}),
            "bzlmod: stream = \"bzlmod\" has no //external package, as Bazel 8.0.0 or later with bzlmod answers; "
            "bazel_version is 8.6.0 and bzlmod is false");
  EXPECT_EQ(error({{"bazel_version", std::string("8.2.1")}, {"bzlmod", true}}),
            "stream: a WORKSPACE stream lists //external, which Bazel 8.2.1 with bzlmod does not have: set stream = "
            "\"bzlmod\"");
  EXPECT_EQ(error({{"bazel_version", std::string("7.4.1")}, {"bzlmod", true}}), "");
  EXPECT_EQ(error({{"stream", std::string("bzl")}}),
            "stream: 'stream' must be \"workspace\" or \"bzlmod\", not \"bzl\"");
}

}  // namespace
}  // namespace pe::gen
