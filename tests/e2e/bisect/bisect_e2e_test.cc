// `perfengine bisect` end to end: a generated git repository of ten commits whose program is a
// script around the stub contender. Commit 7 plants a slowdown (5 ms -> 400 ms, far beyond any
// noise, even with a loaded machine's start-up times), commit 5 does not build and is where git
// looks first; bisect must skip 5 and name commit 7 with its ratio.
#include <gtest/gtest.h>
#include <spawn.h>

#include <algorithm>
#include <chrono>
#include <csignal>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string RunOut(std::vector<std::string> argv, const fs::path& cwd) {
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  const fs::path out = cwd / ".out";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, raw[0], &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << argv[5];
  std::string text = ReadAll(out);
  fs::remove(out);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

class BisectE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = dir_.path() / "repo";
    fs::create_directories(repo_);
    Git({"init", "-q"});
    // The program: the stub contender sleeping for as long as the built file says.
    std::ofstream(repo_ / "run") << "#!/bin/sh\nexec " STUB_CONTENDER
                                    " --sleep-ms \"$(cat cost.built)\" --print same\n";
    fs::permissions(repo_ / "run", fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    for (int i = 1; i <= 10; ++i) {
      if (i == 5) {
        fs::remove(repo_ / "cost");  // the build (cp cost cost.built) fails here
      } else {
        std::ofstream(repo_ / "cost") << (i >= 7 ? "400" : "5") << "\n";
      }
      std::ofstream(repo_ / "log") << "commit " << i << "\n";
      Git({"add", "-A"});
      Git({"commit", "-q", "-m", "commit " + std::to_string(i)});
      commits_.push_back(RunOut({"git", "rev-parse", "HEAD"}, repo_));
    }
    spec_ = dir_.path() / "spec.toml";
    std::ofstream(spec_)
        << "[run]\nrounds = 7\nmax_rounds = 20\nwarmup_rounds = 0\n"
        << "[contenders.baseline]\ngit = \"main\"\nrepo = \"repo\"\nbuild = [\"cp\", \"cost\", \"cost.built\"]\n"
        << "argv = [\"./run\"]\nstartup = [\"true\"]\n"
        << "[contenders.candidate]\ngit = \"main\"\nrepo = \"repo\"\nbuild = [\"cp\", \"cost\", \"cost.built\"]\n"
        << "argv = [\"./run\"]\nstartup = [\"true\"]\n"
        << "[workloads.sleep]\n"
        << "[thresholds]\nmin_speedup = 0.5\n";
  }

  void Git(std::vector<std::string> args) {
    std::vector<std::string> argv = {"git",
                                     "-c",
                                     "user.name=perfengine",
                                     "-c",
                                     "user.email=test@perfengine",
                                     "-c",
                                     "commit.gpgsign=false",
                                     "-c",
                                     "init.defaultBranch=main"};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOut(argv, repo_);
  }

  Finished Bisect(const std::string& good, const std::string& bad) {
    return RunPerfengine(
        {"bisect", spec_.string(), "--good", good, "--bad", bad, "--cache-dir", (dir_.path() / "cache").string()},
        dir_.path());
  }

  // The worktrees git has registered for the user's repository, as `git worktree list` names them.
  std::vector<std::string> Worktrees() {
    std::vector<std::string> paths;
    std::istringstream lines(RunOut({"git", "worktree", "list", "--porcelain"}, repo_));
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("worktree ", 0) == 0) paths.push_back(line.substr(9));
    }
    return paths;
  }

  // Anything of a bisection in the repository's .git, in any worktree's folder: BISECT_* files
  // and refs/bisect/* (loose, or packed).
  std::vector<std::string> BisectState() {
    std::vector<std::string> found;
    // git may be writing while the test looks: a file gone mid-walk is no error.
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(repo_ / ".git", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const fs::directory_entry& entry = *it;
      const std::string path = entry.path().string();
      if (entry.path().filename().string().rfind("BISECT_", 0) == 0 || path.find("refs/bisect") != std::string::npos)
        found.push_back(path);
    }
    if (ReadAll(repo_ / ".git" / "packed-refs").find("refs/bisect") != std::string::npos)
      found.push_back("packed-refs");
    return found;
  }

  // Live processes whose command line names this test's spec and `word`.
  int ProcessesRunning(const std::string& word) {
    int n = 0;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string pid = entry.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmdline = ReadAll(entry.path() / "cmdline");
      std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
      if (cmdline.find(word) != std::string::npos && cmdline.find(spec_.string()) != std::string::npos &&
          IsAlive(std::stoi(pid)))
        ++n;
    }
    return n;
  }

  TempDir dir_;
  fs::path repo_, spec_;
  std::vector<std::string> commits_;
};

