// Worker workloads (docs/workers.md): a benchmark each contender's worker runs in batches, and
// the checks a spec with them needs across contenders and [run].
#include <fmt/format.h>

#include <algorithm>

#include "engine/spec/parser.h"

namespace pe::spec::internal {

namespace {

// The protocol's name grammar (engine/worker/protocol.h): 1 to 128 bytes of A-Z a-z 0-9 _ . : / + -.
bool ValidBenchmarkName(const std::string& name) {
  return !name.empty() && name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_.:/+-").find(c) != std::string_view::npos;
  });
}

}  // namespace

void Parser::ParseWorker(const toml::table& t, Workload& w) const {
  if (auto kind = String(t, "kind")) w.worker = *kind == "worker";
  if (!w.worker) {
    for (const char* key : {"benchmark", "worker_group"}) {
      if (t.get(key))
        Fail(Pos(*t.get(key)), fmt::format("'{}' applies to a worker workload: add kind = \"worker\"", key));
    }
    return;
  }
  if (auto group = String(t, "worker_group")) {
    if (!ValidBenchmarkName(*group)) {
      Fail(Pos(*t.get("worker_group")),
           fmt::format("worker_group '{}' is not a name: 1 to 128 of A-Z a-z 0-9 _ . : / + -", *group));
    }
    w.worker_group = *group;
  }
  // A worker is asked for a benchmark by name: nothing is run with args, written to an output or
  // made from a fixture per workload, so those keys would be silently ignored.
  for (const char* key : {"args", "output", "parity", "normalise", "sort_lists", "prepare", "cleanup"}) {
    if (const toml::node* node = t.get(key)) {
      Fail(Pos(*node), fmt::format("'{}' does not apply to a worker workload: its worker is asked for benchmark "
                                   "'{}' by name and answers with a digest for parity (docs/workers.md)",
                                   key, String(t, "benchmark").value_or(w.name)));
    }
  }
  w.benchmark = w.name;
  if (auto benchmark = String(t, "benchmark")) {
    w.benchmark_pos = Pos(*t.get("benchmark"));
    // A sweep's point names its benchmark: "eval/threads={threads}" is checked once expanded.
    if (benchmark->find('{') != std::string::npos) {
      w.benchmark = *benchmark;
      return;
    }
    if (!ValidBenchmarkName(*benchmark)) {
      Fail(Pos(*t.get("benchmark")),
           fmt::format("benchmark '{}' is not a name a worker can offer: 1 to 128 of A-Z a-z 0-9 _ . : / + -",
                       *benchmark));
    }
    w.benchmark = *benchmark;
  }
  w.normaliser = Normaliser::kNone;  // digests are compared instead (docs/workers.md, "Parity")
}

void Parser::CheckWorkerSweep(const Workload& w, const std::vector<Axis>& axes,
                              const std::vector<std::string>& axis_names) const {
  if (!w.worker) return;
  CheckPlaceholders({{w.benchmark, w.benchmark_pos}}, &w, axis_names);
  for (const Axis& a : axes) {
    if (!a.env.empty()) {
      Fail(a.pos, fmt::format("axis '{}' sets an environment per point, and worker workload '{}' is run by one "
                              "worker per contender and round, started before any point: declare each "
                              "environment as a contender of its own (docs/workers.md)",
                              a.name, w.name));
    }
  }
}

void Parser::CheckWorkerBenchmark(const Workload& point) const {
  if (!point.worker || ValidBenchmarkName(point.benchmark)) return;
  Fail(point.benchmark_pos, fmt::format("benchmark '{}' of {} is not a name a worker can offer: 1 to 128 of A-Z a-z "
                                        "0-9 _ . : / + -",
                                        point.benchmark, point.name));
}

void Parser::CheckWorkers(Spec& spec) const {
  const auto worker =
      std::find_if(spec.workloads.begin(), spec.workloads.end(), [](const Workload& w) { return w.worker; });
  const auto process = std::find_if(spec.workloads.begin(), spec.workloads.end(),
                                    [](const Workload& w) { return !w.worker && !w.startup; });
  for (const Contender& c : spec.contenders) {
    if (worker != spec.workloads.end() && c.worker.empty()) {
      Fail(c.pos, fmt::format("contender '{}' declares no 'worker', the command that starts it as a worker, and "
                              "workload '{}' is a worker benchmark (docs/workers.md)",
                              c.name, worker->name));
    }
    if (process != spec.workloads.end() && !c.argv_declared) {
      Fail(c.pos, fmt::format("contender '{}' declares no 'argv' (only 'worker'), and workload '{}' runs it as a "
                              "process: add argv",
                              c.name, process->name));
    }
  }
  if (worker == spec.workloads.end()) {
    const toml::table* run = TableAt(root_, "run");
    for (const char* key : {"batch_time", "batches", "randomize_addresses", "pin_workers"}) {
      if (const toml::node* node = run ? run->get(key) : nullptr) {
        Fail(Pos(*node), fmt::format("'{}' applies to worker workloads, and the spec declares none", key));
      }
    }
    return;
  }
  if (spec.settings.order == "duet") {
    Fail(spec.order_pos, fmt::format("order = \"duet\" runs whole processes side by side; worker workload '{}' "
                                     "runs batches in alternation: use \"alternate\" or \"random\"",
                                     worker->name));
  }
  if (!spec.settings.batch_time_s) spec.settings.batch_time_s = limits::kDefaultBatchTimeS;
  if (!spec.settings.batches) spec.settings.batches = limits::kDefaultBatches;
  if (!spec.settings.randomize_addresses) spec.settings.randomize_addresses = true;
  if (!spec.settings.pin_workers) spec.settings.pin_workers = false;
}

}  // namespace pe::spec::internal
