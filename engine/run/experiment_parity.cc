// Parity before timing: each contender runs each workload once and its normalised output
// (or, for a server, each response body) must match the baseline's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "engine/run/experiment_impl.h"
#include "engine/run/normalise.h"
#include "engine/run/output_digest.h"
#include "engine/run/serve_workload.h"
#include "engine/runner/interrupt.h"

namespace pe::run::internal {

std::optional<serve::ServeRoundResult> Experiment::ExecuteServe(const spec::Contender& c, const spec::Workload& w, bool parity) {
  const Paths paths = PathsFor(c, w);
  const ServeOverrides overrides{options_.serve_requests, options_.serve_concurrency};
  serve::ServeRoundResult round = serve::RunServeRound(
      [&](int port) { return BuildCommand(c, w, paths, port); }, ServeRequests(w, overrides, parity),
      ServeOptions(w, parity));
  if (progress_) progress_->Step(w.name);
  if (interrupt::Interrupted()) {
    Interrupted();
    return std::nullopt;
  }
  if (round.ok) {
    if (!CheckFixtureUntouched(c, w)) return std::nullopt;
    return round;
  }
  ResultFor(w).failures.push_back({round.failure.rfind("cannot start", 0) == 0 ? Failure::Kind::kSpawn
                                                                               : Failure::Kind::kExit,
                                   w.name, c.name, fmt::format("(server) {}", round.failure), round.detail});
  return std::nullopt;
}

bool Experiment::CheckServeParity(const spec::Workload& w) {
  std::vector<std::string> baseline_bodies;
  const serve::ServeRequestSpec requests = ServeRequests(w, {}, true);
  for (const spec::Contender* c : ParityOrder()) {
    auto round = ExecuteServe(*c, w, true);
    if (!round) return false;
    if (c->name == spec_.baseline) {
      baseline_bodies = std::move(round->bodies);
      continue;
    }
    try {
      if (auto diff = FirstBodyDifference(w, requests, baseline_bodies, round->bodies, spec_.baseline, c->name)) {
        ResultFor(w).failures.push_back(
            {Failure::Kind::kParity, w.name, c->name,
             fmt::format("answers differ from {}'s (parity: {}); no timing is reported over different work",
                         spec_.baseline, spec::NormaliserName(w.normaliser)),
             *diff});
        return false;
      }
    } catch (const std::exception& e) {
      ResultFor(w).failures.push_back({Failure::Kind::kParity, w.name, c->name, e.what(), ""});
      return false;
    }
  }
  return true;
}

bool Experiment::CheckParity() {
  for (const spec::Workload* w : workloads_) {
    if (w->serve) {
      if (!CheckServeParity(*w)) return false;
      continue;
    }
    // Outputs are compared as digests of streams (output_digest.h); the baseline's file is
    // copied aside so a difference can still be shown after other contenders ran.
    const fs::path baseline_copy = scratch_ / ".parity-baseline-output";
    OutputDigest baseline_digest;
    for (const spec::Contender* c : ParityOrder()) {
      Outcome outcome;
      Paths paths;
      if (!Execute(*c, *w, &outcome, &paths)) return false;
      if (w->startup) continue;  // versions differ by design: startup output is not compared
      fs::path file;
      OutputDigest digest;
      try {
        file = OutputFile(*w, paths);
        digest = DigestOutput(file, w->normaliser, w->sort_lists);
        if (!paths.output.empty()) outputs_written_[paths.output] = StampOfFile(paths.output);
        if (c->name == spec_.baseline) fs::copy_file(file, baseline_copy, fs::copy_options::overwrite_existing);
      } catch (const std::exception& e) {
        ResultFor(*w).failures.push_back({Failure::Kind::kParity, w->name, c->name, e.what(), Tail(paths.stderr_path)});
        return false;
      }
      if (c->name == spec_.baseline) {
        baseline_digest = digest;
        continue;
      }
      if (digest != baseline_digest) {
        std::string diff;
        try {
          diff = DescribeDifference(baseline_copy, file, w->normaliser, w->sort_lists, spec_.baseline, c->name);
        } catch (const std::exception& e) {
          diff = e.what();
        }
        ResultFor(*w).failures.push_back(
            {Failure::Kind::kParity, w->name, c->name,
             fmt::format("output differs from {}'s (parity: {}); no timing is reported over different work",
                         spec_.baseline, spec::NormaliserName(w->normaliser)),
             diff});
        return false;
      }
    }
  }
  return true;
}

std::vector<const spec::Contender*> Experiment::ParityOrder() const {
  std::vector<const spec::Contender*> order = {spec_.FindContender(spec_.baseline)};
  for (const auto& c : spec_.contenders) {
    if (c.name != spec_.baseline) order.push_back(&c);
  }
  return order;
}

}  // namespace pe::run::internal
