// The worker protocol, version 1 (docs/workers.md): the lines a worker and the engine exchange,
// parsed and formatted here and nowhere else. Pure functions over strings, so every malformed
// line has a unit test with its exact message (tests/unit/worker/protocol_test.cc).
//
// A worker greets:   hello version=1 benchmarks=a,b counters=objects
// the engine asks:   run a 1000        (or: quit)
// the worker replies: done name=a iterations=1000 thread_cpu_ns=.. process_cpu_ns=.. wall_ns=..
//                     digest=.. counter.objects=..
//              or:    failed name=a reason=free text to the end of the line
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pe::worker {

inline constexpr int kProtocolVersion = 1;
// A line, its newline excluded, is at most this long; a longer one is not the protocol (and a
// worker that writes megabytes without a newline cannot make the engine hold them).
inline constexpr std::size_t kMaxLineBytes = 65536;
inline constexpr std::size_t kMaxNameBytes = 128;    // a benchmark's or a counter's name
inline constexpr std::size_t kMaxDigestBytes = 128;  // a result's digest
inline constexpr std::size_t kMaxBenchmarks = 1000;  // in one hello
inline constexpr std::size_t kMaxCounters = 32;      // in one hello
// The environment variable naming the worker's channel: "IN,OUT", descriptor numbers.
inline constexpr const char* kFdsVariable = "PERFENGINE_WORKER_FDS";

struct Hello {
  int version = kProtocolVersion;
  std::vector<std::string> benchmarks;  // in the worker's order, each once
  std::vector<std::string> counters;    // every batch reports each one's growth
  bool operator==(const Hello&) const = default;
};

struct RunRequest {
  std::string name;
  std::int64_t iterations = 0;
  bool operator==(const RunRequest&) const = default;
};
struct QuitRequest {
  bool operator==(const QuitRequest&) const = default;
};
using Request = std::variant<RunRequest, QuitRequest>;

// One batch's figures, as the worker measured them around its loop alone.
struct Batch {
  std::string name;
  std::int64_t iterations = 0;
  std::int64_t thread_cpu_ns = 0;                // CLOCK_THREAD_CPUTIME_ID of the thread that ran the loop
  std::int64_t process_cpu_ns = 0;               // CLOCK_PROCESS_CPUTIME_ID: every thread (a runtime's GC, JIT)
  std::int64_t wall_ns = 0;                      // CLOCK_MONOTONIC
  std::string digest;                            // of the benchmark's result, for parity; "-": none
  std::map<std::string, std::int64_t> counters;  // growth over the batch, each declared counter
  bool operator==(const Batch&) const = default;
};

// The worker could not run the benchmark (an exception, a missing fixture): data, not a crash.
struct Failed {
  std::string name;
  std::string reason;
  bool operator==(const Failed&) const = default;
};
using Reply = std::variant<Batch, Failed>;

// A parsed line, or why it is not the protocol ("missing field 'wall_ns'"); exactly one is set.
template <typename T>
struct Parsed {
  T value{};
  std::string error;
  bool ok() const { return error.empty(); }
};

// `line` is without its newline. The messages are docs/workers.md's table of errors.
Parsed<Hello> ParseHello(std::string_view line);
Parsed<Request> ParseRequest(std::string_view line);
// `hello` is the worker's own greeting (its counters must all be there, none other); `asked` is
// the request this answers (the same benchmark and iteration count, or an error naming both).
Parsed<Reply> ParseReply(std::string_view line, const Hello& hello, const RunRequest& asked);

// Each with its newline.
std::string FormatHello(const Hello& hello);
std::string FormatRequest(const Request& request);
std::string FormatReply(const Reply& reply);

// Whether `name` may be a benchmark's or a counter's name: 1 to kMaxNameBytes of
// [A-Za-z0-9_.:/+-].
bool IsValidName(std::string_view name);

// A line as an error message may quote it: at most 80 bytes ("..." after a cut), control bytes
// and non-ASCII as \xHH, so a worker's garbage cannot break the one-line error.
std::string Quote(std::string_view line);

}  // namespace pe::worker
