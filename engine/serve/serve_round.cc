#include "engine/serve/serve_round.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <csignal>
#include <memory>
#include <optional>
#include <utility>

#include "engine/http/health.h"
#include "engine/http/load.h"
#include "engine/runner/interrupt.h"
#include "engine/runner/spawn.h"
#include "engine/serve/stderr_file.h"
#include "engine/units/units.h"
#include "stats/descriptive.h"

namespace pe::serve {

using runner::Command;
using runner::Outcome;
using runner::ProcessRunner;
using runner::RunningServer;
using runner::SignalName;
using runner::StartedServer;
namespace {

constexpr int kExitAddressInUse = 98;  // EADDRINUSE's number, the convention servers follow
constexpr size_t kMaxBodyInDetail = 200;
constexpr double kDeathSettleSeconds = 0.2;

std::string HowItEnded(const Outcome& outcome) {
  switch (outcome.status) {
    case Outcome::Status::kExited:
      return fmt::format("exit status {}", outcome.exit_code);
    case Outcome::Status::kSignalled:
      return fmt::format("killed by {}", SignalName(outcome.signal));
    default:
      return outcome.error;
  }
}

std::string Describe(size_t index, const http::Request& request) {
  return fmt::format("request {}: {} {}", index, request.method, request.target);
}

bool SaysAddressInUse(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // "address in use" (the stub), "Address already in use" (strerror(EADDRINUSE)).
  return text.find("address in use") != std::string::npos || text.find("address already in use") != std::string::npos;
}

// A server that exited before becoming healthy lost its port when it says so, or when someone
// else now listens there.
bool LostPort(const Outcome& outcome, const std::string& stderr_tail, int port) {
  return (outcome.status == Outcome::Status::kExited && outcome.exit_code == kExitAddressInUse) ||
         SaysAddressInUse(stderr_tail) || http::PortAcceptsConnections(port);
}

// Marks the round failed; always returns false, so callers can `return Fail(...)`.
bool Fail(ServeRoundResult* result, std::string failure, std::string detail = {},
          ServeRoundResult::Failure kind = ServeRoundResult::Failure::kFailed) {
  result->ok = false;
  result->failed = kind;
  result->failure = std::move(failure);
  result->detail = std::move(detail);
  return false;
}

std::vector<http::Request> Expand(const ServeRequestSpec& spec) {
  std::vector<http::Request> requests;
  requests.reserve(static_cast<size_t>(spec.count));
  for (int i = 0; i < spec.count; ++i) requests.push_back(spec.requests[i % spec.requests.size()]);
  return requests;
}

// The first request (by index) whose answer is not 2xx, if any.
std::optional<size_t> FirstNon2xx(const std::vector<http::Response>& responses) {
  for (size_t i = 0; i < responses.size(); ++i) {
    if (responses[i].status < 200 || responses[i].status > 299) return i;
  }
  return std::nullopt;
}

// The first request (by index) that failed in transport; requests never sent after the load
// stopped carry an error too, but never before the one that stopped it.
std::optional<size_t> FirstTransportError(const std::vector<http::Response>& responses) {
  for (size_t i = 0; i < responses.size(); ++i) {
    if (!responses[i].error.empty()) return i;
  }
  return std::nullopt;
}

void FillFigures(http::LoadResult& load, const ServeRoundOptions& options, ServeRoundResult* result) {
  result->latencies_s.reserve(load.responses.size());
  for (const http::Response& response : load.responses) {
    result->latencies_s.push_back(response.latency_s);
  }
  constexpr std::array<double, 3> kProbabilities = {0.5, 0.9, 0.99};
  const std::vector<double> q = stats::Quantiles(result->latencies_s, kProbabilities);
  result->p50 = q[0];
  result->p90 = q[1];
  result->p99 = q[2];
  result->max = *std::max_element(result->latencies_s.begin(), result->latencies_s.end());
  result->wall_s = load.wall_s;
  result->throughput_rps = load.wall_s > 0 ? load.responses.size() / load.wall_s : 0;
  // Moved, not copied: a kept body is held once.
  if (options.keep_bodies && options.body_sink) {
    result->sinks.reserve(load.responses.size());
    for (http::Response& response : load.responses) result->sinks.push_back(std::move(response.sink));
  } else if (options.keep_bodies) {
    result->bodies.reserve(load.responses.size());
    for (http::Response& response : load.responses) result->bodies.push_back(std::move(response.body));
  }
}

std::string ValidationError(const ServeRequestSpec& spec, const ServeRoundOptions& options) {
  if (spec.requests.empty()) return "no requests to send";
  if (spec.count <= 0) return fmt::format("request count must be positive, not {}", spec.count);
  if (spec.concurrency <= 0) {
    return fmt::format("concurrency must be positive, not {}", spec.concurrency);
  }
  if (options.port_attempts <= 0) return "port_attempts must be positive";
  if (!options.pick_port) return "no way to pick a port";
  return "";
}

// The server of the current attempt, and where its stderr goes.
struct Attempt {
  std::unique_ptr<StderrFile> stderr_file;
  std::unique_ptr<RunningServer> server;
};

// Starts the server until one becomes healthy, on a new port each time it lost its port.
// False (with the failure filled in and every server reaped) when none became healthy.
bool StartHealthy(ProcessRunner& runner, const std::function<Command(int port)>& make_command,
                  const ServeRoundOptions& options, Attempt* attempt, ServeRoundResult* result) {
  for (;;) {
    if (interrupt::Interrupted()) return Fail(result, "interrupted");
    ++result->attempts;
    result->port = options.pick_port();
    if (result->port <= 0) return Fail(result, "no free loopback port to start on");
    Command command = make_command(result->port);
    attempt->server.reset();  // the previous attempt's server was reaped; its file goes next
    attempt->stderr_file = std::make_unique<StderrFile>(&command);
    // Time to ready counts from the request to start the server, as a user would time it: from
    // the call that returns its pid, the server's own start-up would be counted short.
    const auto launched = std::chrono::steady_clock::now();
    StartedServer started = runner.StartServer(command);
    if (!started.server) {
      if (interrupt::Interrupted()) return Fail(result, "interrupted");
      return Fail(result, "cannot start server: " + started.error, {}, ServeRoundResult::Failure::kNotStarted);
    }
    attempt->server = std::move(started.server);
    RunningServer& server = *attempt->server;
    const http::HealthResult health =
        http::WaitUntilHealthy(result->port, options.health_path, options.ready_timeout_s,
                               [&] { return !interrupt::Interrupted() && server.Running(); });
    if (interrupt::Interrupted()) {
      result->server = server.Stop(options.stop_grace_s);
      return Fail(result, "interrupted");
    }
    if (health.healthy) {
      result->time_to_ready_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - launched).count();
      return true;
    }
    if (server.Running()) {
      result->server = server.Stop(options.stop_grace_s);
      return Fail(result, health.error, attempt->stderr_file->Tail());
    }
    result->server = server.Wait();
    const std::string tail = attempt->stderr_file->Tail();
    if (!LostPort(result->server, tail, result->port)) {
      return Fail(result, fmt::format("server exited before becoming healthy ({})", HowItEnded(result->server)), tail);
    }
    if (result->attempts >= options.port_attempts) {
      return Fail(result,
                  fmt::format("server lost its port to another process {} times ({})", result->attempts,
                              HowItEnded(result->server)),
                  tail);
    }
  }
}

// Stops (or collects) the server after the load and judges the run: the first transport
// error, else the first non-2xx answer, else a server that died, else the figures.
bool StopAndJudge(http::LoadResult& load, const std::vector<http::Request>& requests, const ServeRoundOptions& options,
                  Attempt* attempt, ServeRoundResult* result) {
  RunningServer& server = *attempt->server;
  if (interrupt::Interrupted()) {
    result->server = server.Stop(options.stop_grace_s);
    return Fail(result, "interrupted");
  }
  // A server that crashed closed its connections a moment before it became reapable; give it
  // that moment, so the failure says it died rather than that it stopped answering.
  const bool died = load.error.empty() ? !server.Running() : server.ExitsWithin(kDeathSettleSeconds);
  result->server = died ? server.Wait() : server.Stop(options.stop_grace_s);

  if (!load.error.empty()) {
    const std::string exit_note = died ? fmt::format("; the server had exited ({})", HowItEnded(result->server)) : "";
    const std::optional<size_t> failed = FirstTransportError(load.responses);
    const http::Response::Fault fault = failed ? load.responses[*failed].fault : http::Response::Fault::kTransport;
    if (fault == http::Response::Fault::kTooLarge) {
      return Fail(result, fmt::format("{} answered with a body over {}, the most kept of one answer",
                                      Describe(*failed, requests[*failed]),
                                      units::FormatKiB(static_cast<std::int64_t>(options.max_kept_body >> 10))));
    }
    if (fault == http::Response::Fault::kMalformed) {
      return Fail(result,
                  fmt::format("server sent a malformed answer to {}: {}{}", Describe(*failed, requests[*failed]),
                              load.responses[*failed].error, exit_note),
                  attempt->stderr_file->Tail());
    }
    std::string failure = failed ? fmt::format("server stopped answering: {} ({}){}", load.responses[*failed].error,
                                               Describe(*failed, requests[*failed]), exit_note)
                                 : fmt::format("server stopped answering: {}{}", load.error, exit_note);
    return Fail(result, std::move(failure), attempt->stderr_file->Tail());
  }
  if (const std::optional<size_t> bad = FirstNon2xx(load.responses)) {
    const http::Request& request = requests[*bad];
    const http::Response& response = load.responses[*bad];
    // The failure line names the request; the detail adds what was sent and what came back.
    std::string detail = Describe(*bad, request);
    if (!request.body.empty()) detail += " with body " + request.body.substr(0, kMaxBodyInDetail);
    detail += fmt::format(" answered {}", response.status);
    if (!response.body.empty()) detail += ": " + response.body.substr(0, kMaxBodyInDetail);
    return Fail(result, fmt::format("{} answered {}", Describe(*bad, request), response.status), std::move(detail));
  }
  if (died) {
    return Fail(result, fmt::format("server exited during the run ({})", HowItEnded(result->server)),
                attempt->stderr_file->Tail());
  }
  if (result->server.status == Outcome::Status::kSignalled && result->server.signal == SIGKILL) {
    result->note = fmt::format("server ignored SIGTERM and was killed after {:g} s; every round waits that long for it",
                               options.stop_grace_s);
  }
  FillFigures(load, options, result);
  result->ok = true;
  return true;
}

}  // namespace

ServeRoundResult RunServeRound(ProcessRunner& runner, const std::function<Command(int port)>& make_command,
                               const ServeRequestSpec& spec, const ServeRoundOptions& options) {
  ServeRoundResult result;
  if (std::string error = ValidationError(spec, options); !error.empty()) {
    Fail(&result, std::move(error));
    return result;
  }
  const std::vector<http::Request> requests = Expand(spec);
  Attempt attempt;
  if (!StartHealthy(runner, make_command, options, &attempt, &result)) return result;
  http::LoadResult load = http::FireRequests(result.port, requests, spec.concurrency, spec.request_timeout_s,
                                             options.keep_bodies, options.max_kept_body, options.body_sink);
  StopAndJudge(load, requests, options, &attempt, &result);
  return result;
}

}  // namespace pe::serve
