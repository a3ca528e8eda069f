// ServerProcess against the real stub-http-server: start without waiting, stop politely or
// not, and never leave a process behind.
#include "engine/runner/server_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/http/port.h"
#include "engine/runner/interrupt.h"
#include "tests/unit/runner/process_table.h"
#include "tests/unit/runner/temp_dir.h"

namespace pe::runner {
namespace {

using Status = Outcome::Status;
using testing::CountChildrenOf;
using testing::CountInGroup;
using testing::CountLeftOver;
using testing::Gone;

const std::string kServerProcessStub = STUB_HTTP_SERVER;
const std::string kServerProcessDeaf = DEAF_TO_SIGTERM;
const std::string kContender = STUB_CONTENDER;

class ServerProcessTest : public ::testing::Test {
 protected:
  void SetUp() override { interrupt::ResetForTesting(); }
  void TearDown() override {
    interrupt::ResetForTesting();
    EXPECT_EQ(CountLeftOver(), 0);  // the spawner aside, nothing we started, not even a zombie
  }

  // The stub on a port the kernel picks, so parallel tests never race for one.
  Command Stub(std::vector<std::string> args) {
    Command command;
    command.argv = {kServerProcessStub, "--port", "0", "--port-file", (dir_ / "port").string()};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.stderr_path = dir_ / "stderr";
    return command;
  }

  // Waits until the stub reported its port and accepts connections there.
  int WaitForPort() {
    for (int i = 0; i < 2500; ++i) {
      std::ifstream in(dir_ / "port");
      int port = 0;
      if (in >> port && port > 0 && http::PortAcceptsConnections(port)) return port;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return -1;
  }

  testing::TempDir dir_;
};

TEST_F(ServerProcessTest, StartsWithoutWaitingAndStopsWithSigterm) {
  ServerProcess server;
  ASSERT_EQ(server.Start(Stub({})), "");
  EXPECT_GT(server.pid(), 0);
  EXPECT_GT(WaitForPort(), 0);
  EXPECT_TRUE(server.Running());
  EXPECT_EQ(::getpgid(server.pid()), server.pid());  // its own process group

  Outcome outcome = server.Stop(5);
  EXPECT_EQ(outcome.status, Status::kExited);  // the stub exits 0 on SIGTERM
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(outcome.error, "");
  EXPECT_GT(outcome.wall_s, 0);  // exit 0 above: it stopped on SIGTERM, not killed after the grace
  EXPECT_GT(outcome.max_rss_kib, 0);
  EXPECT_FALSE(server.Running());
  EXPECT_TRUE(Gone(server.pid()));
}

TEST_F(ServerProcessTest, StopTwiceReturnsTheSameOutcome) {
  ServerProcess server;
  ASSERT_EQ(server.Start(Stub({})), "");
  ASSERT_GT(WaitForPort(), 0);
  Outcome first = server.Stop(5);
  Outcome second = server.Stop(5);
  EXPECT_EQ(second.status, first.status);
  EXPECT_EQ(second.wall_s, first.wall_s);
  EXPECT_EQ(second.max_rss_kib, first.max_rss_kib);
}

TEST_F(ServerProcessTest, IgnoredSigtermIsFollowedBySigkillAfterTheGrace) {
  Command command = Stub({});
  command.argv.insert(command.argv.begin(), kServerProcessDeaf);
  ServerProcess server;
  ASSERT_EQ(server.Start(command), "");
  ASSERT_GT(WaitForPort(), 0);
  const pid_t pid = server.pid();

  Outcome outcome = server.Stop(0.3);
  EXPECT_EQ(outcome.status, Status::kSignalled);
  EXPECT_EQ(outcome.signal, SIGKILL);
  EXPECT_EQ(outcome.error, "did not stop within 0.3 s of SIGTERM; killed");
  EXPECT_GE(outcome.wall_s, 0.3);
  EXPECT_EQ(CountInGroup(pid), 0);
}

TEST_F(ServerProcessTest, WaitCollectsAServerThatDiedByItself) {
  ServerProcess server;
  ASSERT_EQ(server.Start(Stub({"--exit-after-ms", "50"})), "");
  EXPECT_TRUE(server.ExitsWithin(10));
  EXPECT_FALSE(server.Running());
  Outcome outcome = server.Wait();
  EXPECT_EQ(outcome.status, Status::kExited);
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_EQ(outcome.error, "exited with status 1");
}

TEST_F(ServerProcessTest, HelperLeftInTheGroupIsKilledAndReaped) {
  // The "server" forks a helper that hangs with SIGTERM blocked, then exits at once.
  Command command;
  command.argv = {kServerProcessDeaf, kContender, "--spawn-child-hang", (dir_ / "helper.pid").string()};
  ServerProcess server;
  ASSERT_EQ(server.Start(command), "");
  Outcome outcome = server.Wait();
  EXPECT_EQ(outcome.status, Status::kExited);
  EXPECT_EQ(outcome.exit_code, 0);
  std::ifstream in(dir_ / "helper.pid");
  pid_t helper = 0;
  ASSERT_TRUE(in >> helper);
  EXPECT_TRUE(Gone(helper));
  EXPECT_EQ(CountInGroup(server.pid()), 0);
}

TEST_F(ServerProcessTest, ExitsWithinIsFalseForALiveServer) {
  ServerProcess server;
  ASSERT_EQ(server.Start(Stub({})), "");
  EXPECT_FALSE(server.ExitsWithin(0.05));
  EXPECT_TRUE(server.Running());
}

TEST_F(ServerProcessTest, DestructorKillsAndReapsARunningServer) {
  pid_t pid = -1;
  {
    ServerProcess server;
    ASSERT_EQ(server.Start(Stub({})), "");
    ASSERT_GT(WaitForPort(), 0);
    pid = server.pid();
  }
  EXPECT_TRUE(Gone(pid));
  EXPECT_EQ(CountInGroup(pid), 0);
}

TEST_F(ServerProcessTest, MissingProgramIsAnErrorAndNothingRuns) {
  Command command;
  command.argv = {"no-such-server-for-pe-tests"};
  ServerProcess server;
  EXPECT_EQ(server.Start(command), "program not found: no-such-server-for-pe-tests");
  EXPECT_EQ(server.pid(), -1);
  EXPECT_FALSE(server.Running());
}

TEST_F(ServerProcessTest, InterruptWhileStoppingKillsAtOnce) {
  Command command = Stub({});
  command.argv.insert(command.argv.begin(), kServerProcessDeaf);
  ServerProcess server;
  ASSERT_EQ(server.Start(command), "");
  ASSERT_GT(WaitForPort(), 0);
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ::kill(::getpid(), SIGINT);
  });
  const auto start = std::chrono::steady_clock::now();
  Outcome outcome = server.Stop(30);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctrl_c.join();
  EXPECT_EQ(outcome.status, Status::kInterrupted);
  EXPECT_EQ(outcome.error, "interrupted by SIGINT; the server's process group was killed");
  EXPECT_LT(elapsed, 20);  // the interrupt ended the wait, not the 30 s grace, however loaded the machine
}

TEST_F(ServerProcessTest, NothingStartsAfterAnInterrupt) {
  interrupt::InstallHandlers();
  ::raise(SIGTERM);
  ServerProcess server;
  EXPECT_EQ(server.Start(Stub({})), "interrupted before start");
  EXPECT_EQ(server.pid(), -1);
}

}  // namespace
}  // namespace pe::runner