TEST_F(BisectE2E, NamesThePlantedCommitAndItsRatioSkippingTheOneThatDoesNotBuild) {
  const std::string head_before = RunOut({"git", "rev-parse", "HEAD"}, repo_);
  const Finished f = Bisect(commits_[0], commits_[9]);
  ASSERT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("first bad commit: " + commits_[6] + " commit 7\n"), std::string::npos) << f.out;
  // The measured ratio of the first bad commit: (start-up + 5 ms) / (start-up + 400 ms).
  EXPECT_NE(f.out.find("\n  sleep: median speedup 0."), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("below the required 0.50x"), std::string::npos) << f.out;
  // Nothing before 7 was called bad; commit 5, which does not build, was skipped.
  for (int i = 0; i < 6; ++i) {
    const std::string line = "  " + commits_[i].substr(0, 12) + "  bad";
    EXPECT_EQ(f.out.find(line), std::string::npos) << f.out;
  }
  EXPECT_NE(f.out.find("  " + commits_[4].substr(0, 12) + "  skipped: could not be built or measured\n"),
            std::string::npos)
      << f.out;
  // The user's checkout and branch are untouched, and no bisection or worktree is left.
  EXPECT_EQ(RunOut({"git", "rev-parse", "HEAD"}, repo_), head_before);
  EXPECT_FALSE(fs::exists(repo_ / ".git" / "BISECT_LOG"));
  EXPECT_EQ(RunOut({"git", "worktree", "list", "--porcelain"}, repo_).find("/bisect/"), std::string::npos);
  // Bisection, not a walk: at most log2(9) + 2 of the 9 commits after good were measured (one
  // of them skipped). A count, so a loaded machine cannot fail it as a time limit would.
  int measured = 0;
  for (const std::string& commit : commits_)
    measured += f.out.find("\n  " + commit.substr(0, 12) + "  ") != std::string::npos;
  EXPECT_GE(measured, 3) << f.out;  // fewer cannot single out one of 9
  EXPECT_LE(measured, 6) << f.out;
}

// A bisection over commits 6..8 measures 8, then git tests 7: neither those two nor the
// baseline's worktree (commit 6) stays registered in the user's repository.
TEST_F(BisectE2E, LeavesNoWorktreeOfTheCommitsItMeasured) {
  const Finished f = Bisect(commits_[5], commits_[7]);
  ASSERT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("first bad commit: " + commits_[6] + " commit 7\n"), std::string::npos) << f.out;
  EXPECT_EQ(Worktrees(), std::vector<std::string>{fs::canonical(repo_).string()});
  for (const auto& entry : fs::recursive_directory_iterator(dir_.path() / "cache" / "worktrees")) {
    EXPECT_NE(entry.path().extension(), ".built") << entry.path();  // a build marker with no worktree
    EXPECT_FALSE(entry.is_directory() && entry.path().filename().string().size() == 40) << entry.path();
  }
}

// Ctrl-C while `git bisect run` is running a step: the cleanup runs after the interrupt (the
// runner otherwise refuses to start anything once interrupted), then the command exits 130.
TEST_F(BisectE2E, CtrlCMidRunLeavesNoBisectionStateNorWorktreeAndExits130) {
  Running run({"bisect", spec_.string(), "--good", commits_[0], "--bad", commits_[9], "--cache-dir",
               (dir_.path() / "cache").string()},
              dir_.path());
  // Mid-run: git bisect run has started (its argv names bisect-step too) and with it a step;
  // the parent measured --bad before.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (ProcessesRunning("bisect-step") == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GT(ProcessesRunning("bisect-step"), 0) << "no step started";
  ASSERT_FALSE(BisectState().empty());  // the state the cleanup must remove is there
  ::kill(run.pid(), SIGINT);
  const Finished f = run.Wait();
  EXPECT_EQ(f.exit, 130) << f.out << f.err;
  EXPECT_EQ(f.err, "perfengine: bisect: interrupted\n");
  EXPECT_EQ(BisectState(), std::vector<std::string>{});
  EXPECT_EQ(RunOut({"git", "for-each-ref", "refs/bisect"}, repo_), "");
  EXPECT_EQ(Worktrees(), std::vector<std::string>{fs::canonical(repo_).string()});
  // No step outlives the command (it was in git's process group, killed with it).
  EXPECT_EQ(ProcessesRunning("bisect-step"), 0);
}

