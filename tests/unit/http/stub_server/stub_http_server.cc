// stub-http-server: an HTTP/1.1 server for tests of serve workloads. Everything a test needs
// to provoke is a flag:
//   --port P                 listen on 127.0.0.1:P (required); taken: exit 98, "address in use";
//                            0: a port the kernel picks, which no other process can race for
//   --port-file PATH         once listening, write the port to PATH (atomically, by rename)
//   --health-path P          the health check's path (default /health)
//   --ready-after-ms N       health answers 503 until N ms after the process started, then 200 "OK"
//   --latency-ms N           every other request is answered after N ms (a timer: other
//                            connections go on meanwhile)
//   --body TEXT              answer body (default "OK"); {target}, {method} and {body} are
//                            replaced by the request's, so answers can differ per request
//   --status N               answer status (default 200)
//   --crash-after N          take N requests, then _exit(1) on receiving the next one
//   --close-every N          silently close a connection after N answers on it, as servers
//                            with a keep-alive limit or idle timeout do
//   --exit-after-ms N        _exit(1) N ms after the process started, healthy or not
//   --log PATH TAG           append "TAG <pid> <monotonic ns>" to PATH at start
//   --lose-port-once PATH    if PATH does not exist, create it and behave as if the port were
//                            taken (exit 98), as when another process binds it between the
//                            engine's pick and our bind; the next start proceeds
// Health requests count toward neither --crash-after nor --close-every. SIGTERM or SIGINT:
// exit 0. Single-threaded, so it uses one core of the machine it measures on.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
// (keep <utility> above the Boost headers)
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace pe::stub {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using Clock = std::chrono::steady_clock;

constexpr int kExitAddressInUse = 98;  // EADDRINUSE's number, for the engine's port retry

struct Options {
  int port = -1;
  std::string health_path = "/health";
  long ready_after_ms = 0;
  long latency_ms = 0;
  std::string body = "OK";
  int status = 200;
  long crash_after = -1;
  long close_every = 0;
  long exit_after_ms = -1;
  std::string log_path;
  std::string log_tag;
  std::string port_file;
  std::string lose_port_once;
};

[[noreturn]] void Usage(const std::string& why) {
  std::cerr << "stub-http-server: " << why << "\n";
  std::exit(2);
}

long Number(const std::string& flag, const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0) Usage(flag + " wants a number >= 0: " + text);
  return value;
}

Options Parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Usage(flag + " wants a value");
      return argv[++i];
    };
    if (flag == "--port") {
      options.port = static_cast<int>(Number(flag, value()));
    } else if (flag == "--health-path") {
      options.health_path = value();
    } else if (flag == "--ready-after-ms") {
      options.ready_after_ms = Number(flag, value());
    } else if (flag == "--latency-ms") {
      options.latency_ms = Number(flag, value());
    } else if (flag == "--body") {
      options.body = value();
    } else if (flag == "--status") {
      options.status = static_cast<int>(Number(flag, value()));
    } else if (flag == "--crash-after") {
      options.crash_after = Number(flag, value());
    } else if (flag == "--close-every") {
      options.close_every = Number(flag, value());
    } else if (flag == "--exit-after-ms") {
      options.exit_after_ms = Number(flag, value());
    } else if (flag == "--lose-port-once") {
      options.lose_port_once = value();
    } else if (flag == "--port-file") {
      options.port_file = value();
    } else if (flag == "--log") {
      options.log_path = value();
      options.log_tag = value();
    } else {
      Usage("unknown flag " + flag);
    }
  }
  if (options.port < 0 || options.port > 65535) Usage("--port P is required");
  return options;
}

void Log(const std::string& path, const std::string& tag) {
  timespec ts = {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  const long long ns = static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  const std::string line = tag + " " + std::to_string(::getpid()) + " " + std::to_string(ns) + "\n";
  // One write() with O_APPEND, so lines from concurrent servers never interleave.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    Usage("cannot write log " + path);
  }
  ::close(fd);
}

