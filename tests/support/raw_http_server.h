// A loopback server that answers every request with bytes the test writes itself, for answers
// no HTTP library would send: malformed, or bodies far larger than a test should hold. GET
// /health is answered 200 "OK"; every other request gets `answer(connection)`, written as it
// produces it, and the connection is then closed.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace pe::testing {

class RawHttpServer {
 public:
  // `answer` writes the whole response to the connection's socket (WriteAll helps).
  // Listens on 127.0.0.1:port (0: a free port the kernel picks).
  explicit RawHttpServer(std::function<void(int socket)> answer, int port = 0) : answer_(std::move(answer)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    const int yes = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::listen(listener_, 16);
    socklen_t size = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~RawHttpServer() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    thread_.join();
  }
  int port() const { return port_; }

  // False when the peer went away.
  static bool WriteAll(int socket, const std::string& bytes) {
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::send(socket, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  void Serve() {
    while (!stopping_) {
      const int connection = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection < 0) return;
      std::string head;
      char c;
      while (head.find("\r\n\r\n") == std::string::npos && ::recv(connection, &c, 1, 0) == 1) head += c;
      if (head.rfind("GET /health ", 0) == 0) {
        WriteAll(connection, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK");
      } else {
        answer_(connection);
      }
      ::shutdown(connection, SHUT_RDWR);
      ::close(connection);
    }
  }

  std::function<void(int)> answer_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace pe::testing
