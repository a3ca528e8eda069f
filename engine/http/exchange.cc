#include "engine/http/exchange.h"

#include <fmt/format.h>

#include <algorithm>
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
#include <limits>

namespace pe::http::internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

namespace {

// A body that is only counted: a timed round measures answers, it does not keep them.
struct DroppedBody {
  using value_type = std::uint64_t;  // bytes received
  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(bhttp::header<isRequest, Fields>&, value_type& bytes) : bytes_(bytes) {}
    void init(const boost::optional<std::uint64_t>&, beast::error_code& ec) { ec = {}; }
    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, beast::error_code& ec) {
      ec = {};
      const std::size_t n = asio::buffer_size(buffers);
      bytes_ += n;
      return n;
    }
    void finish(beast::error_code& ec) { ec = {}; }

   private:
    value_type& bytes_;
  };
};

// A body written to a BodySink as it arrives, its first bytes kept to quote.
struct SinkBody {
  struct value_type {
    std::shared_ptr<BodySink> sink;
    std::string head;  // the first kSinkHeadBytes
  };
  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(bhttp::header<isRequest, Fields>&, value_type& body) : body_(body) {}
    void init(const boost::optional<std::uint64_t>&, beast::error_code& ec) { ec = {}; }
    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, beast::error_code& ec) {
      ec = {};
      std::size_t n = 0;
      for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it) {
        const asio::const_buffer piece = *it;
        const char* data = static_cast<const char*>(piece.data());
        if (body_.head.size() < kSinkHeadBytes) {
          body_.head.append(data, std::min(piece.size(), kSinkHeadBytes - body_.head.size()));
        }
        body_.sink->Write(data, piece.size());
        n += piece.size();
      }
      return n;
    }
    void finish(beast::error_code& ec) {
      ec = {};
      body_.sink->Finish();
    }

   private:
    value_type& body_;
  };
};

}  // namespace

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

namespace {

// Reads the response into `parser`; fills `out` but for the body.
template <class Parser>
asio::awaitable<void> Read(beast::tcp_stream& stream, beast::flat_buffer& buffer, Parser& parser, bool head,
                           std::optional<std::uint64_t> limit, Clock::time_point start, double timeout_s,
                           Exchanged& out) {
  beast::error_code ec;
  if (head) parser.skip(true);
  co_await bhttp::async_read_header(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
  // Boost 1.74 checks a Content-Length against the limit only once that much has arrived.
  if (!ec && limit && parser.content_length() && *parser.content_length() > *limit) ec = bhttp::error::body_limit;
  if (!ec && !parser.is_done()) {
    co_await bhttp::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
  }
  out.response.latency_s = std::chrono::duration<double>(Clock::now() - start).count();
  out.answer_started = parser.got_some();
  if (ec) {
    out.response.error = Describe("receive", ec, timeout_s);
    out.closed_by_peer = ClosedByPeer(ec);
    // Beast's own errors, but for the peer closing, are about what the server sent.
    // A partial message is an answer cut short: the server stopped answering.
    const bool http_error = ec.category() == bhttp::make_error_code(bhttp::error::bad_version).category() &&
                            ec != bhttp::error::partial_message;
    out.response.fault = ec == bhttp::error::body_limit      ? Response::Fault::kTooLarge
                         : http_error && !out.closed_by_peer ? Response::Fault::kMalformed
                                                             : Response::Fault::kTransport;
    if (out.response.fault == Response::Fault::kMalformed) out.response.error = ec.message();
    co_return;
  }
  out.response.status = static_cast<int>(parser.get().result_int());
  out.keep_alive = parser.get().keep_alive();
}

}  // namespace

asio::awaitable<Exchanged> Exchange(beast::tcp_stream& stream, beast::flat_buffer& buffer, const WireRequest& request,
                                    Clock::time_point deadline, double timeout_s,
                                    std::optional<std::uint64_t> keep_body_up_to, const BodySinkFactory* make_sink) {
  Exchanged out;
  beast::error_code ec;
  // One deadline for the write and the read together: it is the request's budget.
  stream.expires_at(deadline);
  const auto start = Clock::now();
  co_await asio::async_write(stream, asio::buffer(request.bytes), asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    out.response.error = Describe("send", ec, timeout_s);
    out.response.fault = Response::Fault::kTransport;
    out.closed_by_peer = ClosedByPeer(ec);
    co_return out;
  }
  // Not boost::none for "no limit": Boost 1.74 compares the length against the empty optional
  // as if it were 0, so a body arriving after its header was "body limit exceeded".
  if (keep_body_up_to && make_sink && *make_sink) {
    bhttp::response_parser<SinkBody> parser;
    parser.body_limit(*keep_body_up_to);
    parser.get().body().sink = (*make_sink)();
    co_await Read(stream, buffer, parser, request.head, keep_body_up_to, start, timeout_s, out);
    if (out.response.error.empty()) {
      out.response.body = std::move(parser.get().body().head);
      out.response.sink = std::move(parser.get().body().sink);
    }
  } else if (keep_body_up_to) {
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(*keep_body_up_to);
    co_await Read(stream, buffer, parser, request.head, keep_body_up_to, start, timeout_s, out);
    if (out.response.error.empty()) out.response.body = std::move(parser.get().body());
  } else {
    bhttp::response_parser<DroppedBody> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    co_await Read(stream, buffer, parser, request.head, std::nullopt, start, timeout_s, out);
  }
  co_return out;
}

}  // namespace pe::http::internal
