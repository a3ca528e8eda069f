// Serve workloads in the run loop: which requests a round sends, how a round becomes a sample,
// and parity over response bodies, request by request.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/run/output_digest.h"
#include "engine/serve/serve_round.h"
#include "engine/spec/spec.h"

namespace pe::run {

struct ServeOverrides {
  std::optional<int> requests;     // --serve-requests
  std::optional<int> concurrency;  // --serve-concurrency
};

// The requests of a timed round, or of the parity round (each request once, bodies kept).
serve::ServeRequestSpec ServeRequests(const spec::Workload& w, const ServeOverrides& overrides, bool parity);
// For parity (unless parity = "none"), each body is digested as it arrives
// (StreamingDigest), so a server's answer costs no more memory than a process's output.
serve::ServeRoundOptions ServeOptions(const spec::Workload& w, bool parity);

// A timed round as a sample: wall_s is the round's median latency (so speed-up and win rate
// read latency), CPU and peak RSS are the server's own.
model::Sample ServeSample(const serve::ServeRoundResult& round);

// What parity keeps of a parity round's answers (ServeOptions(w, true)): each body's digest,
// size, and bytes when small. Throws std::runtime_error naming the request ("request 1: GET /b:
// output is not valid JSON ...") when a body does not parse as the normaliser expects.
std::vector<KeptOutput> KeptBodies(const serve::ServeRequestSpec& requests, serve::ServeRoundResult& round);

// The first request whose normalised bodies differ, with the difference; nullopt when all agree.
// Where both bodies were kept (at most 8 MiB each), the difference is shown as for outputs;
// past that, their sizes.
std::optional<std::string> FirstBodyDifference(const spec::Workload& w, const serve::ServeRequestSpec& requests,
                                               const std::vector<KeptOutput>& baseline,
                                               const std::vector<KeptOutput>& other, const std::string& baseline_name,
                                               const std::string& other_name);

}  // namespace pe::run
