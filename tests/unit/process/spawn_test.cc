// process::StartProcess and process::Reap on real children: what generators' helpers (git) are
// started with, below the runner.
#include "engine/process/spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "tests/unit/runner/temp_dir.h"

namespace pe::process {
namespace {

// Runs `sh -c script` with stdout and stderr into one pipe; returns what it wrote.
std::string RunShell(const std::string& script, Exit* exit, pid_t* pid = nullptr) {
  int ends[2];
  EXPECT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  UniqueFd read_end(ends[0]);
  UniqueFd write_end(ends[1]);
  UniqueFd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  StartRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", script};
  request.env = ChildEnvironment({});
  request.stdin_fd = null_in.get();
  request.stdout_fd = write_end.get();
  request.stderr_fd = write_end.get();
  Spawned spawned = StartProcess(request);
  write_end.Reset();
  EXPECT_EQ(spawned.error, "");
  if (pid != nullptr) *pid = spawned.pid;
  std::string output;
  char buffer[256];
  ssize_t n;
  while ((n = ::read(read_end.get(), buffer, sizeof buffer)) > 0) output.append(buffer, static_cast<std::size_t>(n));
  *exit = Reap(spawned);
  return output;
}

TEST(SpawnTest, StdoutAndStderrComeBackAndTheExitStatusIsItsOwn) {
  Exit exit;
  EXPECT_EQ(RunShell("printf out; printf err >&2; exit 3", &exit), "outerr");
  EXPECT_EQ(exit.ExitCode(), 3);
  EXPECT_FALSE(exit.spawner_lost);
  EXPECT_GT(exit.wall_s, 0);
}

TEST(SpawnTest, AChildKilledByASignalHasNoExitCode) {
  Exit exit;
  RunShell("kill -TERM $$", &exit);
  EXPECT_EQ(exit.ExitCode(), std::nullopt);
  ASSERT_TRUE(WIFSIGNALED(exit.wait_status));
  EXPECT_EQ(WTERMSIG(exit.wait_status), SIGTERM);
}

TEST(SpawnTest, TheChildLeadsAProcessGroupOfItsOwn) {
  Exit exit;
  pid_t pid = -1;
  // Field 5 of /proc/PID/stat is the process group.
  const std::string group = RunShell("read -r _ _ _ _ pgrp _ < /proc/$$/stat; echo $pgrp", &exit, &pid);
  EXPECT_EQ(exit.ExitCode(), 0);
  EXPECT_NE(pid, ::getpgrp());
  EXPECT_EQ(group, std::to_string(pid) + "\n");
}

TEST(SpawnTest, AProgramThatCannotBeExecutedIsNotSpawnedAndSaysWhy) {
  testing::TempDir dir;
  std::ofstream(dir / "plain") << "not a program\n";
  UniqueFd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
  StartRequest request;
  request.program = dir / "plain";
  request.argv = {"plain"};
  request.stdin_fd = request.stdout_fd = request.stderr_fd = null.get();
  Spawned spawned = StartProcess(request);
  EXPECT_EQ(spawned.pid, -1);
  EXPECT_EQ(spawned.error, "cannot start plain: Permission denied");
}

}  // namespace
}  // namespace pe::process
