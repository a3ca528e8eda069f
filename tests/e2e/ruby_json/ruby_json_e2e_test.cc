// specs/ruby-json.toml (issue 22) checked without the network or a real ruby/json checkout: the
// test makes a tiny git repository with a `master` branch and a branch checked out on top, as a
// pull request's checkout would be, and points RUBY_JSON at it. The real gate on ruby/json is
// bench/ruby_json/run.py (docs/ruby-json.md).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// Runs a command with no shell; returns its exit status.
int RunCommand(const std::vector<std::string>& argv, const fs::path& dir) {
  pid_t pid = -1;
  std::vector<std::string> args = argv;
  std::vector<char*> raw;
  for (auto& a : args) raw.push_back(a.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, (dir / "cmd.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (dir / "cmd.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (posix_spawnp(&pid, raw[0], &actions, nullptr, raw.data(), environ) != 0) return -1;
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A repository shaped like a ruby/json checkout under review: master, and HEAD on a branch.
fs::path FakeCheckout(const fs::path& dir) {
  const fs::path repo = dir / "json";
  fs::create_directories(repo / "benchmark" / "data");
  std::ofstream(repo / "benchmark" / "data" / "twitter.json") << "{}\n";
  const std::string git = "git";
  const std::vector<std::string> id = {"-c", "user.name=t", "-c", "user.email=t@example.invalid"};
  auto g = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {git, "-C", repo.string()};
    argv.insert(argv.end(), id.begin(), id.end());
    argv.insert(argv.end(), args.begin(), args.end());
    EXPECT_EQ(RunCommand(argv, dir), 0) << ReadAll(dir / "cmd.err");
  };
  g({"init", "-q", "-b", "master"});
  g({"add", "."});
  g({"commit", "-q", "-m", "master"});
  g({"checkout", "-q", "-b", "pull-request"});
  g({"commit", "-q", "--allow-empty", "-m", "the change under review"});
  return repo;
}

// RUBY_JSON set for one test, restored after it.
class RubyJsonVariable {
 public:
  explicit RubyJsonVariable(const char* value) {
    if (const char* old = ::getenv("RUBY_JSON")) old_ = old;
    if (value) {
      ::setenv("RUBY_JSON", value, 1);
    } else {
      ::unsetenv("RUBY_JSON");
    }
  }
  ~RubyJsonVariable() {
    if (old_) {
      ::setenv("RUBY_JSON", old_->c_str(), 1);
    } else {
      ::unsetenv("RUBY_JSON");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(RubyJsonSpec, ValidatesStrictlyAgainstATinyCheckoutWithMasterAndABranch) {
  TempDir dir;
  const fs::path repo = FakeCheckout(dir.path());
  RubyJsonVariable var(repo.c_str());
  const Finished f = RunPerfengine({"validate", "--strict", RUBY_JSON_SPEC}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.err;
  // 36 benchmarks and the built-in startup workload.
  EXPECT_NE(f.out.find("ok (2 contenders, 37 workloads; baseline 'baseline', candidate 'candidate')"),
            std::string::npos)
      << f.out << f.err;
  EXPECT_EQ(f.err, "");
}

TEST(RubyJsonSpec, ACheckoutWithoutMasterIsRefusedNamingTheRevision) {
  TempDir dir;
  const fs::path repo = FakeCheckout(dir.path());
  ASSERT_EQ(RunCommand({"git", "-C", repo.string(), "branch", "-q", "-m", "master", "main"}, dir.path()), 0);
  RubyJsonVariable var(repo.c_str());
  const Finished f = RunPerfengine({"validate", RUBY_JSON_SPEC}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_NE(f.err.find("contender 'baseline': git revision 'master' does not exist in " + repo.string()),
            std::string::npos)
      << f.err;
  EXPECT_EQ(f.err.find("contender 'candidate'"), std::string::npos) << f.err;
}

TEST(RubyJsonSpec, WithoutRubyJsonSetEachRepoIsOneClearError) {
  TempDir dir;
  RubyJsonVariable var(nullptr);
  const Finished f = RunPerfengine({"validate", RUBY_JSON_SPEC}, dir.path());
  EXPECT_EQ(f.exit, 2);
  const std::regex line(R"(ruby-json\.toml:\d+:\d+: 'repo': \$\{RUBY_JSON\} is not set: set it to the path, e\.g\. )"
                        R"(RUBY_JSON=/path/to/checkout perfengine \.\.\.)");
  std::smatch m;
  std::string rest = f.err;
  int found = 0;
  while (std::regex_search(rest, m, line)) {
    ++found;
    rest = m.suffix();
  }
  EXPECT_EQ(found, 2) << f.err;  // baseline and candidate
}

// bench.rb measures only the build of the worktree it runs in: started where no pe-lib/ holds
// that build, `require "json"` finds Ruby's bundled json, and the script refuses (exit 3).
TEST(RubyJsonBench, RefusesToMeasureAJsonThatIsNotTheWorktreesBuild) {
  TempDir dir;
  const fs::path repo = FakeCheckout(dir.path());
  ASSERT_EQ(::chdir(repo.c_str()), 0);
  const int status = RunCommand(
      {"ruby", "--disable-gems", "-Ipe-lib", "-Ilib", RUBY_JSON_BENCH, "parse_twitter", (dir.path() / "out").string()},
      dir.path());
  ASSERT_EQ(::chdir("/"), 0);
  EXPECT_EQ(status, 3) << ReadAll(dir.path() / "cmd.err");
  const std::string err = ReadAll(dir.path() / "cmd.err");
  EXPECT_NE(err.find("bench.rb: not the build of " + repo.string() + ": missing"), std::string::npos) << err;
  EXPECT_NE(err.find("pe-lib/json/ext/parser.so"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

}  // namespace
}  // namespace pe::e2e
