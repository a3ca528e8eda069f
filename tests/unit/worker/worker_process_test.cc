// WorkerProcess against the real test worker (tests/stub/worker/test_worker.cc) through the real
// spawner: a good worker's batches, and each bad worker of issue 41, item 7 as one exact line
// with nothing left running. No test compares two timings; figures are checked for shape.
#include "engine/worker/worker_process.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/runner/interrupt.h"
#include "tests/unit/runner/process_table.h"
#include "tests/unit/runner/temp_dir.h"

namespace pe::worker {
namespace {

class WorkerProcessTest : public ::testing::Test {
 protected:
  runner::Command WorkerCommand(const std::vector<std::string>& flags) {
    runner::Command command;
    command.argv = {TEST_WORKER};
    command.argv.insert(command.argv.end(), flags.begin(), flags.end());
    command.stderr_path = dir_ / "stderr";
    return command;
  }

  // Starts the test worker with `flags`; fails the test when it does not greet.
  void StartGood(WorkerProcess& worker, const std::vector<std::string>& flags) {
    ASSERT_EQ(worker.Start(WorkerCommand(flags), settings_), "");
  }

  // The worker's process group is gone and nothing we started is left.
  void ExpectNothingLeft(pid_t pgid) {
    EXPECT_EQ(testing::CountInGroup(pgid), 0);
    EXPECT_EQ(testing::CountLeftOver(), 0);
  }

