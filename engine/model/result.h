// The result model: everything a run measured and decided, as plain data.
// Reporters, the gate, `explain` and `compare` read only this; the JSON results file
// is this model written out (engine/model/json.h), so it can be read back exactly.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pe::model {

// Exit codes, documented in docs/exit-codes.md.
enum class ExitCode : int {
  kPass = 0,             // every threshold met
  kThresholdMissed = 1,  // the run was sound and a threshold was missed
  kRunFailed = 2,        // bad spec or input, crash, timeout, parity mismatch
  kUnresolved = 3,       // sound, nothing missed, but a claim could not be shown either way
  kInterrupted = 130,    // SIGINT or SIGTERM
};

// A server's round: latencies over its requests and how long it took to become healthy.
struct ServeFigures {
  int requests = 0;
  double p50_s = 0;
  double p90_s = 0;
  double p99_s = 0;
  double max_s = 0;
  double throughput_rps = 0;
  double time_to_ready_s = 0;
};

// A worker benchmark's batch (docs/workers.md): its Sample's wall_s and user_s are per
// iteration (user_s the worker's process CPU time, sys_s 0); these are the rest.
struct WorkerFigures {
  std::int64_t iterations = 0;  // in the measured batch
  double thread_cpu_s = 0;      // per iteration: the CPU time of the thread that ran the loop
  // The round's measured batches of this contender; the sample is the one with the least CPU
  // time per iteration ([run] batches). 1 in results files from before batches.
  int batches = 1;
  // log(slowest / fastest) of the warm ones among those batches (all but the first, cold one),
  // CPU time per iteration: how much one process's batches of this benchmark differ within a
  // round (calibrate's "within a process"). 0 with fewer than 3 batches.
  double batch_range = 0;
};

// A worker workload's benchmark (docs/workers.md): what each worker was asked to run, and how
// many iterations each measured batch ran, the same for every contender (chosen by the
// calibration pass so a batch lasts about [run] batch_time).
struct WorkerBenchmark {
  std::string benchmark;
  std::int64_t iterations = 0;
  // One iteration's cost at calibration (CPU time, at least a quarter of wall), the slowest
  // contender's.
  double iteration_s = 0;
  std::string digest;  // of its result, as every contender's worker answered in parity
};

// A figure one execution reported itself through the counters file (docs/counters.md).
struct CounterValue {
  std::string name;
  double value = 0;
};

// One execution of one contender on one workload, as the OS accounted for it.
struct Sample {
  std::string contender;
  int round = 0;          // index over all rounds, warm-ups first
  bool warmup = false;    // warm-up samples are kept in the file but never analysed
  bool rss_only = false;  // an extra run for peak RSS only (thresholds.rss_runs); never timed
  int position = 0;       // 0 when this contender went first in its round
  double wall_s = 0;      // monotonic clock, spawn to reap
  double user_s = 0;      // from wait4() on this child
  double sys_s = 0;
  std::int64_t max_rss_kib = 0;  // ru_maxrss of this child
  // Serve workloads: wall_s is the round's median request latency; user, sys and RSS are the
  // server's; these are the rest of the round's figures.
  std::optional<ServeFigures> serve;
  // Worker workloads: wall_s and user_s are per iteration of the batch; counters too.
  std::optional<WorkerFigures> worker;
  std::vector<CounterValue> counters;  // what it reported, one per declared counter (docs/counters.md)
};

// A failure is data: the gate turns any of these into exit 2.
struct Failure {
  enum class Kind {
    kSpec,         // the spec or a command-line override is wrong
    kFixture,      // a generator or fixture directory failed
    kSpawn,        // the program could not be started
    kExit,         // non-zero exit status
    kSignal,       // killed by a signal
    kTimeout,      // exceeded the per-command timeout; its process group was killed
    kParity,       // contenders disagreed on the normalised output
    kBuild,        // a contender built from git failed to build
    kInterrupted,  // the user interrupted the run
    kCounters,     // a contender's counters file was missing or held a bad line
    kIsolation,    // an isolated contender mapped another build's shared object, or one twice
  };
  Kind kind = Kind::kExit;
  std::string workload;   // empty when not tied to one workload
  std::string contender;  // empty when not tied to one contender
  std::string message;    // one line: what happened
  std::string detail;     // stderr tail, or the first difference
};

