#include "http_server.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <csignal>
#include <optional>
#include <thread>
#include <vector>

namespace pe::refdiff {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Requests carry at most a small JSON object; anything larger is not a request we serve.
constexpr std::uint64_t kMaxBodyBytes = 1 << 20;

struct SharedState {
  HttpHandler handler;
  std::atomic<bool> stopping{false};
};

// One connection: read a request, answer it, and again while the client keeps it alive. Every
// step runs on the connection's strand, so `busy_` needs no lock.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, SharedState& state) : stream_(std::move(socket)), state_(state) {}

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Read(); });
  }

  // Shutting down: a connection waiting for its next request is closed now; one whose answer
  // is being computed or sent closes after sending it (OnWrite sees `stopping`).
  void CloseIfIdle() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->busy_) self->Close();
    });
  }

 private:
  void Read() {
    if (state_.stopping) return Close();
    busy_ = false;
    parser_.emplace();
    parser_->body_limit(kMaxBodyBytes);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code error, std::size_t) { self->OnRead(error); });
  }

  void OnRead(beast::error_code error) {
    // The client closed, reset, sent something that is not HTTP, or we closed an idle
    // connection: nothing to answer.
    if (error) return Close();
    busy_ = true;
    http::request<http::string_body> request = parser_->release();
    HttpRequest plain{std::string(request.method_string()), std::string(request.target()), std::move(request.body())};
    HttpReply reply;
    try {
      reply = state_.handler(plain);
    } catch (const std::exception& failure) {
      reply = {500, "text/plain", std::string("internal error: ") + failure.what() + "\n", {}};
    }
    response_ = {};
    response_.version(request.version());
    response_.result(static_cast<unsigned>(reply.status));
    response_.set(http::field::content_type, reply.content_type);
    if (!reply.allow.empty()) response_.set(http::field::allow, reply.allow);
    response_.body() = std::move(reply.body);
    keep_alive_ = request.keep_alive() && !state_.stopping;
    response_.keep_alive(keep_alive_);
    if (request.method() == http::verb::head) {
      // The length the GET would have, and no body: a body here would be read as the start of
      // the next response on a kept-alive connection.
      std::size_t length = response_.body().size();
      response_.body().clear();
      response_.content_length(length);
    } else {
      response_.prepare_payload();
    }
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code error, std::size_t) { self->OnWrite(error); });
  }

  void OnWrite(beast::error_code error) {
    if (error || !keep_alive_ || state_.stopping) return Close();
    Read();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  SharedState& state_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  bool busy_ = false;
  bool keep_alive_ = false;
};

}  // namespace

class HttpServer::Impl {
 public:
  Impl(const std::string& host, int port, HttpHandler handler)
      : strand_(asio::make_strand(io_)), acceptor_(strand_), signals_(strand_, SIGTERM, SIGINT) {
    state_.handler = std::move(handler);
    const std::string address = host + ":" + std::to_string(port);
    beast::error_code error;
    asio::ip::address ip = asio::ip::make_address(host, error);
    if (error) throw RefDiffError("cannot listen on " + address + ": '" + host + "' is not an IP address");
    tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
    acceptor_.open(endpoint.protocol(), error);
    if (!error) acceptor_.set_option(asio::socket_base::reuse_address(true), error);
    if (!error) acceptor_.bind(endpoint, error);
    if (error == asio::error::address_in_use) throw AddressInUse(address);
    if (!error) acceptor_.listen(asio::socket_base::max_listen_connections, error);
    if (error) throw RefDiffError("cannot listen on " + address + ": " + error.message());
    port_ = acceptor_.local_endpoint().port();
  }

  int port() const { return port_; }

  void Start(int threads) {
    signals_.async_wait([this](beast::error_code error, int) {
      if (!error) Stop();
    });
    Accept();
    for (int i = 0; i < std::max(threads, 1); ++i) threads_.emplace_back([this] { io_.run(); });
  }

  void Stop() {
    if (state_.stopping.exchange(true)) return;
    // The acceptor, the signal set and the session list belong to the strand.
    asio::post(strand_, [this] {
      beast::error_code ignored;
      acceptor_.close(ignored);
      signals_.cancel(ignored);
      for (const std::weak_ptr<Session>& weak : sessions_) {
        if (std::shared_ptr<Session> session = weak.lock()) session->CloseIfIdle();
      }
      sessions_.clear();
    });
  }

  void Wait() {
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  void Accept() {
    acceptor_.async_accept(asio::make_strand(io_), [this](beast::error_code error, tcp::socket socket) {
      if (state_.stopping) {
        beast::error_code ignored;
        socket.close(ignored);
        return;
      }
      if (!error) {
        std::erase_if(sessions_, [](const std::weak_ptr<Session>& weak) { return weak.expired(); });
        auto session = std::make_shared<Session>(std::move(socket), state_);
        sessions_.push_back(session);
        session->Start();
      }
      Accept();
    });
  }

  asio::io_context io_;
  asio::strand<asio::io_context::executor_type> strand_;
  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  SharedState state_;
  std::vector<std::weak_ptr<Session>> sessions_;
  std::vector<std::thread> threads_;
  int port_ = 0;
};

HttpServer::HttpServer(const std::string& host, int port, HttpHandler handler)
    : impl_(std::make_unique<Impl>(host, port, std::move(handler))) {}

HttpServer::~HttpServer() {
  impl_->Stop();
  impl_->Wait();
}

int HttpServer::port() const { return impl_->port(); }
void HttpServer::Start(int threads) { impl_->Start(threads); }
void HttpServer::Stop() { impl_->Stop(); }
void HttpServer::Wait() { impl_->Wait(); }

}  // namespace pe::refdiff
