// Real Bazel 4.2.3 against the Bazel fixtures: the workspace the generators write must load in
// real Bazel, and `bazel query` over it (the query bazel-diff runs) must print what the
// generated streamed_proto says: the same targets, and for each the same message, field for
// field, once the absolute paths only a real run has are made relative. So every default
// attribute, implicit input and implicit output in the fixture is what Bazel itself prints.
#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "build.pb.h"
#include "generators/bazel_graph.h"
#include "generators/query_proto.h"
#include "generators/source_tree.h"
#include "subprocess.h"

namespace pe::refdiff {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRealBazel = "/usr/bin/bazel";
// Where scripts/record-bazel-4.2.3.py puts Bazel's output base in the recorded targets.
constexpr const char* kRecordedOutputRoot = "/home/user/.cache/bazel/_bazel_user";

std::string Name(const blaze_query::Target& t) {
  if (t.has_rule()) return t.rule().name();
  if (t.has_source_file()) return t.source_file().name();
  if (t.has_package_group()) return t.package_group().name();
  return t.generated_file().name();
}

std::map<std::string, blaze_query::Target> Decode(const std::string& data) {
  std::map<std::string, blaze_query::Target> targets;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(data.data()),
                                            static_cast<int>(data.size()));
  std::uint32_t size = 0;
  while (in.ReadVarint32(&size)) {
    const auto limit = in.PushLimit(static_cast<int>(size));
    blaze_query::Target target;
    EXPECT_TRUE(target.ParseFromCodedStream(&in));
    in.PopLimit(limit);
    const std::string name = Name(target);
    EXPECT_TRUE(targets.emplace(name, std::move(target)).second) << "listed twice: " << name;
  }
  return targets;
}

void Replace(std::string* text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text->find(from, at)) != std::string::npos; at += to.size()) {
    text->replace(at, from.size(), to);
  }
}

// Real Bazel names files by absolute path, in the workspace and in its output_user_root; the
// fixture cannot know either, so it names them relative to the workspace, and as recorded.
void Normalise(blaze_query::Target* t, const std::string& workspace, const std::string& root) {
  const auto fix = [&](std::string* s) {
    Replace(s, workspace + "/", "");
    Replace(s, root, kRecordedOutputRoot);
  };
  if (t->has_rule()) {
    fix(t->mutable_rule()->mutable_location());
    for (std::string& frame : *t->mutable_rule()->mutable_instantiation_stack()) fix(&frame);
  } else if (t->has_source_file()) {
    fix(t->mutable_source_file()->mutable_location());
  } else if (t->has_generated_file()) {
    fix(t->mutable_generated_file()->mutable_location());
  }
}

