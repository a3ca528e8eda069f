#include "engine/http/load.h"

#include <fmt/core.h>

#include <algorithm>
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

// State every connection shares. Only the one thread running the io_context touches it.
struct Load {
  int port = 0;
  const std::vector<Request>* requests = nullptr;
  double timeout_s = 0;
  bool keep_bodies = false;
  std::uint64_t max_kept_body = 0;
  BodySinkFactory make_sink;  // may be empty

  size_t next = 0;       // the next request no connection has taken yet
  bool stopped = false;  // set by the first transport error: take no more requests
  LoadResult result;

  void Fail(size_t index, const std::string& error) {
    if (!result.error.empty()) return;
    const Request& request = (*requests)[index];
    result.error = fmt::format("request {} ({} {}): {}", index, request.method, request.target, error);
    stopped = true;
  }
};

void Close(beast::tcp_stream& stream) {
  beast::error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream.socket().close(ignored);
}

// One keep-alive connection: takes requests from the shared index until none are left.
asio::awaitable<void> Connection(Load& load) {
  beast::tcp_stream stream(co_await asio::this_coro::executor);
  beast::flat_buffer buffer;
  bool open = false;
  int answered_here = 0;  // answers on the current connection
  while (!load.stopped && load.next < load.requests->size()) {
    const size_t index = load.next++;
    const internal::WireRequest wire = internal::ToWire(load.port, (*load.requests)[index], /*keep_alive=*/true);
    Response response;
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!open) {
        std::string error =
            co_await internal::Connect(stream, load.port, internal::DeadlineIn(load.timeout_s), load.timeout_s);
        if (!error.empty()) {
          response.error = std::move(error);
          response.fault = Response::Fault::kTransport;
          break;
        }
        open = true;
        answered_here = 0;
        buffer.consume(buffer.size());
        ++load.result.connections_opened;
      }
      internal::Exchanged exchanged = co_await internal::Exchange(
          stream, buffer, wire, internal::DeadlineIn(load.timeout_s), load.timeout_s,
          load.keep_bodies ? std::optional(load.max_kept_body) : std::nullopt, &load.make_sink);
      // A server may close an idle keep-alive connection just as we reuse it; it never saw
      // the request then, so sending it once more on a new connection is safe.
      const bool closed_before_answer = answered_here > 0 && exchanged.closed_by_peer && !exchanged.answer_started;
      if (!exchanged.response.error.empty() || !exchanged.keep_alive) {
        Close(stream);
        open = false;
      } else {
        ++answered_here;
      }
      response = std::move(exchanged.response);
      if (!closed_before_answer) break;
    }
    if (!response.error.empty()) load.Fail(index, response.error);
    load.result.responses[index] = std::move(response);
  }
  if (open) Close(stream);
}

}  // namespace

LoadResult FireRequests(int port, const std::vector<Request>& requests, int concurrency, double timeout_s,
                        bool keep_bodies, std::uint64_t max_kept_body, BodySinkFactory make_sink) {
  Load load;
  load.port = port;
  load.requests = &requests;
  load.timeout_s = timeout_s;
  load.keep_bodies = keep_bodies;
  load.max_kept_body = max_kept_body;
  load.make_sink = std::move(make_sink);
  load.result.responses.resize(requests.size());

  const size_t connections = std::min(static_cast<size_t>(std::max(concurrency, 1)), requests.size());
  // One thread: on a 2-core machine the server under test needs the other core, and one
  // thread already outpaces wrk's single thread against the stub server (bench/http_client).
  asio::io_context context(1);
  std::string escaped;
  for (size_t i = 0; i < connections; ++i) {
    asio::co_spawn(context, Connection(load), [&](std::exception_ptr failure) {
      if (failure && escaped.empty()) escaped = internal::DescribeException(failure);
    });
  }
  const auto start = internal::Clock::now();
  context.run();
  load.result.wall_s = std::chrono::duration<double>(internal::Clock::now() - start).count();

  if (!escaped.empty()) {
    load.stopped = true;
    if (load.result.error.empty()) load.result.error = escaped;
  }
  if (load.stopped) {
    for (size_t i = 0; i < requests.size(); ++i) {
      Response& response = load.result.responses[i];
      if (response.status == 0 && response.error.empty()) {
        response.error = "not sent: the run stopped after an earlier error";
      }
    }
  }
  return std::move(load.result);
}

}  // namespace pe::http
