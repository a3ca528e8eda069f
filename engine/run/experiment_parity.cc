// Parity before timing: each contender runs each workload once and its normalised output
// (or, for a server, each response body) must match the baseline's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "engine/run/experiment_impl.h"
#include "engine/run/normalise.h"
#include "engine/run/output_digest.h"
#include "engine/run/serve_checkout.h"
#include "engine/run/serve_workload.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"

namespace pe::run::internal {

using model::Failure;
using runner::Command;
using runner::Outcome;

std::optional<serve::ServeRoundResult> Experiment::ExecuteServe(const spec::Contender& c, const spec::Workload& w,
                                                                bool parity) {
  const Paths paths = PathsFor(c, w);
  const ServeOverrides overrides{options_.serve_requests, options_.serve_concurrency};
  if (UsesCheckout(w)) {
    // A clone of the fixture's repository per server start (engine/run/serve_checkout.h).
    try {
      MakeCheckout(runner_, fixtures_[w.name], paths.dir / "checkout", paths.dir, w.serve_options.ready_timeout_s);
    } catch (const std::exception& e) {
      ResultFor(w).failures.push_back({Failure::Kind::kFixture, w.name, c.name, e.what(), ""});
      return std::nullopt;
    }
  }
  serve::ServeRoundResult round = serve::RunServeRound(
      runner_, [&](int port) { return BuildCommand(c, w, paths, port); }, ServeRequests(w, overrides, parity),
      ServeOptions(w, parity));
  if (progress_) progress_->Step(w.name);
  if (interrupt::Interrupted()) {
    Interrupted();
    return std::nullopt;
  }
  if (round.ok) {
    // Said once per server and workload, where the run's progress goes.
    if (!round.note.empty() && progress_ && noted_.insert({&c, &w}).second) {
      progress_->Note(fmt::format("{}: contender '{}': {}", w.name, c.name, round.note));
    }
    if (!CheckFixtureUntouched(c, w)) return std::nullopt;
    return round;
  }
  ResultFor(w).failures.push_back(
      {round.failed == serve::ServeRoundResult::Failure::kNotStarted ? Failure::Kind::kSpawn : Failure::Kind::kExit,
       w.name, c.name, fmt::format("(server) {}", round.failure), round.detail});
  return std::nullopt;
}

bool Experiment::CheckServeParity(const spec::Workload& w) {
  if (w.normaliser == spec::Normaliser::kNone) {
    // Time only: each server still answers once, so one that cannot is caught before timing.
    for (const spec::Contender* c : ParityOrder()) {
      if (!ExecuteServe(*c, w, true)) return false;
    }
    return true;
  }
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
    // The baseline's output is kept in memory (digest, and its bytes when small), never on
    // disk: everything a contender wrote is removed before the next one runs, so none can copy
    // another's answer (issue 26, M4), and parity needs scratch for one output at a time.
    std::optional<KeptOutput> baseline;
    for (const spec::Contender* c : ParityOrder()) {
      Outcome outcome;
      Paths paths;
      bool ok = Execute(*c, *w, &outcome, &paths);
      ok = ok && CompareParityOutput(*c, *w, paths, &baseline);
      RemoveParityOutputs(paths);
      if (!ok) return false;
    }
  }
  return true;
}

bool Experiment::CompareParityOutput(const spec::Contender& c, const spec::Workload& w, const Paths& paths,
                                     std::optional<KeptOutput>* baseline) {
  if (w.startup) return true;  // versions differ by design: startup output is not compared
  // parity = "none": each contender ran once (a crash still fails here), nothing is compared.
  if (w.normaliser == spec::Normaliser::kNone) return true;
  fs::path file;
  OutputDigest digest;
  try {
    file = OutputFile(w, paths);
    if (!w.normalise.empty()) {
      auto normalised = RunNormaliseCommand(c, w, paths, file);
      if (!normalised) return false;
      file = *normalised;
    }
    if (c.name == spec_.baseline) {
      *baseline = KeepOutput(file, w.normaliser, w.sort_lists);
      return true;
    }
    digest = DigestOutput(file, w.normaliser, w.sort_lists);
  } catch (const std::exception& e) {
    ResultFor(w).failures.push_back({Failure::Kind::kParity, w.name, c.name, e.what(), Tail(paths.stderr_path)});
    return false;
  }
  if (digest == (*baseline)->digest) return true;
  std::string diff;
  try {
    diff = DescribeDifference(**baseline, file, w.normaliser, w.sort_lists, spec_.baseline, c.name);
  } catch (const std::exception& e) {
    diff = e.what();
  }
  ResultFor(w).failures.push_back(
      {Failure::Kind::kParity, w.name, c.name,
       fmt::format("output differs from {}'s (parity: {}); no timing is reported over different work", spec_.baseline,
                   spec::NormaliserName(w.normaliser)),
       diff});
  return false;
}

std::optional<fs::path> Experiment::RunNormaliseCommand(const spec::Contender& c, const spec::Workload& w,
                                                        const Paths& paths, const fs::path& output) {
  auto values = Placeholders(c, w, paths);
  values["output"] = output.string();
  Command cmd;
  for (const auto& a : w.normalise) cmd.argv.push_back(spec::Expand(a.value, values));
  std::string why;
  if (auto program = spec::ResolveProgram(cmd.argv[0], SpecDir(), &why)) {
    cmd.argv[0] = fs::absolute(*program).lexically_normal().string();
  }
  cmd.stdout_path = paths.dir / "normalised";
  cmd.stderr_path = paths.dir / "normalise.stderr";
  cmd.timeout_s = w.timeout_s.value_or(settings_.timeout_s);
  const Outcome outcome = runner_.Run(cmd);
  if (outcome.status == Outcome::Status::kInterrupted || interrupt::Interrupted()) {
    Interrupted();
    return std::nullopt;
  }
  // Checked here, or the next contender to run would be blamed for what this command wrote.
  if (!CheckFixtureUntouched(c, w, fmt::format("the normalise command {}", cmd.argv[0]))) return std::nullopt;
  if (outcome.ok()) return cmd.stdout_path;
  std::string what;
  switch (outcome.status) {
    case Outcome::Status::kExited:
      what = fmt::format("exited with status {}", outcome.exit_code);
      break;
    case Outcome::Status::kSignalled:
      what = fmt::format("was killed by signal {}", outcome.signal);
      break;
    case Outcome::Status::kTimedOut:
      what = fmt::format("timed out after {} s", FormatNumber(cmd.timeout_s));
      break;
    case Outcome::Status::kSpawnFailed:
      what = fmt::format("could not be started: {}", outcome.error);
      break;
    case Outcome::Status::kInterrupted:
      break;
  }
  ResultFor(w).failures.push_back({Failure::Kind::kParity, w.name, c.name,
                                   fmt::format("output could not be normalised: {} {}", cmd.argv[0], what),
                                   Tail(cmd.stderr_path)});
  return std::nullopt;
}

std::vector<const spec::Contender*> Experiment::ParityOrder() const {
  std::vector<const spec::Contender*> order = {spec_.FindContender(spec_.baseline)};
  for (const auto& c : spec_.contenders) {
    if (c.name != spec_.baseline) order.push_back(&c);
  }
  return order;
}

}  // namespace pe::run::internal
