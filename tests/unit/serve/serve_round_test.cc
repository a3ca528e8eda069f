// One serve round against the real stub-http-server, each test checking that no server or
// helper is left behind whatever happened.
#include "engine/serve/serve_round.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "engine/runner/interrupt.h"
#include "tests/unit/http/held_port.h"
#include "tests/unit/runner/process_table.h"

namespace pe::serve {

using runner::Command;
using runner::MakeSystemProcessRunner;
using runner::Outcome;
using runner::ProcessRunner;
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Status = Outcome::Status;
using pe::testing::CountChildrenOf;
using pe::testing::CountLeftOver;
using pe::testing::HeldPort;

const std::string kStub = STUB_HTTP_SERVER;
const std::string kDeaf = DEAF_TO_SIGTERM;

// The stub on the port the round picked, with `args` after it.
std::function<Command(int)> Stub(std::vector<std::string> args) {
  return [args](int port) {
    Command command;
    command.argv = {kStub, "--port", std::to_string(port)};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    return command;
  };
}

ServeRequestSpec Requests(std::vector<std::string> targets, int count, int concurrency) {
  ServeRequestSpec spec;
  for (const std::string& target : targets) {
    http::Request request;
    request.target = target;
    spec.requests.push_back(request);
  }
  spec.count = count;
  spec.concurrency = concurrency;
  spec.request_timeout_s = 5;
  return spec;
}

class ServeRoundTest : public ::testing::Test {
 protected:
  void SetUp() override { interrupt::ResetForTesting(); }
  void TearDown() override {
    interrupt::ResetForTesting();
    EXPECT_EQ(CountLeftOver(), 0);  // the spawner aside, nothing we started, not even a zombie
  }

  // The real runner: these tests are about the real stub server and its processes.
  std::unique_ptr<ProcessRunner> runner_ = MakeSystemProcessRunner();

  ServeRoundOptions Options() {
    ServeRoundOptions options;
    options.ready_timeout_s = 10;
    options.stop_grace_s = 5;
    return options;
  }
};

TEST_F(ServeRoundTest, NormalRoundMeasuresLatencyThroughputAndReadiness) {
  ServeRoundOptions options = Options();
  options.keep_bodies = true;
  ServeRoundResult result =
      RunServeRound(*runner_, Stub({"--ready-after-ms", "100", "--latency-ms", "20", "--body", "{target}"}),
                    Requests({"/a", "/b", "/c"}, 24, 4), options);
  ASSERT_TRUE(result.ok) << result.failure << "\n" << result.detail;
  EXPECT_EQ(result.failure, "");
  EXPECT_EQ(result.failed, ServeRoundResult::Failure::kNone);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_GT(result.port, 0);
  EXPECT_GE(result.time_to_ready_s, 0.1);
  EXPECT_LT(result.time_to_ready_s, 10);

  ASSERT_EQ(result.latencies_s.size(), 24u);
  for (double latency : result.latencies_s) EXPECT_GE(latency, 0.02);
  EXPECT_GE(result.p50, 0.02);
  EXPECT_LE(result.p50, result.p90);
  EXPECT_LE(result.p90, result.p99);
  EXPECT_LE(result.p99, result.max);
  EXPECT_EQ(result.max, *std::max_element(result.latencies_s.begin(), result.latencies_s.end()));
  EXPECT_GT(result.wall_s, 0);
  EXPECT_DOUBLE_EQ(result.throughput_rps, 24 / result.wall_s);
  // 4 connections, 20 ms each: 6 waves, so the run cannot beat 0.12 s nor 200 requests/s.
  EXPECT_GE(result.wall_s, 0.12);
  EXPECT_LE(result.throughput_rps, 200);

  ASSERT_EQ(result.bodies.size(), 24u);
  const char* targets[] = {"/a", "/b", "/c"};
  for (size_t i = 0; i < result.bodies.size(); ++i) EXPECT_EQ(result.bodies[i], targets[i % 3]);

  EXPECT_EQ(result.server.status, Status::kExited);  // stopped by SIGTERM, exit 0
  EXPECT_EQ(result.server.exit_code, 0);
  EXPECT_GT(result.server.max_rss_kib, 0);
  // The server lived through the whole round: its clock (the spawner's) starts before it exists
  // and stops once it is reaped, after the last answer; and it answered 503 for the first 100 ms
  // of its own life. Each step waits for the one before, so no scheduling delay can break this.
  // (Comparing with time to ready cannot hold under load: that clock starts in the engine, an
  // unbounded moment before the spawner's.)
  EXPECT_GE(result.server.wall_s, 0.1 + result.wall_s);
}

TEST_F(ServeRoundTest, BodiesAreNotKeptUnlessAsked) {
  ServeRoundResult result = RunServeRound(*runner_, Stub({}), Requests({"/a"}, 3, 1), Options());
  ASSERT_TRUE(result.ok) << result.failure;
  EXPECT_TRUE(result.bodies.empty());
  EXPECT_EQ(result.latencies_s.size(), 3u);
}

TEST_F(ServeRoundTest, NeverHealthy) {
  ServeRoundOptions options = Options();
  options.ready_timeout_s = 0.3;
  ServeRoundResult result =
      RunServeRound(*runner_, Stub({"--ready-after-ms", "60000"}), Requests({"/a"}, 3, 1), options);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.failure, "not healthy after 0.3 s: last answer 503");
  EXPECT_EQ(result.attempts, 1);
  EXPECT_TRUE(result.latencies_s.empty());
}

