#include "engine/serve/serve_round.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fmt/core.h>
#include <memory>
#include <optional>
#include <utility>

#include "engine/http/health.h"
#include "engine/http/load.h"
#include "engine/runner/interrupt.h"
#include "engine/runner/server_process.h"
#include "engine/runner/spawn.h"
#include "engine/serve/stderr_file.h"
#include "stats/descriptive.h"

namespace pe::serve {
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
  return text.find("address in use") != std::string::npos ||
         text.find("address already in use") != std::string::npos;
}

// A server that exited before becoming healthy lost its port when it says so, or when someone
// else now listens there.
bool LostPort(const Outcome& outcome, const std::string& stderr_tail, int port) {
  return (outcome.status == Outcome::Status::kExited && outcome.exit_code == kExitAddressInUse) ||
         SaysAddressInUse(stderr_tail) || http::PortAcceptsConnections(port);
}

ServeRoundResult Failure(ServeRoundResult result, std::string failure, std::string detail = {}) {
  result.ok = false;
  result.failure = std::move(failure);
  result.detail = std::move(detail);
  return result;
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

void FillFigures(const http::LoadResult& load, bool keep_bodies, ServeRoundResult* result) {
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
  if (keep_bodies) {
    result->bodies.reserve(load.responses.size());
    for (const http::Response& response : load.responses) result->bodies.push_back(response.body);
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

}  // namespace

ServeRoundResult RunServeRound(const std::function<Command(int port)>& make_command,
                               const ServeRequestSpec& spec, const ServeRoundOptions& options) {
  ServeRoundResult result;
  if (std::string error = ValidationError(spec, options); !error.empty()) {
    return Failure(std::move(result), std::move(error));
  }
  const std::vector<http::Request> requests = Expand(spec);

  // One attempt per port; the server and its stderr file live until the round ends.
  std::unique_ptr<ServerProcess> server;
  std::unique_ptr<StderrFile> stderr_file;
  for (;;) {
    if (interrupt::Interrupted()) return Failure(std::move(result), "interrupted");
    ++result.attempts;
    result.port = options.pick_port();
    if (result.port <= 0) return Failure(std::move(result), "no free loopback port to start on");
    Command command = make_command(result.port);
    stderr_file = std::make_unique<StderrFile>(&command);
    server = std::make_unique<ServerProcess>();
    if (std::string error = server->Start(command); !error.empty()) {
      if (interrupt::Interrupted()) return Failure(std::move(result), "interrupted");
      return Failure(std::move(result), "cannot start server: " + error);
    }
    const http::HealthResult health =
        http::WaitUntilHealthy(result.port, options.health_path, options.ready_timeout_s,
                               [&] { return !interrupt::Interrupted() && server->Running(); });
    if (interrupt::Interrupted()) {
      result.server = server->Stop(options.stop_grace_s);
      return Failure(std::move(result), "interrupted");
    }
    if (health.healthy) {
      result.time_to_ready_s = health.time_to_ready_s;
      break;
    }
    if (server->Running()) {
      result.server = server->Stop(options.stop_grace_s);
      return Failure(std::move(result), health.error, stderr_file->Tail());
    }
    result.server = server->Wait();
    const std::string tail = stderr_file->Tail();
    if (!LostPort(result.server, tail, result.port)) {
      return Failure(
          std::move(result),
          fmt::format("server exited before becoming healthy ({})", HowItEnded(result.server)),
          tail);
    }
    if (result.attempts >= options.port_attempts) {
      return Failure(std::move(result),
                     fmt::format("server lost its port to another process {} times ({})",
                                 result.attempts, HowItEnded(result.server)),
                     tail);
    }
  }

  const http::LoadResult load = http::FireRequests(result.port, requests, spec.concurrency,
                                                   spec.request_timeout_s, options.keep_bodies);
  if (interrupt::Interrupted()) {
    result.server = server->Stop(options.stop_grace_s);
    return Failure(std::move(result), "interrupted");
  }
  // A server that crashed closed its connections a moment before it became reapable; give it
  // that moment, so the failure says it died rather than that it stopped answering.
  const bool died =
      load.error.empty() ? !server->Running() : server->ExitsWithin(kDeathSettleSeconds);
  result.server = died ? server->Wait() : server->Stop(options.stop_grace_s);
  const std::string exit_note =
      died ? fmt::format("; the server had exited ({})", HowItEnded(result.server)) : "";

  if (!load.error.empty()) {
    const std::optional<size_t> failed = FirstTransportError(load.responses);
    std::string failure =
        failed ? fmt::format("server stopped answering: {} ({}){}", load.responses[*failed].error,
                             Describe(*failed, requests[*failed]), exit_note)
               : fmt::format("server stopped answering: {}{}", load.error, exit_note);
    return Failure(std::move(result), std::move(failure), stderr_file->Tail());
  }
  if (const std::optional<size_t> bad = FirstNon2xx(load.responses)) {
    const http::Response& response = load.responses[*bad];
    // The failure line names the request; the detail adds what was sent and what came back.
    const http::Request& request = requests[*bad];
    std::string detail = Describe(*bad, request);
    if (!request.body.empty()) detail += " with body " + request.body.substr(0, kMaxBodyInDetail);
    detail += fmt::format(" answered {}", response.status);
    if (!response.body.empty()) detail += ": " + response.body.substr(0, kMaxBodyInDetail);
    return Failure(std::move(result),
                   fmt::format("{} answered {}", Describe(*bad, requests[*bad]), response.status),
                   std::move(detail));
  }
  if (died) {
    return Failure(std::move(result),
                   fmt::format("server exited during the run ({})", HowItEnded(result.server)),
                   stderr_file->Tail());
  }
  FillFigures(load, options.keep_bodies, &result);
  result.ok = true;
  return result;
}

}  // namespace pe::serve