// Thresholds in force for one workload (spec [thresholds] merged with its overrides).
struct Thresholds {
  std::optional<double> min_speedup;        // baseline median / candidate median
  std::optional<double> min_win_rate;       // fraction of paired rounds the candidate won
  std::optional<double> min_logic_speedup;  // the same on startup-adjusted medians
  std::optional<double> max_rss_ratio;      // candidate peak RSS / baseline peak RSS
  int rss_runs = 0;                         // extra runs measuring RSS; 0 uses the timed rounds
  // Interval thresholds (docs/statistics.md).
  std::optional<double> min_speedup_ci;          // the bootstrap interval's lower end must clear this
  std::optional<double> max_slowdown;            // fail only when the whole paired-ratio interval lies above
  double confidence = 0.95;                      // level of the intervals these thresholds read
  std::optional<double> max_instructions_ratio;  // candidate / baseline instruction count
  std::optional<double> max_allocations_ratio;   // candidate / baseline allocation calls
  // candidate / baseline instructions in the contenders' own code (docs/counters.md, "Own code")
  std::optional<double> max_own_instructions_ratio;
  std::optional<double> max_p99_ratio;  // serve: candidate / baseline median p99 latency
};

// A confidence interval around an estimate.
struct Interval {
  double estimate = 0;
  double low = 0;
  double high = 0;
  double level = 0.95;
  std::string method;  // e.g. "bootstrap BCa", "Hodges-Lehmann (Wilcoxon)"
};

// Per contender, over the measured (non-warm-up) samples of one workload.
struct ContenderSummary {
  std::string contender;
  int n = 0;
  double median_wall_s = 0;
  double median_user_s = 0;
  double median_sys_s = 0;
  double min_wall_s = 0;
  double max_wall_s = 0;
  std::int64_t median_max_rss_kib = 0;
  double median_cpu_s = 0;  // user + system, per run
  // Deterministic counts, measured once per contender and workload where the spec asks.
  std::optional<std::uint64_t> instructions;
  std::string instructions_source;  // "perf_event_open" or "valgrind callgrind"
  // Of `instructions`, those in the contender's own objects (its `own_objects`, else its git
  // worktree): callgrind's self cost of their functions. Not the runtime, libc or the kernel's
  // loader, whose counts move with where a process's heap and libraries lie.
  std::optional<std::uint64_t> own_instructions;
  std::optional<std::uint64_t> allocation_calls;
  std::optional<std::uint64_t> allocated_bytes;
  std::string measure_note;           // why a count is missing ("not measurable: statically linked")
  std::optional<ServeFigures> serve;  // serve workloads: the median of each figure over rounds
};

// A counter the spec declares ([counters.NAME], docs/counters.md) with the bar in force on one
// workload ([thresholds.counters] merged with the workload's own).
struct Counter {
  std::string name;
  std::string unit;
  bool exact = false;               // exact: a point ratio of medians; noisy: paired rounds' sequence
  std::optional<double> max_ratio;  // candidate / baseline must not exceed it
};

// Candidate against baseline on one counter of one workload.
struct CounterComparison {
  std::string name;
  double baseline = 0;  // median over measured rounds
  double candidate = 0;
  std::optional<double> ratio;       // exact: candidate / baseline medians; absent when not defined
  std::optional<Interval> ratio_cs;  // noisy: median per-round candidate / baseline ratio
  std::optional<int> rounds_needed;  // noisy: rounds that would resolve its check, if open
  std::string note;                  // why a ratio is missing
  std::optional<double> noise;       // noisy: 1.4826 x MAD of the per-round log-ratios (stats/detectable.h)
};

