#include <gtest/gtest.h>
#include <sys/stat.h>

#include "generators/file_io.h"
#include "generators/sha256.h"
#include "test_util.h"

namespace pe::gen {
namespace {

namespace fs = std::filesystem;
using testing::Generate;
using testing::RunProgram;
using testing::RunResult;
using testing::ScratchDir;
using testing::TreeDigest;

const Params kSmall = {
    {"targets", std::int64_t{300}}, {"fan_in", std::int64_t{3}}, {"source_bytes", std::int64_t{100}}};

class BazelWorkspace : public ::testing::Test {
 protected:
  void SetUp() override { fixture_ = Generate("bazel_workspace", kSmall, dir_.path() / "fx"); }

  RunResult Bazel(std::vector<std::string> args, const fs::path& cwd = {}) {
    args.insert(args.begin(), (fixture_ / "bazel").string());
    return RunProgram(args, cwd.empty() ? fixture_ / "workspace" : cwd, dir_.path());
  }

  ScratchDir dir_;
  fs::path fixture_;
};

TEST_F(BazelWorkspace, LayoutIsTheContract) {
  EXPECT_TRUE(fs::is_regular_file(fixture_ / "query.pb"));
  EXPECT_TRUE(fs::is_regular_file(fixture_ / "shim.json"));
  EXPECT_TRUE(fs::is_directory(fixture_ / "output_base"));
  EXPECT_TRUE(fs::is_regular_file(fixture_ / "workspace" / "WORKSPACE"));
  EXPECT_TRUE(fs::is_regular_file(fixture_ / "workspace/src/l00/p00000/BUILD"));
  EXPECT_TRUE(fs::is_regular_file(fixture_ / "workspace/src/l00/p00000/defs.bzl"));
  EXPECT_EQ(fs::file_size(fixture_ / "workspace/src/l00/p00000/mod0_s0.cc"), 100u);
  struct stat st {};
  ASSERT_EQ(::stat((fixture_ / "bazel").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

TEST_F(BazelWorkspace, WorkspaceBytesArePinned) {
  const fs::path again = Generate("bazel_workspace", kSmall, dir_.path() / "again");
  const fs::path other = Generate("bazel_workspace", kSmall, dir_.path() / "other", 2);
  const std::string digest = TreeDigest(fixture_ / "workspace");
  EXPECT_EQ(digest, TreeDigest(again / "workspace"));
  EXPECT_NE(digest, TreeDigest(other / "workspace"));
  EXPECT_EQ(digest, "75cbc650df9897643ff80dc8db615ae9893ca12a3ec989cf7a28b44bfec09ab8");
}

TEST_F(BazelWorkspace, BuildFileLinesMatchQueryLocations) {
  const std::string build = ReadFile(fixture_ / "workspace/src/l00/p00000/BUILD");
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = build.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(build.substr(start, nl - start));
  }
  ASSERT_GT(lines.size(), 12u);
  // mod0 at line 3, mod1 at line 12: the lines the query's locations name.
  EXPECT_EQ(lines[3], "    name = \"mod0\",") << build;
  EXPECT_NE(lines[12].find("\"mod1\""), std::string::npos) << build;
}

TEST_F(BazelWorkspace, ShimAnswersInfoOutputBase) {
  const RunResult r = Bazel({"--bazelrc=/dev/null", "--max_idle_secs=5", "info", "output_base"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, (fs::canonical(fixture_) / "output_base").string() + "\n");
}

// The stream is Bazel 4.2.3's output, so by default the shim says it is 4.2.3 (issue #28 item 4),
// as a 4.2.3 release (built with --stamp --embed_label) prints it, in Bazel 4.2.3's sources: the
// deploy jar's path as the build target (singlejar's build.target, src/tools/singlejar/
// output_jar.cc), the build time as JavaBuildInfoFactory formats it ("EEE MMM d HH:mm:ss yyyy
// (seconds)"), the timestamps as seconds; the shim's build time is 0.
TEST_F(BazelWorkspace, ShimAnswersVersion) {
  const RunResult r = Bazel({"version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(
      r.out,
      "Build label: 4.2.3\n"
      "Build target: bazel-out/k8-opt/bin/src/main/java/com/google/devtools/build/lib/bazel/BazelServer_deploy.jar\n"
      "Build time: Thu Jan 1 00:00:00 1970 (0)\n"
      "Build timestamp: 0\n"
      "Build timestamp as int: 0\n");
}

// Bazel 4.2.3 has no `mod` command; from 6.3.0 it has one that fails off bzlmod.
TEST_F(BazelWorkspace, ShimModGraphFailsWithoutBzlmod) {
  RunResult r = Bazel({"--bazelrc=/dev/null", "mod", "graph"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "Command 'mod' not found. Try 'bazel help'.\n");
  std::string config = ReadFile(fixture_ / "shim.json");
  config.replace(config.find("4.2.3"), 5, "7.4.1");
  WriteFile(fixture_ / "shim.json", config);
  r = Bazel({"--bazelrc=/dev/null", "mod", "graph"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Bzlmod"), std::string::npos) << r.err;
}

// Bazel before 8.2.0 has no `query --output_file` (upstream bazel-diff passes it from 8.2.0 on),
// and the shim refuses it as those versions do, so a contender passing it too early fails here.
TEST_F(BazelWorkspace, ShimRefusesOutputFileBefore8Point2) {
  WriteFile(dir_.path() / "q.txt", "//...:all-targets");
  const std::string query_file = (dir_.path() / "q.txt").string();
  const std::string out = (dir_.path() / "out.pb").string();
  RunResult r = Bazel({"query", "--output", "streamed_proto", "--query_file", query_file, "--output_file", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ERROR: Unrecognized option: --output_file\n");
  r = Bazel({"query", "--output=streamed_proto", "--query_file=" + query_file, "--output_file=" + out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ERROR: Unrecognized option: --output_file=" + out + "\n");
  EXPECT_FALSE(fs::exists(out));
  // The last version without it.
  std::string config = ReadFile(fixture_ / "shim.json");
  config.replace(config.find("4.2.3"), 5, "8.1.9");
  WriteFile(fixture_ / "shim.json", config);
  r = Bazel({"query", "--output=streamed_proto", "--query_file=" + query_file, "--output_file=" + out});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(BazelWorkspace, ShimQueryCopiesTheStream) {
  // A Bazel that has --output_file.
  std::string config = ReadFile(fixture_ / "shim.json");
  config.replace(config.find("4.2.3"), 5, "8.2.0");
  WriteFile(fixture_ / "shim.json", config);
  const std::string expected = ReadFile(fixture_ / "query.pb");
  WriteFile(dir_.path() / "q.txt", "//external:all-targets + //...:all-targets");
  const std::string query_file = (dir_.path() / "q.txt").string();
  const std::string out = (dir_.path() / "out.pb").string();

  RunResult r = Bazel({"--bazelrc=/dev/null", "query", "--output", "streamed_proto", "--order_output=no",
                       "--proto:instantiation_stack", "--query_file", query_file, "--output_file", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(out), expected);

  fs::remove(out);
  r = Bazel({"query", "--output=streamed_proto", "--query_file=" + query_file, "--output_file=" + out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(out), expected);

  r = Bazel({"query", "//...:all-targets", "--output=streamed_proto"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == expected);
}

TEST_F(BazelWorkspace, ShimRefusesEverythingElse) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"build", "//..."},
                                             {"query", "//...", "--output=label"},
                                             {"cquery", "//..."},
                                             {"info", "execution_root"},
                                             {}}) {
    const RunResult r = Bazel(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unsupported call: bazel"), std::string::npos) << r.err;
  }
  // A Bazel that has `mod`: only `mod graph`, `dump_repo_mapping` and `show_repo` are recorded.
  std::string config = ReadFile(fixture_ / "shim.json");
  config.replace(config.find("4.2.3"), 5, "7.4.1");
  WriteFile(fixture_ / "shim.json", config);
  const RunResult r = Bazel({"mod", "deps"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unsupported call: bazel"), std::string::npos) << r.err;
}

TEST_F(BazelWorkspace, FixtureCanBeMoved) {
  const fs::path moved = dir_.path() / "moved";
  fs::rename(fixture_, moved);
  fixture_ = moved;
  const RunResult r = Bazel({"info", "output_base"});
  EXPECT_EQ(r.out, (fs::canonical(moved) / "output_base").string() + "\n");
}

TEST(BazelShim, VersionAndBzlmodAreConfigurable) {
  ScratchDir dir;
  const fs::path fixture =
      Generate("bazel_shim", {{"bazel_version", std::string("6.5.0")}, {"bzlmod", true}}, dir.path() / "s");
  RunResult r = RunProgram({(fixture / "bazel").string(), "version"}, fixture, dir.path());
  EXPECT_EQ(r.out.rfind("Build label: 6.5.0\n", 0), 0u);
  r = RunProgram({(fixture / "bazel").string(), "mod", "graph"}, fixture, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(r.out.empty());
  // bazel-diff stores `mod graph --output=json` in its hashes file on bzlmod: it must be JSON.
  r = RunProgram({(fixture / "bazel").string(), "mod", "graph", "--output=json"}, fixture, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\n  \"key\": \"<root>\",\n  \"name\": \"perfengine_fixture\",\n  \"version\": \"\",\n"
            "  \"apparentName\": \"perfengine_fixture\",\n  \"dependencies\": []\n}\n");
}

// Bazel before 7.0.0 names its server by the deploy jar's path (6.0.0 prints it so), from 7.0.0
// by its label (7.0.0 and later print `@@//...:BazelServer`).
TEST(BazelShim, VersionNamesTheBuildTargetAsThatBazelDoes) {
  ScratchDir dir;
  const std::string jar =
      "Build target: bazel-out/k8-opt/bin/src/main/java/com/google/devtools/build/lib/bazel/BazelServer_deploy.jar\n";
  const std::string label = "Build target: @@//src/main/java/com/google/devtools/build/lib/bazel:BazelServer\n";
  for (const auto& [version, target] : std::vector<std::pair<std::string, std::string>>{
           {"4.2.3", jar}, {"6.5.0", jar}, {"7.0.0", label}, {"8.6.0", label}}) {
    const fs::path fixture = Generate("bazel_shim", {{"bazel_version", version}}, dir.path() / version);
    const RunResult r = RunProgram({(fixture / "bazel").string(), "version"}, fixture, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Build label: " + version + "\n" + target), std::string::npos) << version << ": " << r.out;
  }
}

TEST(BazelShim, BzlmodNeedsABazelWithTheModCommand) {
  ScratchDir dir;
  try {
    Generate("bazel_shim", {{"bazel_version", std::string("6.2.1")}, {"bzlmod", true}}, dir.path() / "s");
    FAIL() << "bzlmod on 6.2.1 was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("needs a Bazel with `bazel mod` (6.3.0 or later); bazel_version is 6.2.1"),
              std::string::npos)
        << e.what();
  }
}

// Bazel 8 turns WORKSPACE off by default: on a bzlmod fixture a query naming //external fails
// as Bazel fails it, and the same query without it succeeds (upstream 37 retries that way).
TEST(BazelShim, Bzlmod8HasNoExternalPackage) {
  ScratchDir dir;
  const fs::path fixture =
      Generate("bazel_shim", {{"bazel_version", std::string("8.2.1")}, {"bzlmod", true}}, dir.path() / "s");
  WriteFile(fixture / "query.pb", "");
  WriteFile(dir.path() / "with.txt", "'//external:all-targets' + '//...:all-targets'");
  WriteFile(dir.path() / "without.txt", "'//...:all-targets'");
  const std::string out = (dir.path() / "out.pb").string();
  auto query = [&](const std::string& file) {
    return RunProgram({(fixture / "bazel").string(), "query", "--output", "streamed_proto", "--query_file",
                       (dir.path() / file).string(), "--output_file", out},
                      fixture, dir.path());
  };
  RunResult r = query("with.txt");
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_NE(r.err.find("no such package 'external': //external package is not available"), std::string::npos) << r.err;
  r = query("without.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Bazel 7 with bzlmod still has //external (WORKSPACE on by default).
  const fs::path seven =
      Generate("bazel_shim", {{"bazel_version", std::string("7.4.1")}, {"bzlmod", true}}, dir.path() / "s7");
  WriteFile(seven / "query.pb", "");
  r = RunProgram({(seven / "bazel").string(), "query", "--output", "streamed_proto", "--query_file",
                  (dir.path() / "with.txt").string()},
                 seven, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace pe::gen
