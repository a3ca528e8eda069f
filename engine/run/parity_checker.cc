#include "engine/run/parity_checker.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>

#include "engine/run/execution_sandbox.h"
#include "engine/run/normalise.h"
#include "engine/run/output_digest.h"
#include "engine/run/serve_workload.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"

namespace pe::run::internal {

namespace fs = std::filesystem;
using model::Failure;
using runner::Command;
using runner::Outcome;

bool ParityChecker::CheckServe(const spec::Workload& w) {
  if (w.normaliser == spec::Normaliser::kNone) {
    // Time only: each server still answers once, so one that cannot is caught before timing.
    for (const spec::Contender* c : Order()) {
      StartStep(w, *c);
      if (!ex_.ExecuteServe(*c, w, true)) return false;
    }
    return true;
  }
  // Each body was digested as it arrived (ServeOptions): what is kept of the baseline's answers
  // is their digests and, when small, their bytes; the candidate's are never held whole.
  std::vector<KeptOutput> baseline_bodies;
  const serve::ServeRequestSpec requests = ServeRequests(w, {}, true);
  for (const spec::Contender* c : Order()) {
    StartStep(w, *c);
    auto round = ex_.ExecuteServe(*c, w, true);
    if (!round) return false;
    try {
      std::vector<KeptOutput> bodies = KeptBodies(requests, *round);
      if (c->name == ex_.spec().baseline) {
        baseline_bodies = std::move(bodies);
        continue;
      }
      if (auto diff = FirstBodyDifference(w, requests, baseline_bodies, bodies, ex_.spec().baseline, c->name)) {
        ex_.ResultFor(w).failures.push_back(
            {Failure::Kind::kParity, w.name, c->name,
             fmt::format("answers differ from {}'s (parity: {}); no timing is reported over different work",
                         ex_.spec().baseline, spec::NormaliserName(w.normaliser)),
             *diff});
        return false;
      }
    } catch (const std::exception& e) {
      ex_.ResultFor(w).failures.push_back({Failure::Kind::kParity, w.name, c->name, e.what(), ""});
      return false;
    }
  }
  return true;
}

void ParityChecker::StartStep(const spec::Workload& w, const spec::Contender& c) {
  if (ex_.progress()) ex_.progress()->StartStep(fmt::format("{} ({})", w.name, c.name));
}

bool ParityChecker::Check(const std::vector<const spec::Workload*>& all) {
  // Worker workloads compare their workers' digests as their batches are calibrated
  // (worker_batches.h): one worker start serves them all.
  std::vector<const spec::Workload*> workloads;
  for (const spec::Workload* w : all) {
    if (!w->worker) workloads.push_back(w);
  }
  // Each contender once per workload, before any timing: quick unless the contenders are slow,
  // so its steps are shown as the rounds' are, without a line of its own.
  if (ex_.progress()) ex_.progress()->BeginPhase("parity", static_cast<int>(workloads.size() * Order().size()));
  const bool ok = CheckEach(workloads);
  if (ex_.progress()) ex_.progress()->EndPhase();
  return ok;
}

bool ParityChecker::CheckEach(const std::vector<const spec::Workload*>& workloads) {
  for (const spec::Workload* w : workloads) {
    if (w->serve) {
      if (!CheckServe(*w)) return false;
      continue;
    }
    // The baseline's output is kept in memory (digest, and its bytes when small), never on
    // disk: everything a contender wrote is removed before the next one runs, so none can copy
    // another's answer (issue 26, M4), and parity needs scratch for one output at a time.
    std::optional<KeptOutput> baseline;
    for (const spec::Contender* c : Order()) {
      StartStep(*w, *c);
      Outcome outcome;
      ExecutionPaths paths;
      bool ok = ex_.Execute(*c, *w, &outcome, &paths);
      // The cleanup hooks after the comparison: they may remove what the output was made from.
      if (ok) ok = CompareOutput(*c, *w, paths, &baseline) && ex_.Cleanup(*c, *w, paths);
      ex_.RemoveParityOutputs(paths);
      if (!ok) return false;
    }
  }
  return true;
}

bool ParityChecker::CompareOutput(const spec::Contender& c, const spec::Workload& w, const ExecutionPaths& paths,
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
    if (c.name == ex_.spec().baseline) {
      *baseline = KeepOutput(file, w.normaliser, w.sort_lists);
      return true;
    }
    digest = DigestOutput(file, w.normaliser, w.sort_lists);
  } catch (const std::exception& e) {
    ex_.ResultFor(w).failures.push_back({Failure::Kind::kParity, w.name, c.name, e.what(), Tail(paths.stderr_path)});
    return false;
  }
  if (digest == (*baseline)->digest) return true;
  std::string diff;
  try {
    diff = DescribeDifference(**baseline, file, w.normaliser, w.sort_lists, ex_.spec().baseline, c.name);
  } catch (const std::exception& e) {
    diff = e.what();
  }
  ex_.ResultFor(w).failures.push_back(
      {Failure::Kind::kParity, w.name, c.name,
       fmt::format("output differs from {}'s (parity: {}); no timing is reported over different work",
                   ex_.spec().baseline, spec::NormaliserName(w.normaliser)),
       diff});
  return false;
}