// One contender against another on one workload: "baseline" and "candidate" are the pair's
// roles here (a third contender is the candidate of its own comparison with the baseline).
struct Comparison {
  std::string baseline;   // the contender compared against
  std::string candidate;  // the contender compared
  double speedup = 0;     // baseline median wall / candidate median wall
  int rounds = 0;         // paired rounds
  int wins = 0;           // rounds in which the candidate was faster
  double win_rate = 0;
  // Median minus that contender's own startup median. Empty when the subtraction
  // leaves too little to mean anything; logic_note then says why.
  std::optional<double> baseline_logic_s;
  std::optional<double> candidate_logic_s;
  std::optional<double> logic_speedup;
  std::string logic_note;
  std::optional<double> rss_ratio;  // candidate / baseline median peak RSS
  // Statistics in depth (stats/), filled when the rounds allow them.
  std::optional<double> sign_test_p;             // exact two-sided sign test of the win count
  std::optional<double> wilcoxon_p;              // Wilcoxon signed-rank on paired log-ratios
  std::optional<Interval> speedup_ci;            // bootstrap interval of the median ratio
  std::optional<Interval> logic_speedup_ci;      // bootstrap, startup runs resampled too
  std::optional<Interval> paired_ratio_ci;       // candidate/baseline, Hodges-Lehmann interval
  std::optional<int> rounds_to_resolve;          // rounds that would resolve the observed difference
  std::vector<std::string> notes;                // statistical caveats: warnings, never failures
  std::optional<double> cpu_ratio;               // candidate / baseline median CPU time
  std::optional<Interval> cpu_ratio_ci;          // Hodges-Lehmann on paired CPU-time log-ratios
  std::optional<double> instructions_ratio;      // candidate / baseline
  std::optional<double> allocations_ratio;       // candidate / baseline allocation calls
  std::optional<double> own_instructions_ratio;  // candidate / baseline instructions in own code
  std::optional<double> p99_ratio;               // serve: candidate / baseline median p99 latency
  // Confidence sequences (docs/statistics.md): valid at every round at once, so rounds may be
  // added until a check resolves. The interval checks read these.
  std::optional<Interval> speedup_cs;        // median per-round baseline / candidate wall time
  std::optional<Interval> cpu_ratio_cs;      // median per-round candidate / baseline CPU time
  std::optional<Interval> win_rate_cs;       // probability that the candidate wins a round
  std::optional<Interval> logic_speedup_cs;  // median per-round startup-adjusted ratio
  // Rounds that would resolve each sequential check still open, at the share of rounds seen
  // on each side of its bar so far; absent when resolved or when no number would do.
  std::optional<int> speedup_rounds_needed;
  std::optional<int> cpu_rounds_needed;
  std::optional<int> logic_rounds_needed;
  std::optional<int> win_rounds_needed;
  // Round-to-round noise of each sequence's per-round log-ratios (1.4826 x MAD), from which a
  // check's "would have shown X% with 80% power" is computed (stats/detectable.h).
  std::optional<double> speedup_noise;
  std::optional<double> cpu_noise;
  std::optional<double> logic_noise;
  std::vector<CounterComparison> counters;  // one per declared counter, in name order
  // [run] futility (docs/statistics.md, "Stopping for futility"): set when the CPU-time check's
  // rounds stopped early because its final look could not show max_slowdown missed: that look's
  // chance to, at the optimistic centre (stats/futility.h), below stats::kFutilityChance.
  std::optional<double> cpu_futility_chance;
};

// One function's share of the cost in both contenders ("where the extra time went").
struct FunctionShift {
  std::string function;
  std::uint64_t baseline_cost = 0;  // what `basis` counts: self or inclusive instructions (Ir), or calls
  std::uint64_t candidate_cost = 0;
  double baseline_share = 0;  // of that contender's total (instructions only)
  double candidate_share = 0;
  // "self": instructions in the function itself (the detail table); "inclusive": an own function
  // of the contender named by the call graph, callees included; "calls": the contender's own
  // count ($PERFENGINE_PROFILE, docs/counters.md).
  std::string basis = "self";
  std::string object;  // the program or shared object it is in ("parser.so"), when known
  std::string detail;  // inclusive: the callees the growth came through ("of which rb_str_dup ...")
};

