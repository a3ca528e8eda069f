// The stub server itself: what the engine's port retry and crash handling will rely on.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "engine/http/fetch.h"
#include "engine/http/port.h"
#include "tests/unit/http/http_test.h"

namespace pe::testing {
namespace {

using StubServerTest = HttpTest;

// Holds 127.0.0.1:port listening, as another program that took the port would.
class PortSquatter {
 public:
  PortSquatter() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length), 0);
    port_ = ntohs(address.sin_port);
  }
  ~PortSquatter() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST_F(StubServerTest, TakenPortExits98WithAddressInUse) {
  PortSquatter squatter;
  StubServer server(squatter.port(), {});
  EXPECT_EQ(server.WaitForExit(5.0), 98);
  EXPECT_EQ(server.Stderr(),
            "stub-http-server: address in use: 127.0.0.1:" + std::to_string(squatter.port()) + "\n");
}

TEST_F(StubServerTest, SigtermExitsZero) {
  auto server = StubServer::StartHealthy({});
  EXPECT_EQ(server->Stop(), 0);
  EXPECT_EQ(server->Stderr(), "");
}

TEST_F(StubServerTest, ExitAfterMsDiesWithStatusOne) {
  StubServer server(http::PickFreePort(), {"--exit-after-ms", "50"});
  EXPECT_EQ(server.WaitForExit(5.0), 1);
}

TEST_F(StubServerTest, CrashAfterTakesThatManyRequests) {
  auto server = StubServer::StartHealthy({"--crash-after", "2"});
  http::Request request;
  request.target = "/q";
  EXPECT_EQ(http::Fetch(server->port(), request, 5.0).status, 200);
  EXPECT_EQ(http::Fetch(server->port(), request, 5.0).status, 200);
  const http::Response third = http::Fetch(server->port(), request, 5.0);
  EXPECT_EQ(third.status, 0);
  EXPECT_FALSE(third.error.empty());
  EXPECT_EQ(server->WaitForExit(5.0), 1);
}

TEST_F(StubServerTest, LogAppendsTagPidAndTime) {
  char path[] = "/tmp/stub-http-log-XXXXXX";
  ::close(::mkstemp(path));
  {
    auto server = StubServer::StartHealthy({"--log", path, "A"});
    std::ifstream in(path);
    std::string tag;
    long pid = 0;
    long long ns = 0;
    ASSERT_TRUE(static_cast<bool>(in >> tag >> pid >> ns));
    EXPECT_EQ(tag, "A");
    EXPECT_EQ(pid, server->pid());
    EXPECT_GT(ns, 0);
  }
  std::remove(path);
}

TEST_F(StubServerTest, UnknownFlagIsAUsageError) {
  StubServer server(http::PickFreePort(), {"--bogus"});
  EXPECT_EQ(server.WaitForExit(5.0), 2);
  EXPECT_EQ(server.Stderr(), "stub-http-server: unknown flag --bogus\n");
}

}  // namespace
}  // namespace pe::testing
