// RunHeld is the perf_event_open path without the counter: hosts that refuse perf counters
// still test the fork, attach, exec and wait machinery here.
#include "engine/runner/held_child.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/unit/gitbuild/test_repo.h"

namespace pe::runner {

namespace {

using Status = Outcome::Status;

TEST(RunHeldTest, AttachesBeforeExecThenRunsTheCommandAsGiven) {
  testing::ScratchDirectory dir;
  Command command;
  command.argv = {"sh", "-c", "echo $$; pwd; echo $PE_HELD; cat"};
  command.cwd = dir.path();
  command.env["PE_HELD"] = "42";
  command.stdout_path = dir.path() / "out.txt";
  pid_t attached = 0;
  bool own_group = false;
  Outcome outcome = RunHeld(command, [&](pid_t pid) {
    attached = pid;
    own_group = ::getpgid(pid) == pid;
    return true;
  });
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_TRUE(own_group);
  // stdin is /dev/null, so `cat` prints nothing and ends.
  EXPECT_EQ(testing::ReadText(dir.path() / "out.txt"),
            std::to_string(attached) + "\n" + dir.path().string() + "\n42\n");
  EXPECT_GT(outcome.wall_s, 0);
}

TEST(RunHeldTest, RefusedAttachMeansTheProgramNeverRuns) {
  testing::ScratchDirectory dir;
  Command command;
  command.argv = {"touch", (dir.path() / "ran").string()};
  Outcome outcome = RunHeld(command, [](pid_t) { return false; });
  EXPECT_EQ(outcome.status, Status::kSpawnFailed);
  EXPECT_EQ(outcome.error, "not started: could not attach to the child");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "ran"));
}

TEST(RunHeldTest, ExitStatusAndTimeoutAreReported) {
  Command failing;
  failing.argv = {"sh", "-c", "exit 3"};
  Outcome failed = RunHeld(failing, [](pid_t) { return true; });
  EXPECT_EQ(failed.status, Status::kExited);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.error, "exited with status 3");

  Command slow;
  slow.argv = {"sleep", "600"};
  slow.timeout_s = 0.2;
  Outcome timed_out = RunHeld(slow, [](pid_t) { return true; });
  EXPECT_EQ(timed_out.status, Status::kTimedOut);
  EXPECT_LT(timed_out.wall_s, 60);  // killed at its 0.2 s timeout, not after its 600 s sleep
}

TEST(RunHeldTest, MissingProgramIsNotStarted) {
  bool attach_called = false;
  Command command;
  command.argv = {"/nonexistent/program"};
  Outcome outcome = RunHeld(command, [&](pid_t) { return attach_called = true; });
  EXPECT_EQ(outcome.status, Status::kSpawnFailed);
  EXPECT_FALSE(attach_called);
  EXPECT_NE(outcome.error.find("/nonexistent/program"), std::string::npos) << outcome.error;
}

}  // namespace
}  // namespace pe::runner