void WritePortFile(const std::string& path, int port) {
  const std::string temporary = path + ".tmp";
  const std::string text = std::to_string(port) + "\n";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()) || ::close(fd) != 0 ||
      std::rename(temporary.c_str(), path.c_str()) != 0) {
    Usage("cannot write port file " + path);
  }
}

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

class Server {
 public:
  Server(const Options& options, Clock::time_point started) : options_(options), started_(started) {}

  asio::awaitable<void> Listen(asio::ip::tcp::acceptor acceptor) {
    for (;;) {
      beast::error_code ec;
      asio::ip::tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) continue;  // EMFILE and the like: the client will see it, keep serving others
      asio::co_spawn(acceptor.get_executor(), Session(std::move(socket)), asio::detached);
    }
  }

 private:
  asio::awaitable<void> Session(asio::ip::tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    long answered_here = 0;
    for (;;) {
      beast::error_code ec;
      bhttp::request<bhttp::string_body> request;
      co_await bhttp::async_read(stream, buffer, request, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
      bhttp::response<bhttp::string_body> response;
      response.version(request.version());
      response.keep_alive(request.keep_alive());
      const bool health = request.target() == options_.health_path;
      if (health) {
        const bool ready = Clock::now() - started_ >= std::chrono::milliseconds(options_.ready_after_ms);
        response.result(ready ? 200 : 503);
        response.body() = ready ? "OK" : "starting";
      } else {
        if (options_.crash_after >= 0 && answered_ >= options_.crash_after) ::_exit(1);
        ++answered_;
        if (options_.latency_ms > 0) {
          asio::steady_timer timer(stream.get_executor(), std::chrono::milliseconds(options_.latency_ms));
          co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        response.result(options_.status);
        response.body() = options_.body;
        ReplaceAll(response.body(), "{target}", std::string(request.target()));
        ReplaceAll(response.body(), "{method}", std::string(request.method_string()));
        ReplaceAll(response.body(), "{body}", request.body());
      }
      response.set(bhttp::field::content_type, "text/plain");
      response.prepare_payload();
      co_await bhttp::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
      if (ec || !response.keep_alive()) break;
      if (!health && options_.close_every > 0 && ++answered_here >= options_.close_every) break;
    }
    beast::error_code ignored;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  }

  const Options options_;
  const Clock::time_point started_;
  long answered_ = 0;  // non-health requests answered by the whole server
};

int Run(int argc, char** argv) {
  const Clock::time_point started = Clock::now();
  const Options options = Parse(argc, argv);
  if (!options.log_path.empty()) Log(options.log_path, options.log_tag);

  asio::io_context context(1);
  asio::ip::tcp::acceptor acceptor(context);
  const asio::ip::tcp::endpoint endpoint(asio::ip::address_v4::loopback(), static_cast<unsigned short>(options.port));
  beast::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!options.lose_port_once.empty() &&
      ::open(options.lose_port_once.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644) >= 0) {
    ec = asio::error::address_in_use;
  }
  if (ec == asio::error::address_in_use) {
    std::cerr << "stub-http-server: address in use: 127.0.0.1:" << options.port << "\n";
    return kExitAddressInUse;
  }
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::cerr << "stub-http-server: cannot listen on 127.0.0.1:" << options.port << ": " << ec.message() << "\n";
    return 2;
  }

  asio::signal_set stop_signals(context, SIGTERM, SIGINT);
  stop_signals.async_wait([&](const beast::error_code&, int) { context.stop(); });
  asio::steady_timer exit_timer(context);
  if (options.exit_after_ms >= 0) {
    exit_timer.expires_at(started + std::chrono::milliseconds(options.exit_after_ms));
    exit_timer.async_wait([](const beast::error_code& error) {
      if (!error) ::_exit(1);
    });
  }
  if (!options.port_file.empty()) WritePortFile(options.port_file, acceptor.local_endpoint().port());
  Server server(options, started);
  asio::co_spawn(context, server.Listen(std::move(acceptor)), asio::detached);
  context.run();
  return 0;
}

}  // namespace
}  // namespace pe::stub

int main(int argc, char** argv) { return pe::stub::Run(argc, argv); }