TEST_F(ServeRoundTest, HealthPathIsTheOneGiven) {
  ServeRoundOptions options = Options();
  options.health_path = "/ready";
  ServeRoundResult result = RunServeRound(*runner_, Stub({"--health-path", "/ready"}), Requests({"/a"}, 2, 1), options);
  EXPECT_TRUE(result.ok) << result.failure;
}

TEST_F(ServeRoundTest, ServerThatExitsBeforeHealthyIsNotRetried) {
  ServeRoundResult result = RunServeRound(*runner_, Stub({"--no-such-flag"}), Requests({"/a"}, 3, 1), Options());
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.failure, "server exited before becoming healthy (exit status 2)");
  EXPECT_EQ(result.failed, ServeRoundResult::Failure::kFailed);  // it started: not a spawn failure
  EXPECT_EQ(result.detail, "stub-http-server: unknown flag --no-such-flag");
  EXPECT_EQ(result.attempts, 1);
  EXPECT_EQ(result.server.exit_code, 2);
}

TEST_F(ServeRoundTest, CrashMidRunNamesTheRequestAndTheExit) {
  ServeRoundResult result = RunServeRound(*runner_, Stub({"--crash-after", "5"}), Requests({"/x"}, 20, 1), Options());
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.failure, StartsWith("server stopped answering: "));
  EXPECT_THAT(result.failure, EndsWith(" (request 5: GET /x); the server had exited (exit status 1)"));
  EXPECT_EQ(result.server.status, Status::kExited);
  EXPECT_EQ(result.server.exit_code, 1);
}

TEST_F(ServeRoundTest, Non2xxAnswerFailsNamingTheRequest) {
  ServeRoundOptions options = Options();
  options.keep_bodies = true;
  ServeRoundResult result = RunServeRound(*runner_, Stub({"--status", "500", "--body", "broke on {target}"}),
                                          Requests({"/first", "/second"}, 4, 1), options);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.failure, "request 0: GET /first answered 500");
  EXPECT_EQ(result.detail, "request 0: GET /first answered 500: broke on /first");
  // The server itself was fine and was stopped politely.
  EXPECT_EQ(result.server.status, Status::kExited);
  EXPECT_EQ(result.server.exit_code, 0);
}

TEST_F(ServeRoundTest, LostPortIsRetriedOnANewPort) {
  HeldPort taken(/*listening=*/true);
  int picks = 0;
  ServeRoundOptions options = Options();
  options.pick_port = [&] { return picks++ == 0 ? taken.port() : http::PickFreePort(); };
  ServeRoundResult result = RunServeRound(*runner_, Stub({}), Requests({"/a"}, 5, 2), options);
  ASSERT_TRUE(result.ok) << result.failure << "\n" << result.detail;
  EXPECT_EQ(result.attempts, 2);
  EXPECT_EQ(picks, 2);
  EXPECT_NE(result.port, taken.port());
  EXPECT_EQ(result.latencies_s.size(), 5u);
}

