// One measured round of a server contender: start it on a free loopback port, wait until it
// is healthy, send it a workload's requests, stop it. The run loop calls this once per
// contender per round, alternating contenders. docs/serve.md, "How a serve round runs".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/http/message.h"
#include "engine/http/port.h"
#include "engine/runner/process_runner.h"

namespace pe::serve {

struct ServeRequestSpec {
  std::vector<http::Request> requests;  // cycled through: request i is requests[i % size]
  int count = 0;                        // requests sent in all
  int concurrency = 1;                  // keep-alive connections
  double request_timeout_s = 10;        // for each request, from send to last byte
};

struct ServeRoundOptions {
  std::string health_path = "/health";
  double ready_timeout_s = 30;                          // from the spawn to the first 200 on health_path
  double stop_grace_s = 5;                              // between SIGTERM and SIGKILL
  int port_attempts = 3;                                // ports tried when the server loses its port to another process
  bool keep_bodies = false;                             // keep every answer's body (parity checks need them)
  std::uint64_t max_kept_body = http::kMaxKeptBodyBytes;  // a kept body over this fails the round
  // With keep_bodies: each body goes to a sink made by this as it arrives (`sinks`), not into
  // `bodies`, so a large answer is never held whole (parity digests bodies as streams).
  http::BodySinkFactory body_sink;
  std::function<int()> pick_port = http::PickFreePort;  // tests inject a port they hold
};

struct ServeRoundResult {
  // kNotStarted: the server's process could not be spawned; kFailed: anything after that.
  enum class Failure { kNone, kNotStarted, kFailed };
  bool ok = false;
  Failure failed = Failure::kNone;
  std::string failure;                        // one line: what went wrong; empty when ok
  std::string detail;                         // the server's stderr tail, or the request and its answer; may be empty
  int port = 0;                               // the port of the last attempt
  double time_to_ready_s = 0;                 // spawn to the first healthy answer
  std::vector<double> latencies_s;            // index = request index
  double p50 = 0, p90 = 0, p99 = 0, max = 0;  // of latencies_s, type-7 quantiles
  double throughput_rps = 0;                  // count / wall_s
  double wall_s = 0;                          // first connect to last answer
  runner::Outcome server;                     // how the server ended, its CPU time and peak RSS (wait4)
  std::vector<std::string> bodies;            // when keep_bodies; index = request index
  std::vector<std::shared_ptr<http::BodySink>> sinks;  // when keep_bodies with a body_sink; index = request index
  int attempts = 0;                           // servers started (more than 1 after a lost port)
  // Not a failure, but worth saying: "server ignored SIGTERM and was killed after 5 s; every
  // round waits that long for it". Empty when there is nothing to say.
  std::string note;
};

// Runs one round, starting each server through `runner` (ProcessRunner::StartServer).
// `make_command` builds the server's command for a port (the port in its argv or environment). Latencies, percentiles,
// throughput and bodies are filled in only when ok; `server` and `attempts` always. Failures, each with every process
// of the server killed and reaped before returning:
//   "cannot start server: program not found: X"
//   "server exited before becoming healthy (exit status 1)"          detail: stderr tail
//   "server lost its port to another process 3 times (exit status 98)"
//   "not healthy after 30 s: last answer 503"                        detail: stderr tail
//   "server stopped answering: receive: ... (request 7: GET /x)"     detail: stderr tail
//       + "; the server had exited (exit status 1)" when it died meanwhile
//   "server sent a malformed answer to request 7: GET /x: bad chunk"  detail: stderr tail
//   "request 7: GET /x answered with a body over 256 MiB, the most kept of one answer"
//   "request 7: GET /x answered 500"                                 detail: request, answer
//   "server exited during the run (killed by SIGSEGV)"               detail: stderr tail
//   "interrupted"
// A port is retried only when the server exited before becoming healthy because the port was
// taken: exit status 98 (EADDRINUSE), "address in use" on stderr, or the port now answering.
// When the command names no stderr file, stderr goes to a temporary file, removed afterwards.
ServeRoundResult RunServeRound(runner::ProcessRunner& runner,
                               const std::function<runner::Command(int port)>& make_command,
                               const ServeRequestSpec& spec, const ServeRoundOptions& options);

}  // namespace pe::serve
