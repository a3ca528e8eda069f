// Internal to pe_http: one request/response exchange on a Beast stream, shared by Fetch and
// FireRequests so both send, time and read answers the same way.
#pragma once

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
// (keep <utility> above the Boost headers)
#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include "engine/http/message.h"

namespace pe::http::internal {

struct WireRequest {
  std::string bytes;  // the whole request as sent
  bool head = false;  // a HEAD request: its answer has headers only
};

// The wire form of `request`: HTTP/1.1 with Host, Content-Type and Content-Length filled in.
// Formatted once into one buffer, so sending is a single write with no serializer in the way
// (Beast's serializer was a tenth of the client's CPU time per request).
WireRequest ToWire(int port, const Request& request, bool keep_alive);

using Clock = std::chrono::steady_clock;

// Now plus `s` seconds.
Clock::time_point DeadlineIn(double s);

// "connect: Connection refused", or "receive: timed out after 2 s" for a deadline.
std::string Describe(const char* stage, const boost::beast::error_code& ec, double timeout_s);

// "internal error: <what>", for an exception that escaped a coroutine (out of memory, say),
// so the public functions report failures as data and never throw.
std::string DescribeException(std::exception_ptr failure);

// Opens a TCP connection to 127.0.0.1:port (Nagle off: requests are small and latency is
// what is measured) by `deadline`. Returns an empty string on success, else the described
// error; `timeout_s` is only for that description.
boost::asio::awaitable<std::string> Connect(boost::beast::tcp_stream& stream, int port, Clock::time_point deadline,
                                            double timeout_s);

struct Exchanged {
  Response response;
  bool answer_started = false;  // some response bytes arrived before any error
  bool keep_alive = false;      // the server lets the connection be reused
  bool closed_by_peer = false;  // EOF or reset: the server closed the connection
};

// Writes `request` and reads the whole response by `deadline`. The latency clock runs from
// the start of the write to the last byte read. With `keep_body_up_to`, the body is kept (or,
// with `make_sink`, written to a sink made for it as it arrives), and one larger than that is
// Fault::kTooLarge (read no further), whether its length was given or it ended with the
// connection; without, it is counted and dropped as it arrives, so no answer costs memory
// however large.
boost::asio::awaitable<Exchanged> Exchange(boost::beast::tcp_stream& stream, boost::beast::flat_buffer& buffer,
                                           const WireRequest& request, Clock::time_point deadline, double timeout_s,
                                           std::optional<std::uint64_t> keep_body_up_to,
                                           const BodySinkFactory* make_sink = nullptr);

}  // namespace pe::http::internal
