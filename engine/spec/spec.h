// The experiment a spec file declares, checked and resolved. docs/spec.md documents every key.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/limits.h"
#include "engine/model/result.h"
#include "engine/spec/spec_error.h"
#include "generators/generator.h"

namespace pe::spec {

// Ceilings of the spec's numeric keys (docs/spec.md lists them). They keep every value inside
// the int it is stored in and inside what one machine can do in a run: a typo of a few digits
// is a clear error, not a wrapped count or a run that eats the machine's memory.
namespace limits {
// The run's settings (engine/model/limits.h): the results reader holds a file to them too.
using model::limits::kMaxBootstrapResamples;
using model::limits::kMaxRounds;
using model::limits::kMaxScale;
using model::limits::kMaxTimeoutS;
using model::limits::kMaxWarmupRounds;
using model::limits::kMinBootstrapResamples;
inline constexpr int kMaxRssRuns = 1000;
inline constexpr int kMaxRequestCount = 10000000;
inline constexpr int kMaxConcurrency = 1024;
inline constexpr int kMaxThreads = 4096;
inline constexpr std::size_t kMaxSweepPoints = 1000;
inline constexpr double kDefaultBatchTimeS = 0.01;
inline constexpr double kMaxBatchTimeS = 60;  // [run] batch_time: one measured batch of a worker benchmark
// [run] batches: measured batches per contender, worker benchmark and round (docs/workers.md).
inline constexpr int kDefaultBatches = 5;
inline constexpr int kMaxBatches = 1000;
}  // namespace limits

// A string from the spec with the position it came from, so later checks can point at it.
struct Located {
  std::string value;
  SourcePos pos;
};

// `prepare` and `cleanup`: commands run before and after each execution of a contender on a
// workload (hyperfine's --prepare and --conclude), outside its timed window, each an argv in its
// own process group (a shell only as ["sh", "-c", "..."]). engine/run/hooks.cc runs them.
struct Hooks {
  std::vector<Located> prepare;  // empty: none
  std::vector<Located> cleanup;
};

struct Contender {
  std::string name;
  std::string description;
  std::vector<Located> argv;  // program and leading arguments
  bool argv_declared = true;  // false: a worker alone, argv copied from `worker`
  // The argv that starts it as a worker (docs/workers.md); empty: it runs no worker workloads.
  std::vector<Located> worker;
  std::vector<Located> startup_argv;  // default: the program with --version
  std::map<std::string, std::string> env;
  std::filesystem::path workdir;  // empty: the engine's working directory
  SourcePos pos;
  // Built from git: the revision, the repository (default: the spec's own) and the build
  // argv run in the revision's worktree; argv paths are then relative to that worktree.
  std::string git;
  SourcePos git_pos;
  std::filesystem::path repo;
  std::vector<std::string> build;
  int threads = 1;  // the threads it runs, as the spec declares them (order = "duet" needs 1)
  Hooks hooks;      // around each of its executions, on every workload (inside the workload's own)
  // isolated = true: its parity execution may map only its own build's shared objects
  // (engine/run/shared_objects.h). own_objects: the folders that build is in (relative to its
  // worktree when built from git, else to the spec's folder); default: its git worktree.
  bool isolated = false;
  std::vector<Located> own_objects;
  // Folders its sandbox lets it (and its hooks and normalisers) write besides its execution's own
  // directory (docs/threat-model.md), absolute (relative ones are the spec's folder's).
  std::vector<std::filesystem::path> writable;
};

// kNone: outputs are not compared at all (tools whose outputs differ by nature, e.g. two
// compressors); the report says loudly that only time was compared.
enum class Normaliser { kExact, kSortedLines, kJson, kJsonMap, kNone };

struct Fixture {
  enum class Kind { kNone, kDirectory, kGenerator };
  Kind kind = Kind::kNone;
  std::filesystem::path directory;  // kDirectory: resolved against the spec's folder
  std::string generator;            // kGenerator: a name in the generator registry
  gen::Params params;
  std::map<std::string, SourcePos> param_pos;
  SourcePos pos;
};

// What one thresholds table sets ([thresholds] or a workload's own); a key it leaves out comes
// from [thresholds], then the defaults (EffectiveThresholds).
struct ThresholdOverrides {
  // Only the bars are read from here, each through its row of model::kThresholdRows.
  model::Thresholds bars;
  std::optional<int> rss_runs;
  std::optional<double> confidence;
  // [thresholds.counters] NAME = max ratio, for counters the spec declares (docs/counters.md).
  std::map<std::string, double> counter_bars;
  std::map<std::string, SourcePos> counter_bar_pos;  // where each was set, for a name not declared
};

// [counters.NAME]: a figure each execution of a process workload reports itself through the
// file named by $PERFENGINE_COUNTERS (docs/counters.md).
struct CounterDecl {
  std::string name;
  std::string unit;
  bool exact = false;
  SourcePos pos;
};

struct Workload {
  std::string name;  // a sweep point's name is "sweep[axis=value,...]"
  std::string description;
  std::vector<Located> args;      // appended to each contender's argv, placeholders filled
  std::string output = "stdout";  // "stdout" or a path template such as "{out}"
  SourcePos output_pos;
  Normaliser normaliser = Normaliser::kExact;
  // `normalise`: a command run on each output before it is compared (e.g. a decompressor);
  // its stdout is what `parity` compares. {output} is the output file. Empty: none.
  std::vector<Located> normalise;
  bool gate = true;
  bool startup = false;  // the built-in startup workload
  std::optional<double> timeout_s;
  Fixture fixture;
  ThresholdOverrides thresholds;
  SourcePos pos;
  double elements = 0;  // elements one run processes (for throughput); 0: undeclared
  std::string unit;     // what an element is: "B" (bytes, MB/s) or a name (K<name>/s); "": elem
  // Sweep points: the axis values of this point, which also fill {axis} placeholders.
  std::string sweep;
  std::vector<std::pair<std::string, std::string>> point;
  std::map<std::string, std::string> env;  // this point's environment (e.g. LD_PRELOAD)
  double scale_factor = 1;                 // a `scale` axis multiplies the run's scale at this point
  bool sort_lists = false;                 // json normalisers: arrays compared as sorted
  // kind = "serve": the contender is an HTTP server started with args (which pass {port}).
  bool serve = false;
  // kind = "worker": `benchmark` run in batches by each contender's worker (docs/workers.md).
  bool worker = false;
  std::string benchmark;  // a sweep point's has its axes' values filled in
  SourcePos benchmark_pos;
  // kind = "worker": the benchmarks of one group share a round's worker, and each group gets
  // workers of its own, one after another ("" is a group too): what one group's benchmarks
  // leave in a warm heap cannot move another's (docs/workers.md, "Worker groups").
  std::string worker_group;
  struct Serve {
    std::string health = "/health";
    double ready_timeout_s = 30;
    std::vector<std::string> requests;  // request targets, cycled through
    std::string method = "GET";
    std::string body;
    int request_count = 0;  // 0: ten passes over `requests`
    int concurrency = 1;
    double request_timeout_s = 10;
  } serve_options;
  Hooks hooks;  // around each execution of every contender on it
};

// A sweep as declared: its axes and the gates that read across its points.
struct Sweep {
  std::string name;
  std::vector<std::string> axes;  // in the order the spec declares them
  std::optional<double> max_cost_exponent;
  std::optional<double> min_scaling_efficiency;
  int efficiency_threads = 0;
  SourcePos pos;
};

struct Spec {
  std::filesystem::path path;
  std::string digest;  // SHA-256 of the file's bytes
  model::Settings settings;
  std::string baseline;
  std::string candidate;
  std::vector<Contender> contenders;  // spec order
  std::vector<Workload> workloads;    // the startup workload first, then spec order
  ThresholdOverrides thresholds;      // [thresholds]
  // [run] measure: deterministic counts taken once per contender and workload.
  bool measure_instructions = false;
  bool measure_allocations = false;
  std::vector<Sweep> sweeps;
  SourcePos order_pos;                // [run] order, where errors about it point (order = "duet": run/duet_round.h)
  std::vector<CounterDecl> counters;  // [counters.NAME], in name order (as toml++ iterates a table)

