// The sandbox (runner::Sandbox, docs/threat-model.md): each guarantee tried by a shell that attacks
// it, through the real runner and spawner. Each of these passes only with the sandbox: without it
// the shell reaches what it aims at.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "engine/runner/interrupt.h"
#include "engine/runner/process_runner.h"
#include "tests/unit/runner/process_table.h"
#include "tests/unit/runner/temp_dir.h"

namespace pe::runner {
namespace {

namespace fs = std::filesystem;
using testing::CountLeftOver;
using testing::TempDir;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteText(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A run's scratch as the engine lays it out: <root>/<workload>/c0 and c1, one per contender.
class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    interrupt::ResetForTesting();
    fs::create_directories(own());
    fs::create_directories(rival());
    WriteText(rival() / "counters", "objects 100 objects\n");
  }
  void TearDown() override {
    interrupt::ResetForTesting();
    EXPECT_EQ(CountLeftOver(), 0);
  }
  fs::path own() const { return dir_.path() / "w" / "c0"; }
  fs::path rival() const { return dir_.path() / "w" / "c1"; }

  // `script` run by /bin/sh as contender c0's execution would be: its own directory writable, the
  // run's scratch hidden. $OWN, $RIVAL and $ROOT name the three.
  Command Sandboxed(const std::string& script) const {
    Command command;
    command.argv = {"/bin/sh", "-c", script};
    command.env = {{"OWN", own().string()}, {"RIVAL", rival().string()}, {"ROOT", dir_.path().string()}};
    command.stderr_path = own() / "stderr";
    command.timeout_s = 30;
    command.sandbox.enabled = true;
    command.sandbox.writable = {own()};
    command.sandbox.hidden = {dir_.path()};
    return command;
  }

  // Runs `script` sandboxed; skips the test when this kernel refuses namespaces.
  Outcome Run(const std::string& script) {
    Outcome outcome = runner_->Run(Sandboxed(script));
    if (!outcome.sandbox_refused.empty()) skipped_ = outcome.sandbox_refused;
    return outcome;
  }

