#include "engine/http/port.h"

#include <gtest/gtest.h>

#include "tests/unit/http/http_test.h"

namespace pe::testing {
namespace {

using PortTest = HttpTest;

TEST_F(PortTest, PicksAPortNobodyListensOn) {
  const int port = http::PickFreePort();
  EXPECT_GT(port, 0);
  EXPECT_LT(port, 65536);
  EXPECT_FALSE(http::PortAcceptsConnections(port));
}

TEST_F(PortTest, SeesAServerListenAndGoAway) {
  auto server = StubServer::StartHealthy({});
  EXPECT_TRUE(http::PortAcceptsConnections(server->port()));
  EXPECT_EQ(server->Stop(), 0);
  EXPECT_FALSE(http::PortAcceptsConnections(server->port()));
}

}  // namespace
}  // namespace pe::testing
