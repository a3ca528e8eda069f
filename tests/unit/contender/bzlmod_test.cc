// The reference on bzlmod as upstream bazel-diff 37 runs it on Bazel >= 8.6 (bzlmod_repos.h),
// against the fixture shim (generators/shim) playing that Bazel: the same workspace, once as a
// Bazel 4.2.3 WORKSPACE fixture with //external:<repo> rules and once as a Bazel 8.6 bzlmod
// fixture whose repositories only `mod show_repo` defines, must give the same impacted targets.
// The library half checks upstream's parsing and synthesis rules one by one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bzlmod_repos.h"
#include "fixture.h"
#include "query_stream.h"
#include "repository.pb.h"
#include "subprocess.h"

namespace pe::refdiff {
namespace {

namespace fs = std::filesystem;
using testing::EncodeStream;
using testing::Rule;
using testing::SourceFile;

const std::string kBzlmodBaseline = REFDIFF_BASELINE;
const std::string kBzlmodCandidate = REFDIFF_CANDIDATE;

blaze_query::Attribute StringAttribute(const std::string& name, const std::string& value) {
  blaze_query::Attribute attribute;
  attribute.set_name(name);
  attribute.set_type(blaze_query::Attribute::STRING);
  attribute.set_string_value(value);
  return attribute;
}

struct Repo {
  std::string name;  // apparent, and the WORKSPACE name
  std::string rule_class = "http_archive";
  std::vector<std::pair<std::string, std::string>> attributes;
};

std::string Canonical(const std::string& name) { return "+_repo_rules+" + name; }

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteAll(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// One revision of a two-package workspace whose //lib:lib uses @zlib and whose //local:user uses
// @inner (a local_repository under third_party/), with a third repository nothing uses.
struct Workspace {
  std::string lib_source = "int lib() { return 1; }\n";
  std::string inner_source = "int inner() { return 1; }\n";
  std::vector<Repo> repos = {
      {"zlib", "http_archive", {{"sha256", "aaaa"}, {"urls", "https://example.com/zlib.tar.gz"}}},
      {"png", "http_archive", {{"sha256", "bbbb"}, {"urls", "https://example.com/png.tar.gz"}}},
      {"inner", "local_repository", {{"path", "third_party/inner"}}},
  };

  std::vector<blaze_query::Target> MainTargets() const {
    return {
        SourceFile("//lib:lib.cc"),
        Rule("//lib:lib", "cc_library", {"//lib:lib.cc", "@zlib//:zlib"}, {{"srcs", "//lib:lib.cc"}}),
        SourceFile("//app:main.cc"),
        Rule("//app:app", "cc_binary", {"//app:main.cc", "//lib:lib"}, {{"deps", "//lib:lib"}}),
        Rule("//local:user", "cc_library", {"@inner//:inner"}, {{"deps", "@inner//:inner"}}),
        Rule("//other:other", "filegroup", {}, {{"tag", "x"}}),
    };
  }
};

// A fixture directory laid out as generators/bazel_shim_install.cc lays one out, the shim copied
// in (it finds shim.json beside its own executable, so a symlink would not do).
class ShimFixture {
 public:
  ShimFixture(const fs::path& dir, const Workspace& ws, bool bzlmod, const std::string& version) : dir_(dir) {
    fs::create_directories(dir_ / "output_base");
    fs::copy_file(PERFENGINE_SHIM, dir_ / "bazel", fs::copy_options::overwrite_existing);
    fs::permissions(dir_ / "bazel", fs::perms::owner_all);
    WriteAll(dir_ / "workspace/lib/lib.cc", ws.lib_source);
    WriteAll(dir_ / "workspace/app/main.cc", "int main() { return lib(); }\n");
    WriteAll(dir_ / "workspace/third_party/inner/inner.cc", ws.inner_source);
    nlohmann::ordered_json config = {
        {"output_base", "output_base"}, {"bazel_version", version}, {"bzlmod", bzlmod}, {"query_proto", "query.pb"}};
    std::vector<blaze_query::Target> targets = ws.MainTargets();
    if (!bzlmod) {
      // WORKSPACE: each repository is a //external: rule of the query's answer.
      WriteAll(dir_ / "workspace/WORKSPACE", "");
      for (const Repo& repo : ws.repos) {
        blaze_query::Target target = Rule("//external:" + repo.name, repo.rule_class);
        *target.mutable_rule()->add_attribute() = StringAttribute("name", repo.name);
        for (const auto& [name, value] : repo.attributes)
          *target.mutable_rule()->add_attribute() = StringAttribute(name, value);
        targets.insert(targets.begin(), target);
      }
    } else {
      // bzlmod: no //external package; `mod show_repo` defines the repositories.
      WriteAll(dir_ / "workspace/MODULE.bazel", "module(name = \"ws\")\n");
      nlohmann::ordered_json mapping = nlohmann::ordered_json::array({{"", ""}, {"bazel_tools", "bazel_tools"}});
      std::string repos;
      for (const Repo& repo : ws.repos) {
        mapping.push_back({repo.name, Canonical(repo.name)});
        blaze_query::Repository message;
        message.set_canonical_name(Canonical(repo.name));
        message.set_repo_rule_name(repo.rule_class);
        *message.add_attribute() = StringAttribute("name", Canonical(repo.name));
        for (const auto& [name, value] : repo.attributes) *message.add_attribute() = StringAttribute(name, value);
        const std::string bytes = message.SerializeAsString();
        repos += static_cast<char>(bytes.size());  // every message here is under 128 bytes
        repos += bytes;
      }
      mapping.push_back({"ws", ""});
      config["repo_mapping"] = mapping;
      config["repos_proto"] = "repos.pb";
      WriteAll(dir_ / "repos.pb", repos);
    }
    WriteAll(dir_ / "query.pb", EncodeStream(targets));
    WriteAll(dir_ / "shim.json", config.dump(2) + "\n");
  }

  ProcessResult Generate(const std::string& program, const std::string& out) const {
    return RunProcess({{program, "generate-hashes", "-w", (dir_ / "workspace").string(), "-b",
                        (dir_ / "bazel").string(), (dir_ / out).string()},
                       {},
                       {}});
  }
  fs::path workspace() const { return dir_ / "workspace"; }
  fs::path bazel() const { return dir_ / "bazel"; }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

class ContenderBzlmod : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "contender-bzlmod-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // The impacted targets between two revisions, //external:* included, as `program` reports them.
  std::string Impacted(const std::string& program, const Workspace& before, const Workspace& after, bool bzlmod,
                       const std::string& version) {
    const std::string mode = bzlmod ? "bzlmod" : "workspace";
    ShimFixture start(dir_ / (mode + "-start"), before, bzlmod, version);
    ShimFixture final_fixture(dir_ / (mode + "-final"), after, bzlmod, version);
    ProcessResult a = start.Generate(program, "hashes.json");
    ProcessResult b = final_fixture.Generate(program, "hashes.json");
    EXPECT_EQ(a.exit_code, 0) << a.stderr_text;
    EXPECT_EQ(b.exit_code, 0) << b.stderr_text;
    ProcessResult diff =
        RunProcess({{program, "get-impacted-targets", "-w", final_fixture.workspace().string(), "-b",
                     final_fixture.bazel().string(), "--no-excludeExternalTargets", "-sh",
                     (start.dir() / "hashes.json").string(), "-fh", (final_fixture.dir() / "hashes.json").string()},
                    {},
                    {}});
    EXPECT_EQ(diff.exit_code, 0) << diff.stderr_text;
    std::error_code ignored;
    fs::remove_all(start.dir(), ignored);
    fs::remove_all(final_fixture.dir(), ignored);
    return diff.stdout_text;
  }

  fs::path dir_;
};

TEST_F(ContenderBzlmod, SameImpactedTargetsAsTheWorkspacePath) {
  const Workspace base;
  Workspace source_edit = base;
  source_edit.lib_source = "int lib() { return 2; }\n";
  Workspace zlib_bump = base;
  zlib_bump.repos[0].attributes[0].second = "cccc";
  Workspace png_bump = base;
  png_bump.repos[1].attributes[1].second = "https://example.com/png-2.tar.gz";
  struct Case {
    const char* what;
    const Workspace* after;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"unchanged", &base, ""},
      {"a source edit", &source_edit, "//app:app\n//lib:lib\n//lib:lib.cc\n"},
      // A repository's rule changed: it and every rule that takes an input from it.
      {"zlib's sha256", &zlib_bump, "//app:app\n//external:zlib\n//lib:lib\n"},
      {"png's urls", &png_bump, "//external:png\n"},
  };
  for (const Case& c : cases) {
    for (const std::string& program : {kBzlmodBaseline, kBzlmodCandidate}) {
      const std::string workspace = Impacted(program, base, *c.after, false, "4.2.3");
      const std::string bzlmod = Impacted(program, base, *c.after, true, "8.6.0");
      EXPECT_EQ(workspace, c.expected) << c.what << ", WORKSPACE, " << program;
      EXPECT_EQ(bzlmod, c.expected) << c.what << ", bzlmod on 8.6.0, " << program;
    }
  }
}

// Before 8.6 there is no `mod show_repo --output=streamed_proto`: no synthetic target, so on
// Bazel 8.5 with WORKSPACE off a repository's change reaches nothing (upstream 37 alike).
TEST_F(ContenderBzlmod, ShowRepoOnlyFromBazel8Point6) {
  const Workspace base;
  Workspace zlib_bump = base;
  zlib_bump.repos[0].attributes[0].second = "cccc";
  EXPECT_EQ(Impacted(kBzlmodBaseline, base, zlib_bump, true, "8.5.1"), "");
  EXPECT_EQ(Impacted(kBzlmodBaseline, base, zlib_bump, true, "9.0.0"), "");
  EXPECT_EQ(Impacted(kBzlmodBaseline, base, zlib_bump, true, "9.0.1"), "//app:app\n//external:zlib\n//lib:lib\n");
  ShimFixture fixture(dir_ / "hashes", base, true, "8.6.0");
  ASSERT_EQ(fixture.Generate(kBzlmodCandidate, "hashes.json").exit_code, 0);
  const std::string json = ReadAll(fixture.dir() / "hashes.json");
  for (const char* label : {"\"//external:zlib\"", "\"//external:png\"", "\"//external:inner\""}) {
    EXPECT_NE(json.find(label), std::string::npos) << label;
  }
  EXPECT_EQ(json.find("_repo_rules"), std::string::npos);  // named by apparent name
}

// A local_repository's files are hashed into its synthetic target (upstream's
// _bazel_diff_content_hash), so an edit inside it impacts its users on the bzlmod path; the
// WORKSPACE path (upstream's too) sees only the rule's attributes.
TEST_F(ContenderBzlmod, LocalRepositoryEditImpactsItsUsers) {
  const Workspace base;
  Workspace inner_edit = base;
  inner_edit.inner_source = "int inner() { return 2; }\n";
  EXPECT_EQ(Impacted(kBzlmodCandidate, base, inner_edit, true, "8.6.0"), "//external:inner\n//local:user\n");
  EXPECT_EQ(Impacted(kBzlmodCandidate, base, inner_edit, false, "4.2.3"), "");
}

TEST(BzlmodRepos, ParseRepoMappingKeepsWhatUpstreamKeeps) {
  const RepoMapping mapping = ParseRepoMapping(
      "{\"\":\"\",\"ws\":\"\",\"bazel_tools\":\"bazel_tools\",\"local_config_platform\":\"local_config_platform\","
      "\"rules_cc\":\"rules_cc+\",\"maven\":\"rules_jvm_external++maven+maven\",\"legacy\":\"legacy\","
      "\"jb\":\"rules_java_builtin\"}\n\n");
  EXPECT_EQ(
      mapping,
      (RepoMapping{{"rules_cc", "rules_cc+"}, {"maven", "rules_jvm_external++maven+maven"}, {"legacy", "legacy"}}));
  // WORKSPACE repositories (no '+' or '~') are left to //external; each canonical name once.
  EXPECT_EQ(ShowRepoArguments({{"a", "rules_cc+"}, {"b", "rules_cc+"}, {"legacy", "legacy"}, {"old", "x~1.0"}}),
            (std::vector<std::string>{"@@rules_cc+", "@@x~1.0"}));
  EXPECT_TRUE(ParseRepoMapping("not json\n").empty());
  EXPECT_TRUE(ParseRepoMapping("{\"a\": 1}\n").empty());
}

TEST(BzlmodRepos, ModuleEdgesDropTheEdgeThatClosesACycle) {
  // rules_go -> gazelle -> rules_go (a dev_dependency cycle, as upstream's comment describes).
  const std::string graph =
      "Loading: 0 packages\n{\"key\":\"<root>\",\"name\":\"ws\",\"dependencies\":["
      "{\"key\":\"rules_go@1\",\"name\":\"rules_go\",\"dependencies\":["
      "{\"key\":\"gazelle@1\",\"name\":\"gazelle\",\"dependencies\":[{\"key\":\"rules_go@1\",\"name\":\"rules_go\","
      "\"unexpanded\":true}]}]}]}";
  const auto edges = ModuleDepEdges(graph);
  // gazelle sorts first, so the walk keeps gazelle -> rules_go and drops the edge back.
  EXPECT_EQ(edges.at("ws"), (std::vector<std::string>{"rules_go"}));
  EXPECT_EQ(edges.at("gazelle"), (std::vector<std::string>{"rules_go"}));
  EXPECT_EQ(edges.at("rules_go"), (std::vector<std::string>{}));
  EXPECT_TRUE(ModuleDepEdges("no json at all").empty());
}

TEST(BzlmodRepos, SyntheticTargetsFollowModuleEdges) {
  auto repository = [](const std::string& canonical, const std::string& rule_class) {
    blaze_query::Repository repo;
    repo.set_canonical_name(canonical);
    repo.set_repo_rule_name(rule_class);
    *repo.add_attribute() = StringAttribute("name", canonical);
    return repo.SerializeAsString();
  };
  std::string stream;
  for (const std::string& bytes : {repository("outer+", "http_archive"), repository("inner+", ""),
                                   repository("rules_jvm_external++maven+maven", "coursier_fetch")}) {
    stream += static_cast<char>(bytes.size());
    stream += bytes;
  }
  const RepoMapping mapping = {
      {"outer", "outer+"}, {"inner_alias", "inner+"}, {"maven", "rules_jvm_external++maven+maven"}};
  const std::string graph =
      "{\"name\":\"ws\",\"dependencies\":[{\"name\":\"outer\",\"dependencies\":[{\"name\":\"inner\"}]}]}";
  const std::vector<Target> targets = DecodeTargets(SyntheticRepoTargets(stream, mapping, graph, "/nonexistent"), 1);
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].label, "//external:outer");
  EXPECT_EQ(targets[0].inputs, (std::vector<std::string>{"//external:inner_alias"}));
  EXPECT_EQ(targets[1].label, "//external:inner_alias");
  EXPECT_TRUE(targets[1].inputs.empty());
  EXPECT_EQ(targets[2].label, "//external:maven");  // an extension's repository: no module edges
  // Without the module graph the rules stand alone.
  const std::vector<Target> alone = DecodeTargets(SyntheticRepoTargets(stream, mapping, std::nullopt, "/"), 1);
  EXPECT_TRUE(alone[0].inputs.empty());
  // The judge for the rule itself: the same rule built by hand, with an empty repo_rule_name
  // standing for "bzlmod_repo" and the repository's attributes, hashes the same.
  blaze_query::Target expected = Rule("//external:inner_alias", "bzlmod_repo");
  expected.mutable_rule()->clear_location();
  *expected.mutable_rule()->add_attribute() = StringAttribute("name", "inner+");
  EXPECT_EQ(DecodeTargets(EncodeStream({expected}), 1)[0].rule_body, targets[1].rule_body);
  // The query's own //external:outer wins over the synthetic one.
  std::vector<Target> query(1);
  query[0].label = "//external:outer";
  AppendSyntheticTargets(query, SyntheticRepoTargets(stream, mapping, graph, "/"), 1);
  ASSERT_EQ(query.size(), 3u);
  EXPECT_TRUE(query[0].inputs.empty());
}

TEST(BzlmodRepos, ContentHashIsUpstreams) {
  std::string pattern = (fs::temp_directory_path() / "contender-repo-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern;
  WriteAll(dir / "b.txt", "B");
  WriteAll(dir / "sub/a.txt", "A");
  WriteAll(dir / "MODULE.bazel.lock", "ignored");
  // sha256("b.txt\0B\0sub/a.txt\0A\0"), computed independently with sha256sum.
  EXPECT_EQ(LocalRepoContentHash(dir), "569d951852d5f72e6d2a8687f7ba5bb82a5dccb9a4640fa94b13de2859492a6f");
  EXPECT_EQ(LocalRepoContentHash(dir / "missing"), std::nullopt);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pe::refdiff
