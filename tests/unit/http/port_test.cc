#include "engine/http/port.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/unit/http/held_port.h"
#include "tests/unit/http/http_test.h"

namespace pe::testing {
namespace {

using PortTest = HttpTest;

TEST_F(PortTest, PicksAPortThatCanBeBound) {
  const int port = http::PickFreePort();
  ASSERT_GT(port, 0);
  ASSERT_LT(port, 65536);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ::close(fd);
}

TEST_F(PortTest, AcceptsConnectionsOnlyWhereSomethingListens) {
  HeldPort listening(/*listening=*/true);
  HeldPort bound_only(/*listening=*/false);
  EXPECT_TRUE(http::PortAcceptsConnections(listening.port()));
  EXPECT_FALSE(http::PortAcceptsConnections(bound_only.port()));
}

TEST_F(PortTest, SeesAServerListenAndGoAway) {
  auto server = StubServer::StartHealthy({});
  EXPECT_TRUE(http::PortAcceptsConnections(server->port()));
  EXPECT_EQ(server->Stop(), 0);
  EXPECT_FALSE(http::PortAcceptsConnections(server->port()));
}

}  // namespace
}  // namespace pe::testing
