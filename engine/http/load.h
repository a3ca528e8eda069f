// Firing a list of requests at a server over a fixed number of keep-alive connections, the
// way a serve workload measures a contender.
#pragma once

#include <string>
#include <vector>

#include "engine/http/message.h"

namespace pe::http {

struct LoadResult {
  std::vector<Response> responses;  // index = request index
  double wall_s = 0;                // first connect to last response
  int connections_opened = 0;       // == concurrency unless the server closed connections
  std::string error;                // first transport error, with its request; empty when none
};

// Sends every request exactly once over `concurrency` HTTP/1.1 keep-alive connections to
// 127.0.0.1:port; each connection takes the next unsent request from a shared index, so a
// slow answer holds up only its own connection. All connections share one thread.
//
// Statuses are data: a 404 or 500 is an answered request, for the caller to judge.
// A connection the server closes between requests (keep-alive limit, idle timeout) is
// reopened and the request sent again once, since the server never saw it. Any other
// transport failure (refused, reset, timed out after `timeout_s` for one request) is that
// request's error and LoadResult.error; requests not yet sent then are not sent (their error
// says so), so a server that died ends the run at once instead of after one timeout each.
// Bodies are kept only when `keep_bodies` (parity needs them; rate measurement does not), each
// up to `max_kept_body` bytes: a larger one is that request's error (Fault::kTooLarge). With
// `make_sink`, a kept body is not held but written to a sink made for it as it arrives
// (Response.sink; Response.body then holds its first bytes), under the same limit. Bodies not
// kept are dropped as they arrive, so none costs memory.
LoadResult FireRequests(int port, const std::vector<Request>& requests, int concurrency, double timeout_s,
                        bool keep_bodies, std::uint64_t max_kept_body = kMaxKeptBodyBytes,
                        BodySinkFactory make_sink = {});

}  // namespace pe::http