  const Contender* FindContender(std::string_view name) const;
  const Workload* FindWorkload(std::string_view name) const;
  std::vector<std::string> ContenderNames() const;
  std::vector<std::string> WorkloadNames() const;
};

// What a spec is read for. kRun (run, validate, list, ...) needs two contenders or more;
// kFixtures (`perfengine generate`) only makes fixtures, so a spec of workloads alone will do
// (contenders, when it has them, are still checked).
enum class SpecUse { kRun, kFixtures };

// Parses and checks a spec. Throws SpecError (with file:line:column) on any problem.
Spec ParseSpecFile(const std::filesystem::path& path, SpecUse use = SpecUse::kRun);
Spec ParseSpecText(std::string_view text, const std::filesystem::path& path, SpecUse use = SpecUse::kRun);

// The placeholders args and output templates may use.
const std::vector<std::string>& PlaceholderNames();

// Effective thresholds for a workload: [thresholds] merged with the workload's overrides, at
// the per-check confidence of the spec's family (family.h) or the per_check_confidence override.
model::Thresholds EffectiveThresholds(const Spec& spec, const Workload& workload);
// The same bars, the confidence left at its default (what the family is counted from).
model::Thresholds EffectiveBars(const Spec& spec, const Workload& workload);

// The counters a workload's executions report, each with its bar ([thresholds.counters] merged
// with the workload's own); none for the startup workload and serve workloads.
std::vector<model::Counter> EffectiveCounters(const Spec& spec, const Workload& workload);

std::string_view NormaliserName(Normaliser n);

}  // namespace pe::spec
