#include "tests/support/fake_server.h"

#include <signal.h>

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
// (keep <utility> above the Boost headers)
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <vector>

namespace pe::testing {

using runner::Command;
using runner::Outcome;
using runner::StartedServer;

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using asio::ip::tcp;

struct FakeServer::Loop {
  asio::io_context context;
  tcp::acceptor acceptor{context};
  std::vector<std::shared_ptr<tcp::socket>> sockets;
  int answered = 0;  // requests other than health checks

  // Closes the port and every connection, so each coroutine ends and the loop runs dry.
  void CloseAll() {
    beast::error_code ignored;
    acceptor.close(ignored);
    for (const auto& socket : sockets) socket->close(ignored);
  }

  // Coroutines are members taking their arguments by value: a lambda's captures would die with
  // the lambda, before the coroutine ends.
  asio::awaitable<void> Accept(FakeServer* server) {
    for (;;) {
      beast::error_code ec;
      tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      auto shared = std::make_shared<tcp::socket>(std::move(socket));
      sockets.push_back(shared);
      asio::co_spawn(context, Serve(server, shared), asio::detached);
    }
  }

  asio::awaitable<void> Serve(FakeServer* server, std::shared_ptr<tcp::socket> socket) {
    const FakeServerScript& script = server->script_;
    beast::flat_buffer buffer;
    for (;;) {
      beast::error_code ec;
      bhttp::request<bhttp::string_body> request;
      co_await bhttp::async_read(*socket, buffer, request, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      bhttp::response<bhttp::string_body> response(bhttp::status::ok, request.version());
      response.body() = "OK";
      if (request.target() != script.health_path) {
        if (script.die_after >= 0 && answered >= script.die_after) {
          server->died_ = true;
          server->ended_ = true;
          CloseAll();
          co_return;
        }
        ++answered;
        if (script.answer) {
          http::Request asked;
          asked.method = std::string(request.method_string());
          asked.target = std::string(request.target());
          asked.body = request.body();
          auto [status, body] = script.answer(asked);
          response.result(static_cast<unsigned>(status));
          response.body() = std::move(body);
        }
      }
      response.keep_alive(request.keep_alive());
      response.prepare_payload();
      co_await bhttp::async_write(*socket, response, asio::redirect_error(asio::use_awaitable, ec));
      if (ec || !response.keep_alive()) co_return;
    }
  }
};

namespace {

Outcome Exited(int code) {
  Outcome outcome;
  outcome.status = Outcome::Status::kExited;
  outcome.exit_code = code;
  return outcome;
}

}  // namespace

FakeServer::FakeServer(int port, FakeServerScript script) : script_(std::move(script)) {
  if (script_.died.status == Outcome::Status::kExited && script_.died.exit_code == 0) {
    script_.died.status = Outcome::Status::kSignalled;
    script_.died.signal = SIGSEGV;
  }
  if (!script_.listens) return;
  loop_ = std::make_unique<Loop>();
  Loop& loop = *loop_;
  beast::error_code ec;
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port));
  loop.acceptor.open(endpoint.protocol(), ec);
  if (!ec) loop.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) loop.acceptor.bind(endpoint, ec);
  if (!ec) loop.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    script_.died = Exited(98);  // EADDRINUSE's number, as servers that lose their port exit
    died_ = true;
    ended_ = true;
    return;
  }

  asio::co_spawn(loop.context, loop.Accept(this), asio::detached);
  thread_ = std::thread([&loop] { loop.context.run(); });
}

FakeServer::~FakeServer() { Shutdown(); }

void FakeServer::Shutdown() {
  if (!loop_) return;
  if (thread_.joinable()) {
    asio::post(loop_->context, [loop = loop_.get()] { loop->CloseAll(); });
    thread_.join();
  }
  loop_.reset();
}

bool FakeServer::ExitsWithin(double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!ended_ && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return ended_;
}

Outcome FakeServer::Stop(double /*grace_s*/) {
  Shutdown();
  ended_ = true;
  return died_ ? script_.died : script_.stopped;
}

Outcome FakeServer::Wait() { return Stop(0); }

int PortIn(const Command& command) {
  for (size_t i = 0; i + 1 < command.argv.size(); ++i) {
    if (command.argv[i] == "--port") return std::stoi(command.argv[i + 1]);
  }
  return 0;
}

std::function<StartedServer(const Command&)> StartFakeServers(
    std::function<FakeServerScript(const Command&)> script_for) {
  return [script_for = std::move(script_for)](const Command& command) {
    return StartedServer{std::make_unique<FakeServer>(PortIn(command), script_for(command)), ""};
  };
}

}  // namespace pe::testing
