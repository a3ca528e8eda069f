#include "engine/http/health.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/http/port.h"
#include "tests/unit/http/http_test.h"

namespace pe::testing {
namespace {

using HealthTest = HttpTest;

void WaitUntilListening(const StubServer& server) {
  while (!http::PortAcceptsConnections(server.port())) {
    ASSERT_TRUE(server.Running());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST_F(HealthTest, ReadyAfterDelayIsMeasured) {
  StubServer server(http::PickFreePort(), {"--ready-after-ms", "300"});
  const http::HealthResult health =
      http::WaitUntilHealthy(server.port(), "/health", 5.0, [&] { return server.Running(); });
  EXPECT_TRUE(health.healthy) << health.error;
  EXPECT_EQ(health.error, "");
  EXPECT_EQ(health.last_status, 200);
  EXPECT_GE(health.time_to_ready_s, 0.3);
  EXPECT_LT(health.time_to_ready_s, 2.0);  // polled every 10 ms; 2 s tolerates a loaded machine
}

TEST_F(HealthTest, CustomHealthPath) {
  StubServer server(http::PickFreePort(), {"--health-path", "/ready"});
  const http::HealthResult health =
      http::WaitUntilHealthy(server.port(), "/ready", 5.0, [&] { return server.Running(); });
  EXPECT_TRUE(health.healthy) << health.error;
}

TEST_F(HealthTest, NeverHealthyTimesOutWithLastStatus) {
  StubServer server(http::PickFreePort(), {"--ready-after-ms", "100000"});
  // Listening first, so the last answer is its 503 and not a refused connection.
  WaitUntilListening(server);
  const http::HealthResult health =
      http::WaitUntilHealthy(server.port(), "/health", 0.5, [&] { return server.Running(); });
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.last_status, 503);
  EXPECT_EQ(health.error, "not healthy after 0.5 s: last answer 503");
}

TEST_F(HealthTest, NothingListeningTimesOutWithTheConnectError) {
  const http::HealthResult health =
      http::WaitUntilHealthy(http::PickFreePort(), "/health", 0.2, {});
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.last_status, 0);
  EXPECT_EQ(health.error, "not healthy after 0.2 s: no answer (connect: Connection refused)");
}

TEST_F(HealthTest, ServerThatExitsIsDetectedBeforeTheTimeout) {
  StubServer server(http::PickFreePort(), {"--ready-after-ms", "100000", "--exit-after-ms", "100"});
  const http::HealthResult health =
      http::WaitUntilHealthy(server.port(), "/health", 30.0, [&] { return server.Running(); });
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.error, "server exited before becoming healthy");
  EXPECT_EQ(server.WaitForExit(5.0), 1);
}

TEST_F(HealthTest, ServerOnATakenPortIsDetectedAsExited) {
  StubServer other(http::PickFreePort(), {"--ready-after-ms", "100000"});
  WaitUntilListening(other);
  StubServer server(other.port(), {});
  const http::HealthResult health =
      http::WaitUntilHealthy(server.port(), "/health", 30.0, [&] { return server.Running(); });
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.error, "server exited before becoming healthy");
  EXPECT_EQ(server.WaitForExit(5.0), 98);
}

}  // namespace
}  // namespace pe::testing
