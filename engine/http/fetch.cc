#include "engine/http/fetch.h"

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
// (keep <utility> above the Boost headers)
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "engine/http/exchange.h"

namespace pe::http {

namespace asio = boost::asio;
namespace beast = boost::beast;

namespace {

asio::awaitable<void> FetchOnce(int port, const Request& request, double timeout_s, Response& out) {
  beast::tcp_stream stream(co_await asio::this_coro::executor);
  // One deadline for connecting and exchanging, so the whole call stays within timeout_s.
  const auto deadline = internal::DeadlineIn(timeout_s);
  std::string error = co_await internal::Connect(stream, port, deadline, timeout_s);
  if (!error.empty()) {
    out.error = std::move(error);
    co_return;
  }
  beast::flat_buffer buffer;
  internal::Exchanged exchanged = co_await internal::Exchange(
      stream, buffer, internal::ToWire(port, request, /*keep_alive=*/false), deadline, timeout_s, kMaxKeptBodyBytes);
  out = std::move(exchanged.response);
  beast::error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
}

}  // namespace

Response Fetch(int port, const Request& request, double timeout_s) {
  Response response;
  asio::io_context context(1);
  asio::co_spawn(context, FetchOnce(port, request, timeout_s, response), [&response](std::exception_ptr failure) {
    if (failure) response.error = internal::DescribeException(failure);
  });
  context.run();
  return response;
}

}  // namespace pe::http
