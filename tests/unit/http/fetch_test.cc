#include "engine/http/fetch.h"

#include <gtest/gtest.h>

#include <chrono>

#include "tests/unit/http/held_port.h"
#include "tests/unit/http/http_test.h"

namespace pe::testing {
namespace {

using FetchTest = HttpTest;

TEST_F(FetchTest, GetsStatusAndBodyForTheTarget) {
  auto server = StubServer::StartHealthy({"--body", "targets for {target}"});
  http::Request request;
  request.target = "/impacted_targets?from=a&to=b";
  const http::Response response = http::Fetch(server->port(), request, 5.0);
  EXPECT_EQ(response.error, "");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "targets for /impacted_targets?from=a&to=b");
  EXPECT_GT(response.latency_s, 0);
}

TEST_F(FetchTest, PostsBody) {
  auto server = StubServer::StartHealthy({"--body", "{method} {body}"});
  http::Request request;
  request.method = "POST";
  request.target = "/q";
  request.body = R"({"from":"a"})";
  request.content_type = "application/json";
  const http::Response response = http::Fetch(server->port(), request, 5.0);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, R"(POST {"from":"a"})");
}

TEST_F(FetchTest, NonSuccessStatusIsAnAnswerNotAnError) {
  auto server = StubServer::StartHealthy({"--status", "500", "--body", "boom"});
  http::Request request;
  request.target = "/q";
  const http::Response response = http::Fetch(server->port(), request, 5.0);
  EXPECT_EQ(response.error, "");
  EXPECT_EQ(response.status, 500);
  EXPECT_EQ(response.body, "boom");
}

TEST_F(FetchTest, NobodyListeningIsConnectionRefused) {
  http::Request request;
  request.target = "/q";
  HeldPort closed(/*listening=*/false);
  const http::Response response = http::Fetch(closed.port(), request, 5.0);
  EXPECT_EQ(response.status, 0);
  EXPECT_EQ(response.error, "connect: Connection refused");
}

TEST_F(FetchTest, SlowAnswerTimesOut) {
  auto server = StubServer::StartHealthy({"--latency-ms", "5000"});
  http::Request request;
  request.target = "/q";
  const auto start = std::chrono::steady_clock::now();
  const http::Response response = http::Fetch(server->port(), request, 0.2);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(response.status, 0);
  EXPECT_EQ(response.error, "receive: timed out after 0.2 s");
  EXPECT_LT(waited, 4.0);  // far below the server's 5 s: the deadline ended the wait
}

}  // namespace
}  // namespace pe::testing