// One threshold checked on one workload.
struct Check {
  // pass and fail are shown at the check's confidence; unresolved is neither yet.
  enum class State { kPass, kFail, kUnresolved };
  // Who must show what: a speed-up claim must be shown to pass (unresolved fails); a
  // no-regression check fails only when the regression is shown (unresolved passes); a
  // point check compares one figure (a count, a peak) with its bar.
  enum class Burden { kPoint, kShowMet, kShowMissed };
  // How measured and bar print: "0.94x", "62%", "1.52".
  enum class Unit { kRatio, kRate, kNumber };
  std::string workload;
  std::string threshold;  // the spec key, e.g. "min_speedup"
  std::string label;      // how the line names it, e.g. "median speedup"
  double measured = 0;
  double bar = 0;
  bool higher_is_better = true;
  bool passed = false;
  bool skipped = false;  // the figure could not be computed; note says why
  std::string note;
  State state = State::kPass;
  Burden burden = Burden::kPoint;
  std::optional<Interval> interval;  // the confidence sequence a sequential check read
  int rounds = 0;                    // paired rounds behind it
  std::optional<int> rounds_needed;  // unresolved: rounds that would resolve it, if any would
  Unit unit = Unit::kRatio;          // set from the threshold by gate::MakeCheck
  // The contender this check judges against the baseline when it is not the run's candidate
  // (a third contender, docs/spec.md "More than two contenders"); "" for the run's candidate.
  std::string contender;
  // What it could have seen (stats/detectable.h), in the check's own figure: a median check (a
  // no-regression check that passed or stayed unresolved, an unresolved speed-up claim) the
  // ratio its sequence would have shown beyond the bar with 80% power in these rounds, at this
  // round-to-round noise; an unresolved min_win_rate the speed-up that would have shown its win
  // rate; a sweep check the exponent or efficiency its interval would have shown beyond the bar
  // (docs/statistics.md, "Power in every report").
  std::optional<double> detectable;
  // The round-to-round noise `detectable` was computed from (1.4826 x MAD of the per-round
  // log-ratios the check reads); set with it, and alone when no shift of any size could have
  // been shown in these rounds (a unanimous series cannot resolve yet).
  std::optional<double> noise;
  // Unresolved and stopped for futility ([run] futility, Comparison::cpu_futility_chance): the
  // run adds no round for it; it passes as any unresolved no-regression check does.
  bool futile = false;
};

// One axis of a sweep at one value, e.g. threads = 4.
struct AxisValue {
  std::string axis;
  std::string value;
};

struct WorkloadResult {
  std::string name;
  std::string description;
  bool gate = true;      // false: measured and reported, never gated
  bool startup = false;  // the built-in startup workload
  Thresholds thresholds;
  std::vector<Sample> samples;              // every sample, warm-ups included, in run order
  std::vector<ContenderSummary> summaries;  // one per contender, spec order
  std::optional<Comparison> comparison;     // the run's candidate against its baseline; absent when the workload failed
  // Every other pair, keyed by its names: each further contender against the baseline, in spec
  // order, then with [run] compare = "all-pairs" each pair of non-baseline contenders.
  std::vector<Comparison> other_comparisons;
  std::vector<Failure> failures;
  // Sweeps: each point of a sweep's matrix is a workload of its own.
  std::string sweep;             // the sweep's name, "" for a plain workload
  std::vector<AxisValue> point;  // this point's axis values, in axis order
  double elements = 0;           // elements one run processes, for throughput; 0: undeclared
  // On a regression: the functions whose cost grew most, from profiles of both contenders.
  std::vector<FunctionShift> profile;
  std::string profile_note;  // how the profile was taken, or why it is missing
  // kServe: a server measured over HTTP requests; kProcess: a command run to completion;
  // kWorker: a benchmark a warm worker process runs in batches (docs/workers.md).
  enum class Kind { kProcess, kServe, kWorker };
  Kind kind = Kind::kProcess;
  // kWorker: the benchmark the worker was asked for and its batch size.
  std::optional<WorkerBenchmark> worker;
  // How outputs were compared: exact, sorted-lines, json, json-map, or "none" (not compared:
  // the figures compare time only, and every report says so).
  std::string parity = "exact";
  std::vector<std::string> normalise;  // the command each output went through first, if any
  std::string unit;                    // what `elements` counts: "B" (bytes) or a name; "" for elements
  std::vector<Counter> counters;       // counters its executions report (docs/counters.md)
  // What measuring it showed that is no failure but worth saying, e.g. "contender 'x': server
  // ignored SIGTERM and was killed after 5 s; every round waits that long for it".
  std::vector<std::string> notes;
};

