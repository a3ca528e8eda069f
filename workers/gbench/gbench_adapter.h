// perfengine-gbench-worker's parts that start no process (docs/workers.md, "google/benchmark
// suites"): a google/benchmark binary's list of benchmarks as the protocol's names, the filter
// that selects exactly one of them, and one run's figures read from the binary's JSON output.
// Pure functions over text, so tests call them without a benchmark binary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pe::gbench {

// The protocol's limits this adapter must respect (docs/workers.md, "Limits").
inline constexpr std::size_t kMaxNameBytes = 128;
inline constexpr std::size_t kMaxBenchmarks = 1000;

// One benchmark of the binary: the name the hello gives it and google/benchmark's own.
struct Benchmark {
  std::string name;         // the protocol's: "BM_tmpl_int_"
  std::string gbench_name;  // as --benchmark_list_tests prints it: "BM_tmpl<int>"
  bool operator==(const Benchmark&) const = default;
};

// The protocol's name for a google/benchmark name: each byte outside the protocol's name
// grammar (A-Z a-z 0-9 _ . : / + -) becomes '_'. "BM_tmpl<int>" -> "BM_tmpl_int_".
std::string ProtocolName(std::string_view gbench_name);

struct Listing {
  std::vector<Benchmark> benchmarks;  // in the binary's order
  std::string error;                  // why the list cannot be a hello; empty when it can
};

// The benchmarks of a `--benchmark_list_tests=true` output (one name a line; blank lines
// skipped). An error when the list is empty, longer than kMaxBenchmarks, has a name longer
// than kMaxNameBytes, or two names that map to one protocol name.
Listing MapListing(std::string_view list_output);

// The --benchmark_filter value that selects `gbench_name` alone: "^NAME$" with every
// metacharacter of a POSIX extended regular expression escaped ("BM_sum+" -> "^BM_sum\+$").
std::string ExactFilter(std::string_view gbench_name);

// One benchmark's run as google/benchmark's JSON reports it, per iteration, in nanoseconds
// (its time_unit converted). Repetitions a benchmark asks for in code are pooled: iterations
// summed, times weighted by iterations.
struct RunFigures {
  std::int64_t iterations = 0;  // as reported: every thread's iterations added
  std::int64_t threads = 1;
  double real_ns_per_iteration = 0;  // "real_time" (manual time for UseManualTime)
  double cpu_ns_per_iteration = 0;   // "cpu_time": the measuring threads' CPU time
  std::string error;                 // the benchmark's error_message, or why the JSON is not a run of it
  bool ok() const { return error.empty(); }
};
RunFigures ParseRunJson(std::string_view json, std::string_view gbench_name);

// `text` on one line for a `failed` reply: control bytes become spaces, surrounding spaces go,
// and more than `max_bytes` is cut, ending "...".
std::string OneLine(std::string_view text, std::size_t max_bytes = 1000);

// The last `lines` non-empty lines of `text` joined by " | ", at most 400 bytes (the end kept).
std::string Tail(std::string_view text, int lines = 3);

}  // namespace pe::gbench