// Ctrl-C during the cleanup after a bisection that named its commit. `git` on PATH is a wrapper
// that, asked for the cleanup's `git bisect reset`, sends SIGINT to the perfengine above it (its
// nearest ancestor of that name) and only then runs the real git: the signal arrives while the
// cleanup runs, at no time a sleep picks. The cleanup finishes (a first Ctrl-C lets it), the
// result is printed, and the command says it was interrupted and exits 130.
TEST_F(BisectE2E, CtrlCDuringTheCleanupAfterASuccessfulSearchExits130) {
  std::string real_git;
  std::istringstream path_dirs(std::getenv("PATH"));
  for (std::string dir; real_git.empty() && std::getline(path_dirs, dir, ':');) {
    if (!dir.empty() && ::access((fs::path(dir) / "git").c_str(), X_OK) == 0) real_git = fs::path(dir) / "git";
  }
  ASSERT_FALSE(real_git.empty()) << "git is not on PATH";
  const fs::path bin = dir_.path() / "bin";
  const fs::path marker = dir_.path() / "signalled";
  fs::create_directories(bin);
  std::ofstream(bin / "git") << "#!/bin/sh\n"
                             << "case \"$*\" in *\" bisect reset\")\n"
                             << "  pid=$$\n"
                             << "  while [ \"$pid\" -gt 1 ]; do\n"
                             << "    pid=$(awk '{print $4}' /proc/$pid/stat)\n"
                             << "    if [ \"$(cat /proc/$pid/comm)\" = perfengine ]; then\n"
                             << "      kill -INT \"$pid\" && echo \"$pid\" > '" << marker.string() << "'\n"
                             << "      break\n"
                             << "    fi\n"
                             << "  done;;\n"
                             << "esac\n"
                             << "exec '" << real_git << "' \"$@\"\n";
  fs::permissions(bin / "git", fs::perms::owner_all);
  const std::string path_before = std::getenv("PATH");
  ::setenv("PATH", (bin.string() + ":" + path_before).c_str(), 1);
  Running run({"bisect", spec_.string(), "--good", commits_[5], "--bad", commits_[7], "--cache-dir",
               (dir_.path() / "cache").string()},
              dir_.path());
  ::setenv("PATH", path_before.c_str(), 1);
  const Finished f = run.Wait();
  // The wrapper found the command's own process and signalled it.
  EXPECT_EQ(ReadAll(marker), std::to_string(run.pid()) + "\n");
  EXPECT_EQ(f.exit, 130) << f.out << f.err;
  EXPECT_NE(f.out.find("first bad commit: " + commits_[6] + " commit 7\n"), std::string::npos) << f.out;
  EXPECT_EQ(f.err, "perfengine: bisect: interrupted during the cleanup\n");
  // The cleanup the interrupt came in still ran to the end.
  EXPECT_EQ(BisectState(), std::vector<std::string>{});
  EXPECT_EQ(Worktrees(), std::vector<std::string>{fs::canonical(repo_).string()});
}

// The baseline is built from --good: when it does not build, --good is named, not --bad.
TEST_F(BisectE2E, ABaselineThatDoesNotBuildBlamesGood) {
  const Finished f = Bisect(commits_[4], commits_[9]);  // commit 5 does not build
  EXPECT_EQ(f.exit, 2) << f.out;
  EXPECT_EQ(f.err, "perfengine: bisect: --good " + commits_[4] + " (" + commits_[4].substr(0, 12) +
                       "), which the baseline is built from, could not be measured:\n  contender 'baseline' could "
                       "not be built: building revision '" +
                       commits_[4] + "' (" + commits_[4].substr(0, 12) + ") failed: exited with status 1\n");
}

TEST_F(BisectE2E, ABadRevisionThatPassesIsRefused) {
  const Finished f = Bisect(commits_[0], commits_[3]);
  EXPECT_EQ(f.exit, 2) << f.out;
  EXPECT_EQ(f.err, "perfengine: bisect: --bad " + commits_[3] + " (" + commits_[3].substr(0, 12) +
                       ") passes the gate against --good " + commits_[0] + ": no regression to look for\n");
}

TEST_F(BisectE2E, GoodMustBeAnAncestorOfBad) {
  const Finished f = Bisect(commits_[9], commits_[0]);
  EXPECT_EQ(f.exit, 2) << f.out;
  EXPECT_EQ(f.err, "perfengine: bisect: --good " + commits_[9] + " is not an ancestor of --bad " + commits_[0] + "\n");
}

// --contender NAME=git:REV (docs/no-regression.md) means nothing to bisect, whose steps set both
// revisions from --good and the commit under test: refused in one line, not overwritten unseen.
TEST_F(BisectE2E, AGitContenderOverrideIsRefused) {
  const Finished f =
      RunPerfengine({"bisect", spec_.string(), "--good", commits_[0], "--bad", commits_[9], "--contender",
                     "candidate=git:main", "--cache-dir", (dir_.path() / "cache").string()},
                    dir_.path());
  EXPECT_EQ(f.exit, 2) << f.out;
  EXPECT_EQ(f.err,
            "perfengine: --contender candidate=git:main: bisect builds the baseline from --good and the candidate "
            "from each commit it tests; give the revisions as --good and --bad\n");
  EXPECT_TRUE(BisectState().empty());
}

}  // namespace
}  // namespace pe::e2e