// Figures across the points of one sweep (docs/sweeps.md).
struct ScalingFit {
  std::string contender;
  std::string axis;              // the axis fitted over, e.g. "scale"
  std::vector<AxisValue> fixed;  // the other axes' values, held fixed
  double exponent = 0;           // k in time = a + b * n^k
  double low = 0;                // interval of k
  double high = 0;
  double level = 0.95;
  std::string note;  // why the fit is absent or weak
};

struct ScalingEfficiency {
  std::string contender;
  std::vector<AxisValue> fixed;  // the other axes' values, held fixed
  int threads = 0;
  double efficiency = 0;  // throughput at n threads / (n x throughput at 1 thread)
  // The confidence sequence of the median per-round efficiency (each round's n-thread run
  // against the same round's 1-thread run), which min_scaling_efficiency reads; absent in
  // files from before it existed or with no round in common.
  std::optional<Interval> interval;
};

struct SweepResult {
  std::string name;
  std::vector<std::string> axes;
  std::vector<ScalingFit> fits;
  std::vector<ScalingEfficiency> efficiencies;
  std::optional<double> max_cost_exponent;       // gate: fitted k of the candidate must not exceed
  std::optional<double> min_scaling_efficiency;  // gate: candidate efficiency at efficiency_threads
  int efficiency_threads = 0;
};

struct ContenderInfo {
  std::string name;
  std::string description;
  std::vector<std::string> argv;
  std::vector<std::string> startup_argv;
  std::string git;                 // the revision it was built from ("" when not built from git)
  std::string commit;              // the commit that revision resolved to
  std::vector<std::string> build;  // the build argv run in that commit's worktree (git contenders)
  bool dirty = false;              // git contenders: tracked files differed from the commit after the build
};

// [run] final_look's one test (Settings::final_look).
inline constexpr char kSignedRankLook[] = "signed-rank";
// [run] futility's one rule (Settings::futility).
inline constexpr char kConditionalPowerFutility[] = "conditional-power";

struct Settings {
  int rounds = 5;
  int warmup_rounds = 1;
  double scale = 1;
  std::uint64_t seed = 0;
  double timeout_s = 0;             // 0: no timeout
  std::string order = "alternate";  // or "random"
  int bootstrap_resamples = 10000;
  double confidence = 0.95;  // [run] confidence: of the whole verdict, every check of the run at once
  int max_rounds = 0;        // > rounds: add rounds while a gated check is unresolved, up to this
  // Which pairs are compared with more than two contenders: "baseline" (each against the
  // baseline, all gated) or "all-pairs" (also each other pair, reported, not gated).
  std::string compare = "baseline";
  // Worker workloads: how long a measured batch should last (docs/workers.md, "Batch size").
  // Set when the run has worker workloads; the spec's default is 0.01.
  std::optional<double> batch_time_s;
  // Worker workloads: measured batches per contender, benchmark and round, the contenders
  // alternating; the round's figure is the batch with the least CPU time per iteration
  // (docs/workers.md, "Rounds"). Set when the run has worker workloads; the default is 5.
  std::optional<int> batches;
  // [run] final_look = "signed-rank" (docs/statistics.md, "A final look"): max_slowdown's
  // sequence runs at half its check's alpha, and at the run's last round (max_rounds, or rounds
  // without it) its interval is intersected with the Hodges-Lehmann interval at the other half.
  // Absent: the sequence alone, at the check's whole level.
  std::optional<std::string> final_look;
  // [run] futility = "conditional-power" (docs/statistics.md, "Stopping for futility"), with a
  // final look only: from round stats::kFutilityFirstRound, max_slowdown stops measuring once its
  // final look's chance to show a regression is below stats::kFutilityChance.
  std::optional<std::string> futility;
  // Worker workloads: false ([run] randomize_addresses) starts each round's workers with the
  // kernel's address-space randomization off, their layout drawn from the round's seed instead
  // (docs/workers.md, "Layout"). Set when the run has worker workloads; the default is true.
  std::optional<bool> randomize_addresses;
  // Worker workloads: true ([run] pin_workers) runs each round's workers on one CPU, the same for
  // every contender and round (the last the run may use), so a benchmark's time does not depend
  // on which CPU each process landed on (docs/workers.md, "One CPU"). Set when the run has
  // worker workloads; the default is false.
  std::optional<bool> pin_workers;
  // Family-wise confidence (docs/statistics.md): `confidence` split across the run's
  // `family_checks` checks that read an interval, each at `check_confidence`
  // (1 - (1 - confidence) / family_checks). `family_confidence` is what the checks at the levels
  // they used guarantee together: `confidence`, unless [thresholds] per_check_confidence overrides
  // some. family_checks = 0: a results file from before the split (each check at its own level).
  int family_checks = 0;
  double check_confidence = 0;
  double family_confidence = 0;
};