TEST_F(ServeRoundTest, LostPortRetriesAreBounded) {
  HeldPort taken(/*listening=*/true);
  ServeRoundOptions options = Options();
  options.port_attempts = 2;
  options.pick_port = [&] { return taken.port(); };
  ServeRoundResult result = RunServeRound(*runner_, Stub({}), Requests({"/a"}, 5, 2), options);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.failure, "server lost its port to another process 2 times (exit status 98)");
  EXPECT_THAT(result.detail, HasSubstr("address in use"));
  EXPECT_EQ(result.attempts, 2);
}

TEST_F(ServeRoundTest, ServerIgnoringSigtermIsKilledAfterTheGrace) {
  ServeRoundOptions options = Options();
  options.stop_grace_s = 0.2;
  auto deaf = [](int port) {
    Command command = Stub({})(port);
    command.argv.insert(command.argv.begin(), kDeaf);
    return command;
  };
  ServeRoundResult result = RunServeRound(*runner_, deaf, Requests({"/a"}, 3, 1), options);
  ASSERT_TRUE(result.ok) << result.failure;  // the figures stand; how it ended is recorded
  EXPECT_EQ(result.server.status, Status::kSignalled);
  EXPECT_EQ(result.server.signal, SIGKILL);
  EXPECT_EQ(result.server.error, "did not stop within 0.2 s of SIGTERM; killed");
}

TEST_F(ServeRoundTest, MissingProgramCannotStart) {
  auto missing = [](int) {
    Command command;
    command.argv = {"no-such-server-for-pe-tests"};
    return command;
  };
  ServeRoundResult result = RunServeRound(*runner_, missing, Requests({"/a"}, 1, 1), Options());
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.failure, "cannot start server: program not found: no-such-server-for-pe-tests");
  EXPECT_EQ(result.failed, ServeRoundResult::Failure::kNotStarted);
}

TEST_F(ServeRoundTest, InterruptStopsTheServer) {
  // Ctrl-C once the server listens, whenever that is on a loaded machine: a fixed delay could
  // land before the server was started, and the round would have no server to stop.
  char dir_template[] = "/tmp/serve-round-test-XXXXXX";
  const std::string port_file = std::string(::mkdtemp(dir_template)) + "/port";
  std::thread ctrl_c([&] {
    for (int i = 0; i < 60000 && ::access(port_file.c_str(), F_OK) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::kill(::getpid(), SIGINT);
  });
  // 2000 requests of 50 ms on one connection: 100 s unless interrupted.
  const auto start = std::chrono::steady_clock::now();
  ServeRoundResult result = RunServeRound(*runner_, Stub({"--latency-ms", "50", "--port-file", port_file}),
                                          Requests({"/a"}, 2000, 1), Options());
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctrl_c.join();
  ::unlink(port_file.c_str());
  ::rmdir(port_file.substr(0, port_file.rfind('/')).c_str());
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.failure, "interrupted");
  EXPECT_EQ(result.server.status, Status::kInterrupted);
  EXPECT_LT(elapsed, 60);  // the interrupt ended the round, not its 2000 requests
}

TEST_F(ServeRoundTest, EmptyWorkloadIsRejectedBeforeStarting) {
  EXPECT_EQ(RunServeRound(*runner_, Stub({}), Requests({}, 3, 1), Options()).failure, "no requests to send");
  EXPECT_EQ(RunServeRound(*runner_, Stub({}), Requests({"/a"}, 0, 1), Options()).failure,
            "request count must be positive, not 0");
  EXPECT_EQ(RunServeRound(*runner_, Stub({}), Requests({"/a"}, 1, 0), Options()).failure,
            "concurrency must be positive, not 0");
}

}  // namespace
}  // namespace pe::serve
