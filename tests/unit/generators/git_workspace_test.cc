#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "generators/file_io.h"
#include "generators/subprocess.h"
#include "test_util.h"

namespace pe::gen {
namespace {

namespace fs = std::filesystem;
using testing::Generate;
using testing::RunProgram;
using testing::ScratchDir;

const Params kGitWorkspaceSmall = {{"targets", std::int64_t{200}},
                                   {"revisions", std::int64_t{3}},
                                   {"changed", 0.1},
                                   {"source_bytes", std::int64_t{64}}};

std::string Git(const fs::path& repo, std::vector<std::string> args) {
  args.insert(args.begin(), "git");
  return RunChecked(args, repo, {{"GIT_CONFIG_NOSYSTEM", "1"}, {"GIT_CONFIG_GLOBAL", "/dev/null"}});
}

TEST(GitWorkspace, TaggedRevisionsWithReproducibleCommits) {
  ScratchDir dir;
  const fs::path a = Generate("git_workspace", kGitWorkspaceSmall, dir.path() / "a");
  const fs::path b = Generate("git_workspace", kGitWorkspaceSmall, dir.path() / "b");
  const fs::path c = Generate("git_workspace", kGitWorkspaceSmall, dir.path() / "c", 9);
  const auto revisions = nlohmann::json::parse(ReadFile(a / "revisions.json"));
  ASSERT_EQ(revisions.size(), 3u);
  EXPECT_EQ(ReadFile(a / "revisions.json"), ReadFile(b / "revisions.json"));
  EXPECT_NE(ReadFile(a / "revisions.json"), ReadFile(c / "revisions.json"));
  EXPECT_EQ(Git(a / "repo", {"tag", "--list"}), "rev0\nrev1\nrev2\n");
  for (int k = 0; k < 3; ++k) {
    const std::string tag = "rev" + std::to_string(k);
    EXPECT_EQ(Git(a / "repo", {"rev-parse", tag}),
              revisions[static_cast<std::size_t>(k)]["commit"].get<std::string>() + "\n");
  }
  EXPECT_EQ(revisions[2]["commit"], "1aac1aa491e89e3d1dbe7560562e4878a51f3d1d");
}

TEST(GitWorkspace, RevisionsDifferLikeHashPairs) {
  ScratchDir dir;
  const fs::path fx = Generate("git_workspace", kGitWorkspaceSmall, dir.path() / "fx");
  const fs::path repo = fx / "repo";
  // 200 targets (32 of them Bazel's own externals) hold 99 rule sources: 10% change, 1% goes
  // and 1% arrives per revision.
  const std::string diff = Git(repo, {"diff", "--name-status", "rev0", "rev1"});
  int modified_sources = 0;
  int deleted = 0;
  int added = 0;
  std::size_t start = 0;
  for (std::size_t nl; (nl = diff.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = diff.substr(start, nl - start);
    if (line.find(".cc") == std::string::npos) continue;
    modified_sources += line[0] == 'M';
    deleted += line[0] == 'D';
    added += line[0] == 'A';
  }
  EXPECT_EQ(modified_sources, 10);
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(added, 1);
  EXPECT_NE(diff.find("query.pb"), std::string::npos);
  EXPECT_EQ(Git(repo, {"status", "--porcelain"}), "");
}

TEST(GitWorkspace, ShimReplaysTheCheckedOutRevision) {
  ScratchDir dir;
  const fs::path fx = Generate("git_workspace", kGitWorkspaceSmall, dir.path() / "fx");
  const fs::path repo = fx / "repo";
  Git(repo, {"checkout", "-q", "rev0"});
  const auto r =
      RunProgram({(fx / "bazel").string(), "query", "//...", "--output", "streamed_proto"}, repo / "src", dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == ReadFile(repo / ".perfengine/query.pb"));
  EXPECT_FALSE(r.out == Git(repo, {"show", "rev1:.perfengine/query.pb"}));
}

}  // namespace
}  // namespace pe::gen