struct MachineInfo {
  std::string hostname;
  std::string os;   // uname sysname + release
  std::string cpu;  // model name from /proc/cpuinfo
  int cores = 0;
  std::int64_t memory_kib = 0;
};

// A share of a run split across machines (`run --shard K/N`, docs/ci.md). A shard's results
// file holds one, itself; `merge` writes one per shard it combined, each with its machine.
struct ShardInfo {
  int index = 0;  // 1-based
  int count = 0;
  std::vector<std::string> selection;  // every workload being sharded, in run order (not startup)
  std::vector<std::string> workloads;  // this shard's share of them, in run order
  MachineInfo machine;
  std::string started_at;
};

struct Verdict {
  ExitCode exit = ExitCode::kPass;
  std::vector<Check> checks;
  std::vector<std::string> lines;  // one per failing check or failure, in order
  // What a reader needs beside the verdict: checks left unresolved that count as passes
  // (a regression not shown), and each workload's statistical caveats and rounds used.
  std::vector<std::string> notes;
  // A missed threshold accepted on purpose (--accept-regression): exit 0, still reported.
  bool accepted = false;
  std::string accepted_by;  // what accepted it, e.g. "--accept-regression"
};

// How busy the machine was during one round (engine/run/machine_load.h). Empty fields could
// not be read; results files from before these existed have no rounds here at all.
struct RoundLoad {
  int round = 0;                       // as Sample::round, warm-ups included
  std::optional<double> load_1m;       // 1-minute load average at the round's end
  std::optional<double> others_share;  // CPU time used by other processes / all CPU time (0..1)
  std::optional<double> steal_share;   // CPU time the hypervisor gave to others / all CPU time
  std::optional<double> cpu_mhz;       // mean clock of the cores, where the kernel reports it
};

// Where a run's wall time went, from the engine's own steady clock around each phase
// (engine/run/experiment.cc). total_s is the whole run, from its set-up to its verdict; the
// phases need not add up to it (set-up, reports and the time between phases are in no phase).
struct PhaseTimes {
  double build_s = 0;      // contenders built from git
  double fixtures_s = 0;   // fixtures generated or found in the cache
  double parity_s = 0;     // each contender once, outputs compared
  double measuring_s = 0;  // warm-ups, rounds, peak-RSS runs, counts and profiles
  double analysis_s = 0;   // figures, intervals and the verdict
  double total_s = 0;
};

struct RunResult {
  std::string engine_version;
  std::string spec_path;
  std::string spec_digest;  // SHA-256 of the spec file's bytes
  std::string started_at;   // ISO 8601, UTC
  MachineInfo machine;
  Settings settings;
  std::string baseline;
  std::string candidate;
  std::vector<ContenderInfo> contenders;
  std::vector<WorkloadResult> workloads;  // the startup workload first
  std::vector<Failure> failures;          // failures not tied to one workload
  std::vector<SweepResult> sweeps;
  bool complete = false;  // false when interrupted or failed before the last round
  // Why the rounds stopped short of max_rounds with a check still open: a miss no round could
  // undo already fixed the exit code (engine/run/round_runner.h); "" when they did not.
  std::string rounds_stopped;
  Verdict verdict;
  std::vector<RoundLoad> load;       // one per round of the rounds loop
  std::vector<ShardInfo> shards;     // empty: one unsharded run (docs/ci.md)
  std::optional<PhaseTimes> phases;  // absent in files from before it was recorded
};

}  // namespace pe::model
