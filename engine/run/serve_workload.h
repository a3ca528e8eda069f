// Serve workloads in the run loop: which requests a round sends, how a round becomes a sample,
// and parity over response bodies, request by request.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/serve/serve_round.h"
#include "engine/spec/spec.h"

namespace pe::run {

struct ServeOverrides {
  std::optional<int> requests;     // --serve-requests
  std::optional<int> concurrency;  // --serve-concurrency
};

// The requests of a timed round, or of the parity round (each request once, bodies kept).
serve::ServeRequestSpec ServeRequests(const spec::Workload& w, const ServeOverrides& overrides, bool parity);
serve::ServeRoundOptions ServeOptions(const spec::Workload& w, bool parity);

// A timed round as a sample: wall_s is the round's median latency (so speed-up and win rate
// read latency), CPU and peak RSS are the server's own.
model::Sample ServeSample(const serve::ServeRoundResult& round);

// The first request whose normalised bodies differ, with the difference; nullopt when all agree.
// Throws std::runtime_error when a body does not parse as the normaliser expects.
std::optional<std::string> FirstBodyDifference(const spec::Workload& w, const serve::ServeRequestSpec& requests,
                                               const std::vector<std::string>& baseline,
                                               const std::vector<std::string>& other, const std::string& baseline_name,
                                               const std::string& other_name);

}  // namespace pe::run