// Generates a workspace of `options`, queries it with real Bazel and compares target by target;
// every class of `classes` must be among the rules.
void ExpectRealBazelPrintsTheGeneratedStream(const gen::GraphOptions& options, std::int64_t source_bytes,
                                             const std::vector<std::string>& classes) {
  ASSERT_TRUE(fs::exists(kRealBazel)) << "real Bazel is missing: install bazel-bootstrap (scripts/install-deps.sh)";
  std::string pattern = (fs::temp_directory_path() / "perfengine-real-bazel-ws-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern;
  const fs::path workspace = dir / "workspace";
  const fs::path root = dir / "bazel-root";

  const gen::BazelGraph graph = gen::BuildGraph(options, 11);
  gen::WriteSourceTree(graph, {.source_bytes = source_bytes}, workspace);
  gen::WriteQueryProto(graph, dir / "query.pb");
  std::ifstream generated_file(dir / "query.pb", std::ios::binary);
  const std::string generated_bytes{std::istreambuf_iterator<char>(generated_file), std::istreambuf_iterator<char>()};

  // The query bazel-diff runs (contenders/bazel-diff-ref/bazel_client.cc), batch mode, our root.
  const ProcessResult query =
      RunProcess({{kRealBazel, "--batch", "--output_user_root=" + root.string(), "--nohome_rc", "query",
                   "//external:all-targets + //...:all-targets", "--output=streamed_proto", "--order_output=no",
                   "--proto:instantiation_stack"},
                  workspace,
                  {}});
  ASSERT_EQ(query.exit_code, 0) << "real Bazel could not load the generated workspace:\n" << query.stderr_text;

  auto real = Decode(query.stdout_text);
  auto ours = Decode(generated_bytes);
  // The output_user_root's directory under root is a hash of the workspace path.
  std::string real_root;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory() && entry.path().filename().string().size() == 32) real_root = entry.path().string();
  }
  ASSERT_FALSE(real_root.empty());
  const std::string real_workspace = fs::canonical(workspace).string();
  for (auto& [name, target] : real) Normalise(&target, real_workspace, real_root);

  std::vector<std::string> only_real, only_ours;
  for (const auto& [name, target] : real) {
    if (!ours.count(name)) only_real.push_back(name);
  }
  for (const auto& [name, target] : ours) {
    if (!real.count(name)) only_ours.push_back(name);
  }
  EXPECT_EQ(only_real, std::vector<std::string>{}) << "targets real Bazel lists that the fixture lacks";
  EXPECT_EQ(only_ours, std::vector<std::string>{}) << "targets the fixture lists that real Bazel does not";
  EXPECT_EQ(ours.size(), static_cast<std::size_t>(graph.TargetCount()));

  int rules = 0, differing = 0, package_groups = 0;
  std::map<std::string, int> seen;
  for (const auto& [name, target] : ours) {
    const auto it = real.find(name);
    if (it == real.end()) continue;
    package_groups += target.has_package_group() ? 1 : 0;
    if (target.has_rule()) {
      ++rules;
      ++seen[target.rule().rule_class()];
    }
    if (target.SerializeAsString() != it->second.SerializeAsString() && ++differing <= 3) {
      ADD_FAILURE() << name << " differs from real Bazel's.\nreal:\n"
                    << it->second.DebugString() << "\nfixture:\n"
                    << target.DebugString();
    }
  }
  EXPECT_EQ(differing, 0);
  for (const std::string& rule_class : classes) EXPECT_GT(seen[rule_class], 0) << rule_class;
  EXPECT_GT(rules, 100);
  EXPECT_EQ(package_groups, static_cast<int>(graph.packages.size()));

  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

TEST(RealBazelWorkspace, QueryOverTheGeneratedWorkspacePrintsTheGeneratedStream) {
  // Every rule class, macros, several layers and packages, a short last package.
  gen::GraphOptions options;
  options.targets = 420;
  options.fan_in = 3;
  options.layers = 4;
  options.rules_per_package = 6;
  options.external_targets = 4;
  ExpectRealBazelPrintsTheGeneratedStream(options, 16,
                                          {"genrule", "cc_library", "java_library", "py_library", "http_archive"});
}

// The calibrated shape: tests, binaries (implicit outputs), filegroups, aliases, config_settings
// and select() on them, a Starlark rule with its $rule_implementation_hash, external
// repositories named in deps and srcs, deps from deeper layers: all as real Bazel prints them.
TEST(RealBazelWorkspace, TheCalibratedShapeTooPrintsTheGeneratedStream) {
  gen::GraphOptions options;
  options.targets = 900;
  options.fan_in = 3;
  options.layers = 4;
  options.rules_per_package = 8;
  options.external_targets = 6;
  options.shape = gen::CalibratedShape();
  // Enough of every kind in 900 targets to see each.
  options.shape.select_fraction = 0.5;
  options.shape.config_setting_fraction = 0.08;
  options.shape.alias_fraction = 0.08;
  options.shape.external_fraction = 0.4;
  options.shape.source_bytes_sigma = 1;
  ExpectRealBazelPrintsTheGeneratedStream(
      options, 64,
      {"genrule", "cc_library", "java_library", "py_library", "cc_binary", "cc_test", "filegroup", "alias",
       "config_setting", "my_rule", "http_archive"});
  const gen::BazelGraph graph = gen::BuildGraph(options, 11);
  int selects = 0, externals = 0;
  for (const auto& rule : graph.rules) {
    selects += rule.select ? 1 : 0;
    externals += rule.external_deps.empty() ? 0 : 1;
  }
  EXPECT_GT(selects, 0);
  EXPECT_GT(externals, 0);
}

}  // namespace
}  // namespace pe::refdiff
