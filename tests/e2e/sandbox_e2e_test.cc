// The sandbox end to end (docs/threat-model.md, "The sandbox"): what a run says when the kernel
// refuses it, and a git build interrupted inside it.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string SandboxStub() { return nlohmann::json(STUB_CONTENDER).dump(); }

fs::path WriteSandboxSpec(const TempDir& dir) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 2\nwarmup_rounds = 0\n\n"
                      << "[contenders.baseline]\nargv = [" << SandboxStub() << "]\n\n"
                      << "[contenders.candidate]\nargv = [" << SandboxStub() << "]\n\n"
                      << "[workloads.work]\nargs = [\"--print\", \"same\"]\n";
  return spec;
}

// Runs `shell` (a /bin/sh script) and returns its exit status, its stdout in `out`.
int Shell(const std::string& shell, const fs::path& dir, std::string* out) {
  const fs::path captured = dir / "shell.out";
  const int status = std::system(("(" + shell + ") > '" + captured.string() + "' 2>&1").c_str());
  *out = ReadAll(captured);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Inside a user namespace of its own whose limit on further user namespaces is 0 (the kernel's
// per-namespace sysctl), the spawner's probe is refused, and the run goes on without a sandbox,
// saying so in every report.
TEST(SandboxE2E, WhereTheKernelRefusesNamespacesEveryReportSaysTheRunWasNotSandboxed) {
  TempDir dir;
  std::string out;
  if (Shell("unshare --user --map-root-user sh -c 'echo 0 > /proc/sys/user/max_user_namespaces'", dir.path(), &out) !=
      0) {
    GTEST_SKIP() << "this machine cannot make the user namespace the test needs: " << out;
  }
  const fs::path spec = WriteSandboxSpec(dir);
  const fs::path markdown = dir.path() / "report.md";
  const int exit = Shell(
      "unshare --user --map-root-user sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "
      "\"$0\" \"$@\"' " +
          std::string(PERFENGINE_BINARY) + " run '" + spec.string() + "' --markdown '" + markdown.string() + "'",
      dir.path(), &out);
  EXPECT_EQ(exit, 0) << out;
  const std::string note =
      "not sandboxed: the kernel refused the namespaces a sandbox needs (no user namespace is left to this user: "
      "sysctl user.max_user_namespaces); the code under test ran with the engine's view of the file system and "
      "processes (docs/threat-model.md)";
  EXPECT_NE(out.find(note), std::string::npos) << out;
  // Markdown escapes the underscores of user.max_user_namespaces.
  EXPECT_NE(ReadAll(markdown).find("- work: not sandboxed: the kernel refused the namespaces a sandbox needs (no user "
                                   "namespace is left to this user: sysctl user.max\\_user\\_namespaces)"),
            std::string::npos)
      << ReadAll(markdown);
}

TEST(SandboxE2E, AQuietRunSaysNothingOfTheSandbox) {
  TempDir dir;
  const Finished f = RunPerfengine({"run", WriteSandboxSpec(dir).string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_EQ(f.out.find("sandbox"), std::string::npos) << f.out;
}

// Issue 45: Ctrl-C during a git build exited 2 (a failed build), not 130.
TEST(SandboxE2E, CtrlCDuringAGitBuildIsAnInterruptedRun) {
  TempDir dir;
  std::string out;
  const fs::path repo = dir.path() / "repo";
  ASSERT_EQ(Shell("git init -q -b main '" + repo.string() + "' && cd '" + repo.string() +
                      "' && echo x > f && git add f && git -c user.name=t -c user.email=t@t commit -qm x",
                  dir.path(), &out),
            0)
      << out;
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 2\nwarmup_rounds = 0\n\n"
                      << "[contenders.baseline]\nargv = [" << SandboxStub() << "]\n\n"
                      << "[contenders.candidate]\nargv = [" << SandboxStub() << "]\ngit = \"main\"\nrepo = \"repo\"\n"
                      << "build = [\"sh\", \"-c\", \"touch started; sleep 60\"]\n\n"
                      << "[workloads.work]\nargs = [\"--print\", \"same\"]\n";
  Running run({"run", spec.string(), "--cache-dir", (dir.path() / "cache").string()}, dir.path());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool started = false;
  while (!started && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir.path() / "cache", ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (it->path().filename() == "started") started = true;
    }
  }
  ASSERT_TRUE(started) << "the build never started";
  ::kill(run.pid(), SIGINT);
  const Finished f = run.Wait();
  EXPECT_EQ(f.exit, 130) << f.out << f.err;
}

}  // namespace
}  // namespace pe::e2e
