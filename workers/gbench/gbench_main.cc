// perfengine-gbench-worker: a perfengine worker (docs/workers.md, protocol version 1) that
// drives an unmodified google/benchmark binary, so a C++ project gates its existing suite
// without writing a worker (issue 41, item 6).
//
//   perfengine-gbench-worker [--list] -- BINARY [ITS FLAGS...]
//
// At start it lists the binary's benchmarks (--benchmark_list_tests=true) and greets with
// their names (docs/workers.md, "google/benchmark suites": how names are mapped). For each
// `run NAME N` it runs the binary once, selecting that benchmark alone, and replies with the
// figures of its JSON output. The binary runs as a child of this process (argv, no shell), one
// at a time, killed if this process dies; its stdout is this process's, its stderr is kept in a
// private directory and shown only when it fails. --list prints "NAME<TAB>GBENCH NAME" lines.
//
// This program never calls getppid(): the measuring happens in the child, so the window
// markers of docs/workers.md have nothing to mark here (no per-batch instruction counts).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "perfengine/worker.h"
#include "workers/gbench/gbench_adapter.h"

namespace {

namespace fs = std::filesystem;
using pe::gbench::Benchmark;

// The shortest run asked of a binary that takes no iteration count (google/benchmark 1.7.1).
constexpr double kMinRunSeconds = 0.01;

constexpr const char* kUsageLine = "usage: perfengine-gbench-worker [--list] -- BENCHMARK_BINARY [ITS FLAGS...]";
constexpr const char* kUsage =
    "usage: perfengine-gbench-worker [--list] -- BENCHMARK_BINARY [ITS FLAGS...]\n"
    "  A perfengine worker (docs/workers.md) over an unmodified google/benchmark binary.\n"
    "  --list  print each benchmark's worker name and google/benchmark name, tab-separated, and exit\n";

int Fatal(const std::string& message) {
  std::fprintf(stderr, "perfengine-gbench-worker: %s\n", message.c_str());
  return 2;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// How a run of the binary ended.
struct Ran {
  std::string exec_error;  // the binary could not be started: "No such file or directory"
  int status = 0;          // waitpid's, when it was
  std::string Describe() const {
    if (!exec_error.empty()) return "could not be started: " + exec_error;
    if (WIFSIGNALED(status)) return std::string("was killed by SIG") + sigabbrev_np(WTERMSIG(status));
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  bool ok() const { return exec_error.empty() && WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

// Runs `argv` (PATH searched when argv[0] has no slash) to its end, its stdout to `stdout_path`
// ("" keeps ours) and its stderr to `stderr_path`. It dies with this process (PR_SET_PDEATHSIG)
// and inherits no channel descriptor (pe_worker_open made it close-on-exec).
Ran RunBinary(const std::vector<std::string>& argv, const fs::path& stdout_path, const fs::path& stderr_path) {
  Ran ran;
  int report[2];  // the exec's errno, from the child; closed by a successful exec
  if (pipe2(report, O_CLOEXEC) != 0) {
    ran.exec_error = std::string("pipe: ") + strerror(errno);
    return ran;
  }
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    ran.exec_error = std::string("fork: ") + strerror(errno);
    close(report[0]);
    close(report[1]);
    return ran;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int err = 0;
    const int err_fd = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (err_fd < 0 || dup2(err_fd, 2) < 0) err = errno;
    if (err == 0 && !stdout_path.empty()) {
      const int out_fd = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (out_fd < 0 || dup2(out_fd, 1) < 0) err = errno;
    }
    if (err == 0) {
      execvp(args[0], args.data());
      err = errno;
    }
    (void)!write(report[1], &err, sizeof err);
    _exit(127);
  }
  close(report[1]);
  int err = 0;
  ssize_t n;
  while ((n = read(report[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  while (waitpid(pid, &ran.status, 0) < 0 && errno == EINTR) {
  }
  if (n == static_cast<ssize_t>(sizeof err)) ran.exec_error = strerror(err);
  return ran;
}

class Adapter {
 public:
  Adapter(std::vector<std::string> binary, fs::path dir) : binary_(std::move(binary)), dir_(std::move(dir)) {}

  // Lists the binary's benchmarks and learns whether it takes --benchmark_min_time=Nx
  // (google/benchmark 1.8.0 and later). "" when ready, else why not.
  std::string Start() {
    std::vector<std::string> argv = binary_;
    argv.push_back("--benchmark_list_tests=true");
    std::vector<std::string> probe = argv;
    probe.push_back("--benchmark_min_time=1x");  // 1.7.1 refuses it: "unrecognized command-line flag"
    Ran ran = RunBinary(probe, dir_ / "list", dir_ / "stderr");
    if (!ran.exec_error.empty()) return "cannot run '" + binary_[0] + "': " + ran.exec_error;
    exact_ = ran.ok();
    if (!exact_) ran = RunBinary(argv, dir_ / "list", dir_ / "stderr");
    if (!ran.ok()) {
      const std::string tail = pe::gbench::Tail(ReadFile(dir_ / "stderr"));
      return "'" + binary_[0] + " --benchmark_list_tests=true' " + ran.Describe() +
             (tail.empty() ? "" : "; its stderr ends: " + tail);
    }
    pe::gbench::Listing listing = pe::gbench::MapListing(ReadFile(dir_ / "list"));
    if (!listing.error.empty()) return "'" + binary_[0] + "': " + listing.error;
    benchmarks_ = std::move(listing.benchmarks);
    return "";
  }

  const std::vector<Benchmark>& benchmarks() const { return benchmarks_; }

  // One batch: "" and `batch` filled, else the reason for a `failed` reply.
  std::string RunBatch(const std::string& name, std::int64_t iterations, pe_batch* batch) {
    const Benchmark* benchmark = Find(name);
    if (benchmark == nullptr) return "the binary has no benchmark '" + name + "'";
    pe::gbench::RunFigures figures;
    if (exact_) {
      std::string error = RunOnce(*benchmark, std::to_string(iterations) + "x", &figures);
      if (!error.empty()) return error;
      if (figures.iterations != iterations * figures.threads) {
        return "google/benchmark ran " + std::to_string(figures.iterations) + " iterations, asked for " +
               std::to_string(iterations) + (figures.threads > 1 ? " on each of its threads" : "");
      }
    } else {
      // google/benchmark 1.7.1 takes no iteration count, only a minimum time: N times the last
      // per-iteration time seen, at least kMinRunSeconds, and the reply gives the run's
      // per-iteration figures times N (docs/workers.md, "google/benchmark suites"). The floor
      // keeps a probe of one iteration from being one iteration's clock readings: in a freshly
      // started binary on a loaded machine, one iteration's real time was 1.7 ms for 14 us of CPU.
      const auto estimate = estimate_ns_.find(name);
      const double seconds = estimate == estimate_ns_.end()
                                 ? kMinRunSeconds
                                 : std::max(kMinRunSeconds, static_cast<double>(iterations) * estimate->second / 1e9);
      char min_time[64];
      std::snprintf(min_time, sizeof min_time, "%.9g", seconds);
      std::string error = RunOnce(*benchmark, min_time, &figures);
      if (!error.empty()) return error;
    }
    const double n = static_cast<double>(iterations);
    const double cpu = std::round(figures.cpu_ns_per_iteration * n);
    const double wall = std::round(figures.real_ns_per_iteration * n);
    if (!(cpu < 9.2e18 && wall < 9.2e18)) return "a batch's time overflows 64-bit nanoseconds";
    // google/benchmark's cpu_time is the measuring threads' CPU time (the process's with
    // MeasureProcessCPUTime); it has no second clock, so both fields carry it.
    batch->thread_cpu_ns = static_cast<std::int64_t>(cpu);
    batch->process_cpu_ns = static_cast<std::int64_t>(cpu);
    batch->wall_ns = static_cast<std::int64_t>(wall);
    return "";
  }

 private:
  const Benchmark* Find(const std::string& name) const {
    for (const Benchmark& benchmark : benchmarks_) {
      if (benchmark.name == name) return &benchmark;
    }
    return nullptr;
  }

  // Runs the binary on `benchmark` alone with --benchmark_min_time=`min_time`; "" and
  // `figures` filled, else the reason. Updates the benchmark's per-iteration estimate.
  std::string RunOnce(const Benchmark& benchmark, const std::string& min_time, pe::gbench::RunFigures* figures) {
    const fs::path out = dir_ / "run.json";
    std::error_code ignored;
    fs::remove(out, ignored);
    std::vector<std::string> argv = binary_;
    for (const char* flag : {"--benchmark_repetitions=1", "--benchmark_out_format=json", "--benchmark_color=false"}) {
      argv.push_back(flag);
    }
    argv.push_back("--benchmark_filter=" + pe::gbench::ExactFilter(benchmark.gbench_name));
    argv.push_back("--benchmark_min_time=" + min_time);
    argv.push_back("--benchmark_out=" + out.string());
    const Ran ran = RunBinary(argv, "", dir_ / "stderr");
    if (!ran.ok()) {
      const std::string tail = pe::gbench::Tail(ReadFile(dir_ / "stderr"));
      std::fprintf(stderr, "perfengine-gbench-worker: %s: '%s' %s\n%s", benchmark.gbench_name.c_str(),
                   binary_[0].c_str(), ran.Describe().c_str(), ReadFile(dir_ / "stderr").c_str());
      return "the benchmark binary " + ran.Describe() + (tail.empty() ? "" : "; its stderr ends: " + tail);
    }
    *figures = pe::gbench::ParseRunJson(ReadFile(out), benchmark.gbench_name);
    if (!figures->ok()) return figures->error;
    const bool real_clock = benchmark.gbench_name.find("/real_time") != std::string::npos ||
                            benchmark.gbench_name.find("/manual_time") != std::string::npos;
    double estimate = real_clock ? figures->real_ns_per_iteration : figures->cpu_ns_per_iteration;
    if (estimate <= 0) estimate = figures->real_ns_per_iteration;
    estimate_ns_[benchmark.name] = estimate > 0 ? estimate : 1;
    return "";
  }

  std::vector<std::string> binary_;
  fs::path dir_;
  bool exact_ = false;  // the binary takes --benchmark_min_time=Nx
  std::vector<Benchmark> benchmarks_;
  std::map<std::string, double> estimate_ns_;  // per benchmark: the last run's per-iteration time
};

// A private directory under $TMPDIR (else /tmp) for the binary's stderr and JSON, removed at exit.
struct ScratchDir {
  fs::path path;
  ~ScratchDir() {
    std::error_code ignored;
    if (!path.empty()) fs::remove_all(path, ignored);
  }
};

int Serve(Adapter& adapter) {
  pe_worker worker;
  if (pe_worker_open(&worker) != 0) {
    return Fatal(std::string("no worker channel (PERFENGINE_WORKER_FDS: ") + strerror(errno) +
                 "): perfengine starts this program as a worker (docs/workers.md); --list lists the benchmarks");
  }
  const std::string error = adapter.Start();
  if (!error.empty()) return Fatal(error);
  std::string names;
  for (const Benchmark& benchmark : adapter.benchmarks()) names += (names.empty() ? "" : ",") + benchmark.name;
  if (pe_worker_hello(&worker, names.c_str(), "") != 0)
    return Fatal("cannot write the hello: " + std::string(strerror(errno)));
  pe_request request;
  int next;
  while ((next = pe_worker_next(&worker, &request)) == 1) {
    pe_batch batch{};
    const std::string reason = adapter.RunBatch(request.name, request.iterations, &batch);
    const int written = reason.empty() ? pe_worker_done(&worker, &request, &batch, "-", nullptr, nullptr, 0)
                                       : pe_worker_failed(&worker, request.name, pe::gbench::OneLine(reason).c_str());
    if (written != 0) return Fatal("cannot write a reply: " + std::string(strerror(errno)));
  }
  if (next < 0) return Fatal("a request that is not the protocol (docs/workers.md)");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool list = false;
  int i = 1;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    const std::string arg = argv[i];
    if (arg == "--list") {
      list = true;
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      return Fatal("unknown option '" + arg + "' (" + kUsageLine + ")");
    }
  }
  if (i + 1 >= argc) {
    return Fatal(std::string("no benchmark binary after '--' (") + kUsageLine + ")");
  }
  std::vector<std::string> binary(argv + i + 1, argv + argc);

  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmpdir != nullptr && tmpdir[0] != '\0' ? tmpdir : "/tmp") + "/perfengine-gbench-XXXXXX";
  ScratchDir scratch;
  if (mkdtemp(pattern.data()) == nullptr) return Fatal("cannot make a directory " + pattern + ": " + strerror(errno));
  scratch.path = pattern;
  Adapter adapter(std::move(binary), scratch.path);
  if (!list) return Serve(adapter);
  const std::string error = adapter.Start();
  if (!error.empty()) return Fatal(error);
  for (const Benchmark& benchmark : adapter.benchmarks()) {
    std::printf("%s\t%s\n", benchmark.name.c_str(), benchmark.gbench_name.c_str());
  }
  return 0;
}
