// The client against a server that writes its response in pieces, as Python's http.server
// does (headers in one write, the body in another). Boost 1.74 treats body_limit(none) as a
// limit of 0, so such a response once failed with "body limit exceeded".
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/http/fetch.h"
#include "engine/http/load.h"

namespace pe::testing {
namespace {

// Accepts `connections` connections one after another; on each reads one request and writes
// `pieces` with a pause between them, then closes.
class PiecewiseServer {
 public:
  PiecewiseServer(std::vector<std::string> pieces, int connections) : pieces_(std::move(pieces)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::listen(listener_, 8);
    socklen_t length = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this, connections] {
      for (int i = 0; i < connections; ++i) Serve();
    });
  }
  ~PiecewiseServer() {
    thread_.join();
    ::close(listener_);
  }
  int port() const { return port_; }

 private:
  void Serve() {
    const int fd = ::accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      request.append(buffer, static_cast<std::size_t>(n));
    }
    for (const std::string& piece : pieces_) {
      ::send(fd, piece.data(), piece.size(), MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    ::close(fd);
  }

  std::vector<std::string> pieces_;
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpPieces, HeaderAndBodyInSeparateWrites) {
  PiecewiseServer server(
      {"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\n", "hello", " world"}, 1);
  http::Request request;
  request.target = "/q";
  const http::Response response = http::Fetch(server.port(), request, 5.0);
  EXPECT_EQ(response.error, "");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "hello world");
}

TEST(HttpPieces, ChunkedBodyInPieces) {
  PiecewiseServer server({"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                          "5\r\nhello\r\n", "6\r\n world\r\n", "0\r\n\r\n"},
                         1);
  http::Request request;
  request.target = "/q";
  const http::Response response = http::Fetch(server.port(), request, 5.0);
  EXPECT_EQ(response.error, "");
  EXPECT_EQ(response.body, "hello world");
}

TEST(HttpPieces, BodyUntilCloseInPieces) {
  PiecewiseServer server({"HTTP/1.0 200 OK\r\n\r\n", "hello", " world"}, 1);
  http::Request request;
  request.target = "/q";
  const http::Response response = http::Fetch(server.port(), request, 5.0);
  EXPECT_EQ(response.error, "");
  EXPECT_EQ(response.body, "hello world");
}

}  // namespace
}  // namespace pe::testing
