#include "engine/http/health.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "tests/unit/http/held_port.h"
#include "tests/unit/http/http_test.h"

namespace pe::testing {
namespace {

using HealthTest = HttpTest;
using Clock = std::chrono::steady_clock;

TEST_F(HealthTest, ReadyAfterDelayIsMeasured) {
  const auto spawned = Clock::now();
  auto server = StubServer::Start({"--ready-after-ms", "300"});
  // The server counts its 300 ms from its own start, which is after `spawned`; the part of
  // them spent before the call is not in the measured figure.
  const double before_call = std::chrono::duration<double>(Clock::now() - spawned).count();
  const http::HealthResult health =
      http::WaitUntilHealthy(server->port(), "/health", 120.0, [&] { return server->Running(); });
  EXPECT_TRUE(health.healthy) << health.error;
  EXPECT_EQ(health.error, "");
  EXPECT_EQ(health.last_status, 200);
  EXPECT_GE(health.time_to_ready_s, 0.3 - before_call);
  EXPECT_LT(health.time_to_ready_s, 60);  // the readiness, not the 120 s deadline, however loaded the machine
}

TEST_F(HealthTest, CustomHealthPath) {
  auto server = StubServer::Start({"--health-path", "/ready"});
  const http::HealthResult health =
      http::WaitUntilHealthy(server->port(), "/ready", 5.0, [&] { return server->Running(); });
  EXPECT_TRUE(health.healthy) << health.error;
}

TEST_F(HealthTest, NeverHealthyTimesOutWithLastStatus) {
  auto server = StubServer::Start({"--ready-after-ms", "100000"});
  const http::HealthResult health =
      http::WaitUntilHealthy(server->port(), "/health", 0.5, [&] { return server->Running(); });
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.last_status, 503);
  EXPECT_EQ(health.error, "not healthy after 0.5 s: last answer 503");
}

TEST_F(HealthTest, NothingListeningTimesOutWithTheConnectError) {
  HeldPort closed(/*listening=*/false);
  const http::HealthResult health = http::WaitUntilHealthy(closed.port(), "/health", 0.2, {});
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.last_status, 0);
  EXPECT_EQ(health.error, "not healthy after 0.2 s: no answer (connect: Connection refused)");
}

TEST_F(HealthTest, StalledServerIsReportedWithTheTimeout) {
  HeldPort silent(/*listening=*/true);  // accepts connections, never answers
  const http::HealthResult health = http::WaitUntilHealthy(silent.port(), "/health", 0.3, {});
  EXPECT_FALSE(health.healthy);
  // The last poll had what was left of the 0.3 s, to the millisecond.
  EXPECT_THAT(health.error, ::testing::MatchesRegex(R"(not healthy after 0\.3 s: no answer )"
                                                    R"(\(receive: timed out after 0\.[0-9]+ s\))"));
}

TEST_F(HealthTest, ServerThatExitsIsDetectedBeforeTheTimeout) {
  auto server = StubServer::Start({"--ready-after-ms", "100000", "--exit-after-ms", "500"});
  const http::HealthResult health =
      http::WaitUntilHealthy(server->port(), "/health", 30.0, [&] { return server->Running(); });
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.error, "server exited before becoming healthy");
  EXPECT_EQ(server->WaitForExit(5.0), 1);
}

TEST_F(HealthTest, AnswerFromAnotherProcessOnThePortIsNotBelieved) {
  // `other` holds the port; ours (as still_running reports) has exited.
  auto other = StubServer::StartHealthy({});
  const http::HealthResult health = http::WaitUntilHealthy(other->port(), "/health", 5.0, [] { return false; });
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.error, "server exited before becoming healthy");
}

TEST_F(HealthTest, ServerOnATakenPortIsDetectedAsExited) {
  auto other = StubServer::Start({"--ready-after-ms", "100000"});
  StubServer server(other->port(), {});
  const http::HealthResult health =
      http::WaitUntilHealthy(server.port(), "/health", 30.0, [&] { return server.Running(); });
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.error, "server exited before becoming healthy");
  EXPECT_EQ(server.WaitForExit(5.0), 98);
}

}  // namespace
}  // namespace pe::testing
