// The stub server itself: what the engine's port retry and crash handling will rely on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "engine/http/fetch.h"
#include "engine/http/port.h"
#include "tests/unit/http/held_port.h"
#include "tests/unit/http/http_test.h"

namespace pe::testing {
namespace {

using StubServerTest = HttpTest;

TEST_F(StubServerTest, TakenPortExits98WithAddressInUse) {
  HeldPort squatter(/*listening=*/true);
  StubServer server(squatter.port(), {});
  EXPECT_EQ(server.WaitForExit(5.0), 98);
  EXPECT_EQ(server.Stderr(), "stub-http-server: address in use: 127.0.0.1:" + std::to_string(squatter.port()) + "\n");
}

TEST_F(StubServerTest, SigtermExitsZero) {
  auto server = StubServer::StartHealthy({});
  EXPECT_EQ(server->Stop(), 0);
  EXPECT_EQ(server->Stderr(), "");
}

TEST_F(StubServerTest, ExitAfterMsDiesWithStatusOne) {
  StubServer server(0, {"--exit-after-ms", "50"});
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

TEST_F(StubServerTest, PortZeroReportsTheKernelsPick) {
  auto server = StubServer::Start({});
  EXPECT_GT(server->port(), 0);
  EXPECT_TRUE(http::PortAcceptsConnections(server->port()));
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
  StubServer server(0, {"--bogus"});
  EXPECT_EQ(server.WaitForExit(5.0), 2);
  EXPECT_EQ(server.Stderr(), "stub-http-server: unknown flag --bogus\n");
}

}  // namespace
}  // namespace pe::testing
