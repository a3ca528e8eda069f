#include "engine/runner/interrupt.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include "engine/runner/process_runner.h"

namespace pe::runner {
namespace {

bool Readable(int fd, int timeout_ms) {
  pollfd wake = {fd, POLLIN, 0};
  return ::poll(&wake, 1, timeout_ms) == 1;
}

// A child in its own process group that waits to be killed; only async-signal-safe calls
// between fork and _exit.
pid_t SpawnSleeperGroup() {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    for (;;) ::pause();
  }
  ::setpgid(pid, pid);
  return pid;
}

// Waits for the child and returns the signal that ended it, or 0 if it is still running
// after `timeout_ms`.
int TermSignalWithin(pid_t pid, int timeout_ms) {
  for (int waited = 0; waited <= timeout_ms; waited += 5) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
    ::usleep(5000);
  }
  return 0;
}

class InterruptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    interrupt::InstallHandlers();
    interrupt::ResetForTesting();
  }
  void TearDown() override { interrupt::ResetForTesting(); }
};

TEST_F(InterruptTest, QuietUntilASignalArrives) {
  EXPECT_FALSE(interrupt::Interrupted());
  EXPECT_EQ(interrupt::Signal(), 0);
  ASSERT_GE(interrupt::WakeFd(), 0);
  EXPECT_FALSE(Readable(interrupt::WakeFd(), 0));
}

TEST_F(InterruptTest, SigtermIsRecordedAndWakesPoll) {
  ::raise(SIGTERM);
  EXPECT_TRUE(interrupt::Interrupted());
  EXPECT_EQ(interrupt::Signal(), SIGTERM);
  EXPECT_TRUE(Readable(interrupt::WakeFd(), 0));
}

// The first signal is recorded and the run unwinds; a second one (Ctrl-C again) exits 130 at
// once. In a child, since it ends the process.
TEST_F(InterruptTest, FirstSignalIsReportedAndASecondExitsAtOnce) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::raise(SIGINT);
    if (interrupt::Signal() != SIGINT) ::_exit(3);
    ::raise(SIGTERM);
    ::_exit(4);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
}

TEST_F(InterruptTest, SignalFromAnotherThreadWakesThisOne) {
  std::thread raiser([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::raise(SIGINT);  // delivered to the raising thread, not to the one polling
  });
  EXPECT_TRUE(Readable(interrupt::WakeFd(), 5000));
  raiser.join();
  EXPECT_EQ(interrupt::Signal(), SIGINT);
}

TEST_F(InterruptTest, ResetForgetsTheInterrupt) {
  ::raise(SIGINT);
  interrupt::ResetForTesting();
  EXPECT_FALSE(interrupt::Interrupted());
  EXPECT_FALSE(Readable(interrupt::WakeFd(), 0));
}

TEST_F(InterruptTest, HandlerKillsRegisteredGroups) {
  pid_t pid = SpawnSleeperGroup();
  interrupt::RegisterGroup(pid);
  ::raise(SIGINT);
  EXPECT_EQ(TermSignalWithin(pid, 5000), SIGKILL);
  interrupt::UnregisterGroup(pid);
}

TEST_F(InterruptTest, UnregisteredGroupIsLeftAlone) {
  pid_t pid = SpawnSleeperGroup();
  interrupt::RegisterGroup(pid);
  interrupt::UnregisterGroup(pid);
  ::raise(SIGINT);
  EXPECT_EQ(TermSignalWithin(pid, 50), 0);
  ::kill(-pid, SIGKILL);
  EXPECT_EQ(TermSignalWithin(pid, 5000), SIGKILL);
}

TEST_F(InterruptTest, GroupRegisteredAfterTheSignalIsKilledAtOnce) {
  ::raise(SIGTERM);
  pid_t pid = SpawnSleeperGroup();
  interrupt::RegisterGroup(pid);
  EXPECT_EQ(TermSignalWithin(pid, 5000), SIGKILL);
  interrupt::UnregisterGroup(pid);
}

TEST_F(InterruptTest, KillAllGroupsWithoutASignal) {
  pid_t first = SpawnSleeperGroup();
  pid_t second = SpawnSleeperGroup();
  interrupt::RegisterGroup(first);
  interrupt::RegisterGroup(second);
  interrupt::KillAllGroups();
  EXPECT_EQ(TermSignalWithin(first, 5000), SIGKILL);
  EXPECT_EQ(TermSignalWithin(second, 5000), SIGKILL);
  EXPECT_FALSE(interrupt::Interrupted());
}

// Bisect's cleanup after Ctrl-C (git bisect reset, worktree remove) runs through the ordinary
// runner, which refuses to start anything once interrupted, unless a CleanupWindow is open.
TEST_F(InterruptTest, ACleanupWindowLetsTheRunnerRunAfterAnInterrupt) {
  auto runner = MakeSystemProcessRunner();
  Command command;
  command.argv = {"true"};
  ::raise(SIGINT);
  EXPECT_EQ(runner->Run(command).status, Outcome::Status::kInterrupted);
  {
    interrupt::CleanupWindow window;
    EXPECT_FALSE(interrupt::Interrupted());
    EXPECT_FALSE(Readable(interrupt::WakeFd(), 0));  // a stale wake-up would make every wait spin
    const Outcome outcome = runner->Run(command);
    EXPECT_TRUE(outcome.ok()) << outcome.error;
  }
  // The interrupt is reported again once the cleanup is done.
  EXPECT_TRUE(interrupt::Interrupted());
  EXPECT_EQ(interrupt::Signal(), SIGINT);
  EXPECT_TRUE(Readable(interrupt::WakeFd(), 0));
}

TEST_F(InterruptTest, AFirstSignalDuringCleanupIsHeldUntilItEnds) {
  {
    interrupt::CleanupWindow window;
    ::raise(SIGTERM);
    EXPECT_FALSE(interrupt::Interrupted());
  }
  EXPECT_EQ(interrupt::Signal(), SIGTERM);
}

TEST_F(InterruptTest, NoSignalNoInterruptAfterCleanup) {
  { interrupt::CleanupWindow window; }
  EXPECT_FALSE(interrupt::Interrupted());
  EXPECT_FALSE(Readable(interrupt::WakeFd(), 0));
}

// Ctrl-C again while cleaning up after Ctrl-C: stop now, the cleanup's children killed. In a
// child, since it ends the process.
TEST_F(InterruptTest, ASecondSignalDuringCleanupKillsItsGroupsAndExits130) {
  const pid_t sleeper = SpawnSleeperGroup();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::raise(SIGINT);
    interrupt::CleanupWindow window;
    interrupt::RegisterGroup(sleeper);  // a cleanup command, running
    ::raise(SIGINT);
    ::_exit(4);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(TermSignalWithin(sleeper, 5000), SIGKILL);
}

}  // namespace
}  // namespace pe::runner
