#include "engine/http/exchange.h"

#include <fmt/format.h>

#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <iterator>

namespace pe::http::internal {

namespace {
constexpr std::uint64_t kMaxBodyBytes = std::uint64_t{1} << 30;  // 1 GiB
}  // namespace

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

WireRequest ToWire(int port, const Request& request, bool keep_alive) {
  WireRequest out;
  out.head = request.method == "HEAD";
  auto it = std::back_inserter(out.bytes);
  fmt::format_to(it, "{} {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nUser-Agent: perfengine\r\n", request.method,
                 request.target, port);
  if (!request.content_type.empty()) fmt::format_to(it, "Content-Type: {}\r\n", request.content_type);
  // Methods that carry a body say how long it is even when empty, as RFC 9110 asks.
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
    fmt::format_to(it, "Content-Length: {}\r\n", request.body.size());
  }
  if (!keep_alive) out.bytes += "Connection: close\r\n";
  out.bytes += "\r\n";
  out.bytes += request.body;
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

asio::awaitable<std::string> Connect(beast::tcp_stream& stream, int port, Clock::time_point deadline,
                                     double timeout_s) {
  const asio::ip::tcp::endpoint endpoint(asio::ip::address_v4::loopback(), static_cast<unsigned short>(port));
  beast::error_code ec;
  stream.expires_at(deadline);
  co_await stream.async_connect(endpoint, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return Describe("connect", ec, timeout_s);
  stream.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  co_return std::string();
}

namespace {

bool ClosedByPeer(const beast::error_code& ec) {
  return ec == bhttp::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe;
}

}  // namespace

asio::awaitable<Exchanged> Exchange(beast::tcp_stream& stream, beast::flat_buffer& buffer, const WireRequest& request,
                                    Clock::time_point deadline, double timeout_s, bool keep_body) {
  Exchanged out;
  beast::error_code ec;
  // One deadline for the write and the read together: it is the request's budget.
  stream.expires_at(deadline);
  const auto start = Clock::now();
  co_await asio::async_write(stream, asio::buffer(request.bytes), asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    out.response.error = Describe("send", ec, timeout_s);
    out.closed_by_peer = ClosedByPeer(ec);
    co_return out;
  }
  bhttp::response_parser<bhttp::string_body> parser;
  // Answers such as a large impacted-targets list may exceed Beast's default 8 MB cap. Not
  // boost::none: Boost 1.74 compares the length against the empty optional as if it were 0,
  // so a body arriving after its header was "body limit exceeded". A finite cap also keeps a
  // runaway server from filling memory.
  parser.body_limit(kMaxBodyBytes);
  if (request.head) parser.skip(true);
  co_await bhttp::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
  out.response.latency_s = std::chrono::duration<double>(Clock::now() - start).count();
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
