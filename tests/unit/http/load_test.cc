#include "engine/http/load.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/support/raw_http_server.h"
#include "tests/unit/http/held_port.h"
#include "tests/unit/http/http_test.h"

namespace pe::testing {
namespace {

using LoadTest = HttpTest;

std::vector<http::Request> Queries(int count) {
  std::vector<http::Request> requests(count);
  for (int i = 0; i < count; ++i) requests[i].target = "/q/" + std::to_string(i);
  return requests;
}

TEST_F(LoadTest, ThousandRequestsOverEightKeptAliveConnections) {
  auto server = StubServer::StartHealthy({"--body", "answer {target}"});
  const http::LoadResult load = http::FireRequests(server->port(), Queries(1000), 8, 5.0, true);
  EXPECT_EQ(load.error, "");
  ASSERT_EQ(load.responses.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    const http::Response& response = load.responses[i];
    EXPECT_EQ(response.error, "") << i;
    EXPECT_EQ(response.status, 200) << i;
    // Each answer lands at its own request's index, whichever connection carried it.
    EXPECT_EQ(response.body, "answer /q/" + std::to_string(i));
    EXPECT_GT(response.latency_s, 0) << i;
  }
  EXPECT_EQ(load.connections_opened, 8);
  EXPECT_GT(load.wall_s, 0);
}

TEST_F(LoadTest, BodiesDroppedUnlessAsked) {
  auto server = StubServer::StartHealthy({"--body", "answer {target}"});
  const http::LoadResult load = http::FireRequests(server->port(), Queries(50), 4, 5.0, false);
  EXPECT_EQ(load.error, "");
  for (const http::Response& response : load.responses) {
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.body, "");
  }
}

// A chunked answer of `mib` MiB, written a chunk at a time: the server never holds it whole.
void ChunkedMiB(int socket, int mib) {
  if (!RawHttpServer::WriteAll(socket, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) return;
  const std::string chunk = "100000\r\n" + std::string(1 << 20, 'x') + "\r\n";
  for (int i = 0; i < mib; ++i) {
    if (!RawHttpServer::WriteAll(socket, chunk)) return;
  }
  RawHttpServer::WriteAll(socket, "0\r\n\r\n");
}

long PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// A 2 GiB answer once got the engine OOM-killed (issue 26, M2): a timed round's bodies are
// dropped as they arrive. The judge is the kernel's peak RSS, reset first (clear_refs 5).
TEST_F(LoadTest, BodiesNotKeptCostNoMemoryHoweverLarge) {
  RawHttpServer server([](int socket) { ChunkedMiB(socket, 96); });
  std::ofstream("/proc/self/clear_refs") << "5";
  const long before = PeakRssKib();
  const http::LoadResult load = http::FireRequests(server.port(), Queries(1), 1, 60.0, false);
  EXPECT_EQ(load.error, "");
  ASSERT_EQ(load.responses.size(), 1u);
  EXPECT_EQ(load.responses[0].status, 200);
  EXPECT_LT(PeakRssKib() - before, 16 * 1024);
}

TEST_F(LoadTest, AKeptBodyOverTheLimitIsTooLargeAndNotReadOn) {
  RawHttpServer server([](int socket) { ChunkedMiB(socket, 2); });
  const http::LoadResult load = http::FireRequests(server.port(), Queries(1), 1, 60.0, true, 1 << 20);
  ASSERT_EQ(load.responses.size(), 1u);
  EXPECT_EQ(load.responses[0].fault, http::Response::Fault::kTooLarge);
  EXPECT_EQ(load.responses[0].body, "");
  EXPECT_EQ(load.error, "request 0 (GET /q/0): receive: body limit exceeded");
}

// A body with no length, ended by closing the connection (HTTP/1.0 style, or 1.1 with
// "Connection: close"), is held to the same limit, whether kept or given to a sink: issue 45
// reported one over the limit read "end of stream". 2 MiB against a 1 MiB limit.
TEST_F(LoadTest, ACloseDelimitedBodyOverTheLimitIsTooLargeKeptOrSunk) {
  struct Counted final : http::BodySink {
    void Write(const char*, std::size_t size) override { bytes += size; }
    void Finish() override {}
    std::size_t bytes = 0;
  };
  for (const char* head : {"HTTP/1.0 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"}) {
    RawHttpServer server([head](int socket) {
      if (!RawHttpServer::WriteAll(socket, head)) return;
      RawHttpServer::WriteAll(socket, std::string(2 << 20, 'x'));
    });
    for (bool sunk : {false, true}) {
      std::shared_ptr<Counted> sink;
      const http::LoadResult load = http::FireRequests(
          server.port(), Queries(1), 1, 60.0, true, 1 << 20,
          sunk ? http::BodySinkFactory([&] { return sink = std::make_shared<Counted>(); }) : http::BodySinkFactory());
      ASSERT_EQ(load.responses.size(), 1u);
      EXPECT_EQ(load.responses[0].fault, http::Response::Fault::kTooLarge) << head << sunk;
      EXPECT_EQ(load.error, "request 0 (GET /q/0): receive: body limit exceeded") << head << sunk;
      if (sunk) EXPECT_LE(sink->bytes, std::size_t{1} << 20);
    }
  }
}

TEST_F(LoadTest, AMalformedAnswerIsToldFromALostConnection) {
  RawHttpServer server([](int socket) {
    RawHttpServer::WriteAll(socket, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n");
  });
  const http::LoadResult load = http::FireRequests(server.port(), Queries(1), 1, 10.0, true);
  ASSERT_EQ(load.responses.size(), 1u);
  EXPECT_EQ(load.responses[0].fault, http::Response::Fault::kMalformed);
  EXPECT_EQ(load.error, "request 0 (GET /q/0): bad chunk");
}

TEST_F(LoadTest, LatencyIncludesTheServersDelay) {
  auto server = StubServer::StartHealthy({"--latency-ms", "50"});
  const http::LoadResult load = http::FireRequests(server->port(), Queries(16), 4, 5.0, false);
  EXPECT_EQ(load.error, "");
  for (const http::Response& response : load.responses) {
    EXPECT_EQ(response.status, 200);
    EXPECT_GE(response.latency_s, 0.050);
  }
  // 16 requests, 4 at a time, 50 ms each: at least 4 rounds back to back.
  EXPECT_GE(load.wall_s, 0.200);
}

TEST_F(LoadTest, FewerRequestsThanConnections) {
  auto server = StubServer::StartHealthy({});
  const http::LoadResult load = http::FireRequests(server->port(), Queries(3), 8, 5.0, false);
  EXPECT_EQ(load.error, "");
  EXPECT_EQ(load.connections_opened, 3);
  EXPECT_TRUE(http::FireRequests(server->port(), {}, 8, 5.0, false).responses.empty());
}

TEST_F(LoadTest, ReconnectsWhenTheServerClosesKeptAliveConnections) {
  // The server drops each connection after 10 answers without saying so; every request must
  // still be answered exactly once.
  auto server = StubServer::StartHealthy({"--close-every", "10", "--body", "{target}"});
  const http::LoadResult load = http::FireRequests(server->port(), Queries(200), 4, 5.0, true);
  EXPECT_EQ(load.error, "");
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(load.responses[i].status, 200) << i << ": " << load.responses[i].error;
    EXPECT_EQ(load.responses[i].body, "/q/" + std::to_string(i));
  }
  EXPECT_GE(load.connections_opened, 200 / 10);
}

TEST_F(LoadTest, NonSuccessStatusesAreAnswersNotErrors) {
  auto server = StubServer::StartHealthy({"--status", "503"});
  const http::LoadResult load = http::FireRequests(server->port(), Queries(20), 2, 5.0, false);
  EXPECT_EQ(load.error, "");
  for (const http::Response& response : load.responses) EXPECT_EQ(response.status, 503);
}

TEST_F(LoadTest, CrashMidRunGivesErrorsNotAHang) {
  auto server = StubServer::StartHealthy({"--crash-after", "100"});
  const http::LoadResult load = http::FireRequests(server->port(), Queries(1000), 8, 120.0, false);
  int answered = 0;
  int failed = 0;
  for (const http::Response& response : load.responses) {
    if (response.status == 200) ++answered;
    if (!response.error.empty()) ++failed;
    EXPECT_TRUE(response.status == 200 || !response.error.empty());
  }
  EXPECT_EQ(answered, 100);
  EXPECT_EQ(failed, 900);
  EXPECT_NE(load.error, "");
  EXPECT_LT(load.wall_s, 60.0);  // ended by the crash, not by any request's 120 s deadline, however loaded
  EXPECT_EQ(server->WaitForExit(5.0), 1);
}

TEST_F(LoadTest, NothingListeningFailsAtOnce) {
  HeldPort closed(/*listening=*/false);
  const http::LoadResult load = http::FireRequests(closed.port(), Queries(100), 4, 5.0, false);
  ASSERT_EQ(load.responses.size(), 100u);
  EXPECT_EQ(load.responses[0].error, "connect: Connection refused");
  EXPECT_EQ(load.error, "request 0 (GET /q/0): connect: Connection refused");
  EXPECT_EQ(load.responses[99].error, "not sent: the run stopped after an earlier error");
}

TEST_F(LoadTest, StalledServerTimesOutPerRequest) {
  auto server = StubServer::StartHealthy({"--latency-ms", "600000"});
  const http::LoadResult load = http::FireRequests(server->port(), Queries(40), 4, 0.2, false);
  std::set<std::string> errors;
  for (const http::Response& response : load.responses) errors.insert(response.error);
  EXPECT_EQ(errors, (std::set<std::string>{"receive: timed out after 0.2 s",
                                           "not sent: the run stopped after an earlier error"}));
  EXPECT_LT(load.wall_s, 60.0);  // the 0.2 s deadlines ended it, not the server's 600 s answers
}

}  // namespace
}  // namespace pe::testing
