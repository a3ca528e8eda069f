// The HTTP/1.1 server under `serve`: Boost.Beast on a pool of threads, keep-alive, one handler
// for every request. Beast stays inside http_server.cc; callers see plain structs.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "error.h"

namespace pe::refdiff {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // origin form: "/impacted_targets?from=a&to=b"
  std::string body;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
  std::string allow;  // the Allow header of a 405, else empty
};

// Called on the pool's threads, possibly several at once; may block (a connection waits for its
// own answer, others go on while threads are free).
using HttpHandler = std::function<HttpReply(const HttpRequest&)>;

// Binding failed because another socket holds the address.
class AddressInUse : public RefDiffError {
 public:
  explicit AddressInUse(const std::string& address) : RefDiffError("address already in use: " + address) {}
};

class HttpServer {
 public:
  // Binds host:port (0: a port the kernel picks) and listens. Throws AddressInUse, or
  // RefDiffError for any other failure.
  HttpServer(const std::string& host, int port, HttpHandler handler);
  ~HttpServer();  // stops and waits
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;  // the bound port

  // Accepts and answers on `threads` threads until Stop(), SIGTERM or SIGINT.
  void Start(int threads);
  // Stops accepting; answers being computed are finished and sent, idle keep-alive connections
  // are closed. Safe from any thread, more than once.
  void Stop();
  // Returns once every connection is closed and every thread has ended.
  void Wait();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pe::refdiff