  testing::TempDir dir_;
  WorkerSettings settings_{.start_timeout_s = 30, .request_timeout_s = 30, .quit_grace_s = 5};
};

TEST_F(WorkerProcessTest, AGoodWorkerGreetsRunsBatchesAndQuits) {
  WorkerProcess worker("baseline");
  StartGood(worker, {});
  EXPECT_EQ(worker.hello(), (Hello{1, {"sum", "sleep", "stdin"}, {"calls"}}));
  const pid_t pgid = worker.pid();
  for (const std::int64_t iterations : {1, 1000}) {
    const BatchResult result = worker.Run("sum", iterations);
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_EQ(result.batch.name, "sum");
    EXPECT_EQ(result.batch.iterations, iterations);
    EXPECT_EQ(result.batch.counters, (std::map<std::string, std::int64_t>{{"calls", iterations}}));
    // The sum of k*k for k = 1..1000 is the result whatever the count, so its digest is too.
    EXPECT_EQ(result.batch.digest.size(), 16u);
  }
  const BatchResult more = worker.Run("sum", 200000);
  ASSERT_TRUE(more.ok()) << more.error;
  EXPECT_GT(more.batch.thread_cpu_ns, 0);
  EXPECT_GE(more.batch.process_cpu_ns, more.batch.thread_cpu_ns);
  EXPECT_GT(more.batch.wall_ns, 0);
  EXPECT_EQ(more.batch.digest, worker.Run("sum", 1).batch.digest);
  EXPECT_EQ(worker.Quit(), "");
  EXPECT_TRUE(worker.outcome().ok());
  EXPECT_FALSE(worker.alive());
  ExpectNothingLeft(pgid);
}

TEST_F(WorkerProcessTest, ASleepingBatchTakesWallTimeButLittleCpu) {
  WorkerProcess worker("baseline");
  StartGood(worker, {});
  const BatchResult result = worker.Run("sleep", 20);
  ASSERT_TRUE(result.ok()) << result.error;
  // 20 sleeps of 1 ms: at least 20 ms of wall time, whatever the machine's load.
  EXPECT_GE(result.batch.wall_ns, 20'000'000);
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(WorkerProcessTest, TheBenchmarksStdinIsNotTheChannel) {
  WorkerProcess worker("baseline");
  StartGood(worker, {});
  // The test worker's "stdin" benchmark reads one byte of stdin: /dev/null gives none.
  const BatchResult result = worker.Run("stdin", 3);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(WorkerProcessTest, AWorkerRunsInTheSandbox) {
  runner::Command command = WorkerCommand({});
  command.sandbox.enabled = true;
  command.sandbox.writable = {dir_.path()};
  WorkerProcess worker("baseline");
  ASSERT_EQ(worker.Start(command, settings_), "");
  const BatchResult result = worker.Run("sum", 10);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(worker.Quit(), "");
  ExpectNothingLeft(worker.pid());
}

TEST_F(WorkerProcessTest, APinnedWorkerRunsOnItsCpu) {
  runner::Command command = WorkerCommand({});
  command.cpu = 0;
  WorkerProcess worker("baseline");
  ASSERT_EQ(worker.Start(command, settings_), "");
  cpu_set_t cpus;
  ASSERT_EQ(::sched_getaffinity(worker.pid(), sizeof cpus, &cpus), 0);
  EXPECT_EQ(CPU_COUNT(&cpus), 1);
  EXPECT_TRUE(CPU_ISSET(0, &cpus));
  EXPECT_TRUE(worker.Run("sum", 10).ok());
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(WorkerProcessTest, ACrashNamesWorkerBenchmarkSignalAndStderr) {
  WorkerProcess worker("candidate");
  StartGood(worker, {"--crash-on", "sum", "--stderr", "loading suite\nready"});
  const pid_t pgid = worker.pid();
  EXPECT_EQ(worker.Run("sum", 10).error,
            "worker 'candidate', benchmark 'sum': killed by SIGSEGV before its reply; its stderr ends: loading suite "
            "| ready");
  EXPECT_FALSE(worker.alive());
  // The same error again, and for quit: the worker is gone.
  EXPECT_EQ(worker.Run("sleep", 1).error, worker.Quit());
  ExpectNothingLeft(pgid);
}

TEST_F(WorkerProcessTest, AnEarlyExitNamesItsStatus) {
  WorkerProcess worker("candidate");
  StartGood(worker, {"--exit-on", "sleep"});
  ASSERT_TRUE(worker.Run("sum", 1).ok());
  EXPECT_EQ(worker.Run("sleep", 1).error,
            "worker 'candidate', benchmark 'sleep': exited with status 0 before its reply; its stderr is empty");
  ExpectNothingLeft(worker.pid());
}

TEST_F(WorkerProcessTest, AHangIsKilledWithItsChildrenAfterTheTimeout) {
  settings_.request_timeout_s = 0.5;
  WorkerProcess worker("candidate");
  StartGood(worker, {"--hang-on", "sum", "--hang-child", (dir_ / "child.pid").string()});
  const pid_t pgid = worker.pid();
  EXPECT_EQ(worker.Run("sum", 1).error,
            "worker 'candidate', benchmark 'sum': no reply within 0.5 s; its process group was killed; its stderr is "
            "empty");
  // The worker's own child, started as it hung, went with it.
  int child = 0;
  std::ifstream(dir_ / "child.pid") >> child;
  ASSERT_GT(child, 0);
  EXPECT_TRUE(testing::Gone(child));
  ExpectNothingLeft(pgid);
}

TEST_F(WorkerProcessTest, CtrlCKillsAHungWorkerAndSaysSo) {
  WorkerProcess worker("candidate");
  StartGood(worker, {"--hang-on", "sum"});
  const pid_t pgid = worker.pid();
  std::thread raiser([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::raise(SIGINT);
  });
  const std::string error = worker.Run("sum", 1).error;
  raiser.join();
  interrupt::ResetForTesting();
  EXPECT_EQ(error, "worker 'candidate', benchmark 'sum': interrupted by SIGINT; its stderr is empty");
  ExpectNothingLeft(pgid);
}

TEST_F(WorkerProcessTest, AWorkerThatNeverGreetsTimesOut) {
  settings_.start_timeout_s = 0.5;
  WorkerProcess worker("candidate");
  EXPECT_EQ(worker.Start(WorkerCommand({"--hang-before-hello", "--stderr", "compiling"}), settings_),
            "worker 'candidate', at start: no hello within 0.5 s; its process group was killed; its stderr ends: "
            "compiling");
  ExpectNothingLeft(worker.pid());
}

TEST_F(WorkerProcessTest, GarbageIsNotTheProtocol) {
  WorkerProcess worker("candidate");
  StartGood(worker, {"--garbage-on", "sum"});
  EXPECT_EQ(worker.Run("sum", 5).error,
            "worker 'candidate', benchmark 'sum': not the protocol: expected 'done' or 'failed', got 'garbage'; its "
            "stderr is empty");
  ExpectNothingLeft(worker.pid());
}

TEST_F(WorkerProcessTest, AReplyForAnotherBenchmarkIsRefused) {
  WorkerProcess worker("candidate");
  StartGood(worker, {"--wrong-name-on", "sum"});
  EXPECT_EQ(worker.Run("sum", 5).error,
            "worker 'candidate', benchmark 'sum': not the protocol: reply for benchmark 'sum2', asked for 'sum'; its "
            "stderr is empty");
  ExpectNothingLeft(worker.pid());
}

TEST_F(WorkerProcessTest, AnOverlongLineIsRefusedWithoutWaitingForItsEnd) {
  WorkerProcess worker("candidate");
  StartGood(worker, {"--long-line-on", "sum"});
  EXPECT_EQ(worker.Run("sum", 5).error,
            "worker 'candidate', benchmark 'sum': not the protocol: line longer than 65536 bytes; its stderr is empty");
  ExpectNothingLeft(worker.pid());
}

TEST_F(WorkerProcessTest, ALineNobodyAskedForIsRefusedAtTheNextRequest) {
  WorkerProcess worker("candidate");
  StartGood(worker, {"--extra-line-on", "sum"});
  ASSERT_TRUE(worker.Run("sum", 1).ok());
  EXPECT_EQ(worker.Run("sleep", 1).error,
            "worker 'candidate', benchmark 'sleep': not the protocol: a line nobody asked for: 'done name=sum "
            "iterations=1 thread_cpu_ns=1 process_cpu_ns=1 wall_ns=1 digest=- c'...; its stderr is empty");
  ExpectNothingLeft(worker.pid());
}

TEST_F(WorkerProcessTest, AWrongVersionIsRefusedAtStart) {
  WorkerProcess worker("candidate");
  EXPECT_EQ(worker.Start(WorkerCommand({"--hello", "hello version=2 benchmarks=sum"}), settings_),
            "worker 'candidate', at start: not the protocol: protocol version 2 is not supported (this engine speaks "
            "version 1); its stderr is empty");
  ExpectNothingLeft(worker.pid());
}

TEST_F(WorkerProcessTest, AnExitBeforeTheHelloNamesItsStatus) {
  WorkerProcess worker("candidate");
  runner::Command command = WorkerCommand({});
  command.env[kFdsVariable] = "";  // overridden by the engine: the worker still finds its channel
  ASSERT_EQ(worker.Start(command, settings_), "");
  EXPECT_EQ(worker.Quit(), "");
  // A worker that cannot find its channel exits 2 and says why on stderr.
  WorkerProcess lost("lost");
  runner::Command sleeper = WorkerCommand({});
  sleeper.argv = {"/bin/sh", "-c", "echo no channel here >&2; exit 2"};
  EXPECT_EQ(lost.Start(sleeper, settings_),
            "worker 'lost', at start: exited with status 2 before its hello; its stderr ends: no channel here");
  ExpectNothingLeft(lost.pid());
}

TEST_F(WorkerProcessTest, AFailedBenchmarkIsAnErrorButTheWorkerStaysUp) {
  WorkerProcess worker("candidate");
  StartGood(worker, {"--fail-on", "sum"});
  EXPECT_EQ(worker.Run("sum", 5).error,
            "worker 'candidate', benchmark 'sum': the benchmark failed: 'fixture missing: data.json'");
  EXPECT_TRUE(worker.alive());
  EXPECT_TRUE(worker.Run("sleep", 1).ok());
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(WorkerProcessTest, ABenchmarkTheWorkerDoesNotOfferIsNotAsked) {
  WorkerProcess worker("candidate");
  StartGood(worker, {});
  EXPECT_EQ(worker.Run("parse", 5).error, "worker 'candidate', benchmark 'parse': the worker offers no such benchmark");
  EXPECT_TRUE(worker.alive());
  EXPECT_EQ(worker.Quit(), "");
}

TEST_F(WorkerProcessTest, AWorkerThatIgnoresQuitIsKilled) {
  settings_.quit_grace_s = 0.5;
  WorkerProcess worker("candidate");
  StartGood(worker, {"--ignore-quit"});
  const pid_t pgid = worker.pid();
  EXPECT_EQ(worker.Quit(),
            "worker 'candidate', at quit: did not exit within 0.5 s of 'quit'; its process group was killed; its "
            "stderr is empty");
  ExpectNothingLeft(pgid);
}

TEST_F(WorkerProcessTest, AMissingProgramIsAnErrorAtStart) {
  WorkerProcess worker("candidate");
  runner::Command command = WorkerCommand({});
  command.argv = {(dir_ / "no-such-worker").string()};
  EXPECT_EQ(worker.Start(command, settings_),
            "worker 'candidate', at start: program not found: " + (dir_ / "no-such-worker").string());
}

TEST_F(WorkerProcessTest, DestroyingARunningWorkerKillsIt) {
  pid_t pgid = -1;
  {
    WorkerProcess worker("candidate");
    StartGood(worker, {});
    pgid = worker.pid();
    ASSERT_GT(testing::CountInGroup(pgid), 0);
  }
  ExpectNothingLeft(pgid);
}

}  // namespace
}  // namespace pe::worker
