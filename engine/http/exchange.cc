#include "engine/http/exchange.h"

#include <fmt/core.h>

#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <optional>

namespace pe::http::internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

BeastRequest ToBeast(int port, const Request& request, bool keep_alive) {
  BeastRequest out;
  out.version(11);
  out.method_string(request.method);
  out.target(request.target);
  out.set(bhttp::field::host, fmt::format("127.0.0.1:{}", port));
  out.set(bhttp::field::user_agent, "perfengine");
  if (!request.content_type.empty()) out.set(bhttp::field::content_type, request.content_type);
  out.body() = request.body;
  out.keep_alive(keep_alive);
  out.prepare_payload();
  return out;
}

Clock::time_point DeadlineIn(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

std::string Describe(const char* stage, const beast::error_code& ec, double timeout_s) {
  if (ec == beast::error::timeout) return fmt::format("{}: timed out after {:g} s", stage, timeout_s);
  return fmt::format("{}: {}", stage, ec.message());
}

std::string DescribeException(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return fmt::format("internal error: {}", e.what());
  } catch (...) {
    return "internal error: unknown exception";
  }
}

asio::awaitable<std::string> Connect(beast::tcp_stream& stream, int port,
                                     Clock::time_point deadline, double timeout_s) {
  const asio::ip::tcp::endpoint endpoint(asio::ip::address_v4::loopback(),
                                         static_cast<unsigned short>(port));
  beast::error_code ec;
  stream.expires_at(deadline);
  co_await stream.async_connect(endpoint, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return Describe("connect", ec, timeout_s);
  stream.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  co_return std::string();
}

namespace {

bool ClosedByPeer(const beast::error_code& ec) {
  return ec == bhttp::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe;
}

}  // namespace

asio::awaitable<Exchanged> Exchange(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                    const BeastRequest& request, Clock::time_point deadline,
                                    double timeout_s, bool keep_body) {
  Exchanged out;
  beast::error_code ec;
  // One deadline for the write and the read together: it is the request's budget.
  stream.expires_at(deadline);
  const auto start = Clock::now();
  co_await bhttp::async_write(stream, request, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    out.response.error = Describe("send", ec, timeout_s);
    out.closed_by_peer = ClosedByPeer(ec);
    co_return out;
  }
  bhttp::response_parser<bhttp::string_body> parser;
  // Answers such as a large impacted-targets list may exceed Beast's default 8 MB cap.
  parser.body_limit(boost::none);
  if (request.method() == bhttp::verb::head) parser.skip(true);
  co_await bhttp::async_read(stream, buffer, parser,
                             asio::redirect_error(asio::use_awaitable, ec));
  out.response.latency_s =
      std::chrono::duration<double>(Clock::now() - start).count();
  out.answer_started = parser.got_some();
  if (ec) {
    out.response.error = Describe("receive", ec, timeout_s);
    out.closed_by_peer = ClosedByPeer(ec);
    co_return out;
  }
  auto& message = parser.get();
  out.response.status = static_cast<int>(message.result_int());
  out.keep_alive = message.keep_alive();
  if (keep_body) out.response.body = std::move(message.body());
  co_return out;
}

}  // namespace pe::http::internal