  TempDir dir_;
  std::unique_ptr<ProcessRunner> runner_ = MakeSystemProcessRunner();
  std::string skipped_;
};

#define SKIP_WITHOUT_SANDBOX() \
  if (!skipped_.empty()) GTEST_SKIP() << skipped_

TEST_F(SandboxTest, ItWritesItsOwnDirectoryAndNothingElse) {
  const fs::path outside = dir_.path().string() + ".outside";
  fs::remove("/tmp/perfengine-sandbox-test");  // left by a run without the sandbox
  const Outcome outcome =
      Run("echo mine > \"$OWN/out\"; echo theirs > \"$RIVAL/counters\" 2>/dev/null; "
          "echo planted > \"" +
          outside.string() +
          "\" 2>/dev/null; "
          "echo tmp > /tmp/perfengine-sandbox-test 2>/dev/null; exit 0");
  SKIP_WITHOUT_SANDBOX();
  ASSERT_TRUE(outcome.ok()) << outcome.error << ReadText(own() / "stderr");
  EXPECT_EQ(ReadText(own() / "out"), "mine\n");
  EXPECT_EQ(ReadText(rival() / "counters"), "objects 100 objects\n");
  EXPECT_FALSE(fs::exists(outside));
  EXPECT_FALSE(fs::exists("/tmp/perfengine-sandbox-test"));
}

TEST_F(SandboxTest, AHiddenDirectoryShowsOnlyThePathsLeadingToItsOwn) {
  const Outcome outcome =
      Run("test -d \"$OWN\" || exit 3; test -e \"$RIVAL\" && exit 4; "
          "test \"$(ls \"$ROOT\")\" = w || exit 5; test \"$(ls \"$ROOT/w\")\" = c0 || exit 6; exit 0");
  SKIP_WITHOUT_SANDBOX();
  EXPECT_TRUE(outcome.ok()) << outcome.error;
}

TEST_F(SandboxTest, ItCannotUndoTheSandbox) {
  // Root in its namespaces, it may try to unmount what hides the rival and to make the file
  // system writable again; the mounts it inherited are locked.
  const Outcome outcome =
      Run("umount -l \"$ROOT\" 2>/dev/null; umount -l \"$OWN\" 2>/dev/null; "
          "mount -o remount,rw / 2>/dev/null; mount -o remount,rw \"$ROOT\" 2>/dev/null; "
          "test -e \"$RIVAL/counters\" && exit 4; "
          "echo theirs > \"$RIVAL/counters\" 2>/dev/null; exit 0");
  SKIP_WITHOUT_SANDBOX();
  EXPECT_TRUE(outcome.ok()) << outcome.error << ReadText(own() / "stderr");
  EXPECT_EQ(ReadText(rival() / "counters"), "objects 100 objects\n");
}

TEST_F(SandboxTest, ItSeesAndSignalsNoProcessOutsideItself) {
  // This test's own pid: a contender that could see it could stop or kill it (or a rival).
  const std::string me = std::to_string(::getpid());
  const Outcome outcome = Run("kill -0 " + me + " 2>/dev/null && exit 3; test -e /proc/" + me +
                              " && exit 4; set -- /proc/[0-9]*; test $# -le 3 || exit 5; exit 0");
  SKIP_WITHOUT_SANDBOX();
  EXPECT_TRUE(outcome.ok()) << outcome.error;
}

// The sandbox's init (pid 1) holds capabilities over the outer namespaces, where the mounts are not
// locked: reaching into it would undo the sandbox.
TEST_F(SandboxTest, ItCannotReachIntoTheSandboxesInit) {
  const Outcome outcome =
      Run("test -e /proc/1 || exit 3; cat /proc/1/maps >/dev/null 2>&1 && exit 4; "
          "readlink /proc/1/ns/mnt >/dev/null 2>&1 && exit 5; "
          "cat /proc/1/environ >/dev/null 2>&1 && exit 6; kill -STOP 1; exit 0");
  SKIP_WITHOUT_SANDBOX();
  EXPECT_TRUE(outcome.ok()) << outcome.error;
}

TEST_F(SandboxTest, RivalsRunningAtOnceCannotFindEachOther) {
  // As a duet round runs them: the first waits, the second looks for it among the processes it
  // can see (by a word in its command line), to stop or kill it.
  Command first = Sandboxed("touch \"$OWN/started\"; sleep 5 # perfengine-sandbox-rival");
  first.stdout_path = own() / "first.out";
  std::thread waiting([&] { runner_->Run(first); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!fs::exists(own() / "started") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const Outcome second =
      Run("for f in /proc/[0-9]*/cmdline; do grep -q 'perfengine-sandbox-riva[l]' \"$f\" 2>/dev/null "
          "&& exit 3; done; exit 0");
  waiting.join();
  SKIP_WITHOUT_SANDBOX();
  ASSERT_TRUE(fs::exists(own() / "started"));
  EXPECT_TRUE(second.ok()) << second.error;
}

TEST_F(SandboxTest, WhatItStartsInASessionOfItsOwnDiesWithIt) {
  const Outcome outcome =
      Run("setsid sh -c 'sleep 600 # perfengine-sandbox-daemon' </dev/null >/dev/null 2>&1 & "
          "exit 0");
  SKIP_WITHOUT_SANDBOX();
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string cmdline = ReadText(entry.path() / "cmdline");
    EXPECT_EQ(cmdline.find("perfengine-sandbox-daemon"), std::string::npos) << entry.path();
  }
}

TEST_F(SandboxTest, ItHasATemporaryDirectoryOnlyWhereItMayWrite) {
  // /tmp is read-only to it like everything else; /dev/shm is a fresh one of its own.
  WriteText("/dev/shm/perfengine-sandbox-test", "host");
  fs::remove("/tmp/perfengine-sandbox-tmp");  // left by a run without the sandbox
  const Outcome outcome =
      Run("test -e /dev/shm/perfengine-sandbox-test && exit 3; "
          "echo mine > /dev/shm/x || exit 4; touch /tmp/perfengine-sandbox-tmp 2>/dev/null && exit 5; "
          "exit 0");
  fs::remove("/dev/shm/perfengine-sandbox-test");
  SKIP_WITHOUT_SANDBOX();
  EXPECT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_FALSE(fs::exists("/tmp/perfengine-sandbox-tmp"));
}

TEST_F(SandboxTest, AWritablePathThatIsNotAFolderFailsTheStartNamingIt) {
  Command command = Sandboxed("exit 0");
  command.sandbox.writable.push_back(dir_.path() / "missing");
  const Outcome outcome = runner_->Run(command);
  EXPECT_EQ(outcome.status, Outcome::Status::kSpawnFailed);
  EXPECT_EQ(outcome.error, "cannot start /bin/sh: its sandbox's writable path " + (dir_.path() / "missing").string() +
                               " is not a directory");
}

}  // namespace
}  // namespace pe::runner