fs::path ParityChecker::OutputFile(const spec::Workload& w, const ExecutionPaths& paths) const {
  std::error_code ec;
  if (w.output == "stdout") {
    // Read back by path, so a contender that deleted or replaced its capture would otherwise
    // compare as empty output.
    if (!fs::is_regular_file(paths.stdout_path, ec)) {
      throw std::runtime_error(fmt::format("removed or replaced its stdout capture {} (it is not a regular file)",
                                           paths.stdout_path.string()));
    }
    return paths.stdout_path;
  }
  const fs::path& file = paths.output;
  if (!fs::exists(file, ec)) throw std::runtime_error(fmt::format("did not write its output file {}", file.string()));
  if (!fs::is_regular_file(file, ec)) {
    throw std::runtime_error(fmt::format("left something other than a regular file at its output {}", file.string()));
  }
  // Another name for the output would outlive RemoveParityOutputs, for the next contender to read.
  struct stat link = {};
  if (::lstat(file.c_str(), &link) != 0 || S_ISLNK(link.st_mode) || link.st_nlink != 1) {
    throw std::runtime_error(fmt::format(
        "left its output {} as a symbolic link or a file with other hard links; parity reads only an output no "
        "other contender can reach",
        file.string()));
  }
  // A file that was there before and is unchanged was not written by this run (a fixed path
  // the user keeps, or one the previous contender wrote and this one did not remove).
  if (paths.output_before.existed && StampOfFile(file) == paths.output_before) {
    throw std::runtime_error(
        fmt::format("did not write its output file {} (it is unchanged since before it ran)", file.string()));
  }
  return file;
}

std::optional<fs::path> ParityChecker::RunNormaliseCommand(const spec::Contender& c, const spec::Workload& w,
                                                           const ExecutionPaths& paths, const fs::path& output) {
  auto values = ex_.Placeholders(c, w, paths);
  values["output"] = output.string();
  Command cmd;
  for (const auto& a : w.normalise) cmd.argv.push_back(spec::Expand(a.value, values));
  std::string why;
  if (auto program = spec::ResolveProgram(cmd.argv[0], ex_.SpecDir(), &why)) {
    cmd.argv[0] = fs::absolute(*program).lexically_normal().string();
  }
  cmd.stdout_path = paths.dir / "normalised";
  cmd.stderr_path = paths.dir / "normalise.stderr";
  cmd.timeout_s = w.timeout_s.value_or(ex_.settings().timeout_s);
  cmd.sandbox = ex_.SandboxFor(c, w, paths, values);
  GiveTemporaryDirectory(cmd, paths.workdir);
  const Outcome outcome = ex_.runner().Run(cmd);
  if (outcome.status == Outcome::Status::kInterrupted || interrupt::Interrupted()) {
    ex_.Interrupted();
    return std::nullopt;
  }
  // Checked here, or the next contender to run would be blamed for what this command wrote.
  if (!ex_.CheckFixtureUntouched(c, w, fmt::format("the normalise command {}", cmd.argv[0]))) return std::nullopt;
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
  ex_.ResultFor(w).failures.push_back({Failure::Kind::kParity, w.name, c.name,
                                       fmt::format("output could not be normalised: {} {}", cmd.argv[0], what),
                                       Tail(cmd.stderr_path)});
  return std::nullopt;
}

std::vector<const spec::Contender*> ParityChecker::Order() const {
  std::vector<const spec::Contender*> order = {ex_.spec().FindContender(ex_.spec().baseline)};
  for (const auto& c : ex_.spec().contenders) {
    if (c.name != ex_.spec().baseline) order.push_back(&c);
  }
  return order;
}

}  // namespace pe::run::internal
