// bench_http_client: requests per second of the engine's HTTP client (pe::http::FireRequests)
// against a trivial loopback server, beside what wrk reaches against the same server in the
// same run. The client must not be what limits a serve workload: the aim is at least half of
// wrk's rate. Both drive the server from one thread over the same number of connections.
//
//   bench_http_client [--requests N] [--concurrency C] [--wrk-seconds S] [--rounds R]
#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/http/health.h"
#include "engine/http/load.h"
#include "engine/http/port.h"
#include "engine/runner/process_group.h"
#include "engine/runner/program_lookup.h"

extern char** environ;

namespace pe::bench {

using runner::KillGroup;
using runner::ReapGroup;
using runner::ResolvedProgram;
using runner::ResolveProgram;
namespace {

struct Options {
  int requests = 200000;
  int concurrency = 8;
  int wrk_seconds = 5;
  int rounds = 3;
};

Options Parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (value <= 0) throw std::runtime_error(flag + " wants a number > 0");
    if (flag == "--requests") {
      options.requests = value;
    } else if (flag == "--concurrency") {
      options.concurrency = value;
    } else if (flag == "--wrk-seconds") {
      options.wrk_seconds = value;
    } else if (flag == "--rounds") {
      options.rounds = value;
    } else {
      throw std::runtime_error("unknown flag " + flag);
    }
  }
  if (argc % 2 == 0) throw std::runtime_error(std::string(argv[argc - 1]) + " wants a value");
  return options;
}

// Spawns argv in its own process group; stdout goes to `stdout_fd` when >= 0.
pid_t Spawn(std::vector<std::string> args, int stdout_fd) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) throw std::runtime_error("cannot start " + args[0]);
  return pid;
}

bool Exited(pid_t pid) {
  siginfo_t info = {};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
}

void StopAndReap(pid_t pid) {
  ::kill(-pid, SIGTERM);
  for (int i = 0; i < 200 && !Exited(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  KillGroup(pid);
  ::waitpid(pid, nullptr, 0);
  ReapGroup(pid);
}

// The stub server on a free port, stopped and reaped however the benchmark ends.
class Server {
 public:
  Server() {
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = http::PickFreePort();
      pid_ = Spawn({STUB_HTTP_SERVER, "--port", std::to_string(port_)}, -1);
      const http::HealthResult health = http::WaitUntilHealthy(port_, "/health", 5.0, [this] { return !Exited(pid_); });
      if (health.healthy) return;
      StopAndReap(pid_);  // the port was taken meanwhile (exit 98): try another
      pid_ = -1;
    }
    throw std::runtime_error("stub-http-server did not become healthy");
  }
  ~Server() {
    if (pid_ > 0) StopAndReap(pid_);
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }

 private:
  int port_ = -1;
  pid_t pid_ = -1;
};

// CPU seconds (user + system) another process has used so far, from /proc/PID/stat.
double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  std::getline(in, line);
  // Fields after "(comm)": state is field 3, utime 14, stime 15.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int index = 3; index <= 15 && rest >> field; ++index) {
    if (index >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double CpuSeconds() {
  rusage usage = {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

using Clock = std::chrono::steady_clock;

// What one load phase reached, and how busy each side was meanwhile: a side near 100% is the
// one that limits the rate.
struct Figures {
  double rate = 0;
  double wall_s = 0;
  double server_cpu_share = 0;  // server CPU time / wall time
  double client_cpu_share = 0;  // the engine client's; not measured for wrk
};

Figures RunClient(const Server& server, int requests_count, const Options& options) {
  const std::vector<http::Request> requests(requests_count,
                                            http::Request{.target = "/x", .body = {}, .content_type = {}});
  const double cpu_before = CpuSeconds();
  const double server_before = ProcessCpuSeconds(server.pid());
  const http::LoadResult load =
      http::FireRequests(server.port(), requests, options.concurrency, 5.0, /*keep_bodies=*/false);
  const double server_cpu = ProcessCpuSeconds(server.pid()) - server_before;
  const double cpu = CpuSeconds() - cpu_before;
  if (!load.error.empty()) throw std::runtime_error("client: " + load.error);
  for (const http::Response& response : load.responses) {
    if (response.status != 200) throw std::runtime_error("client: a request was not answered 200");
  }
  return {requests_count / load.wall_s, load.wall_s, server_cpu / load.wall_s, cpu / load.wall_s};
}

// wrk's requests per second against the same server; throws when wrk fails or sees errors.
double RunWrk(const std::string& wrk, int port, const Options& options) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = Spawn({wrk, "-t1", fmt::format("-c{}", options.concurrency),
                           fmt::format("-d{}s", options.wrk_seconds), fmt::format("http://127.0.0.1:{}/x", port)},
                          pipe_fds[1]);
  ::close(pipe_fds[1]);
  std::string output;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], chunk, sizeof(chunk));
    if (n > 0) {
      output.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::smatch match;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      !std::regex_search(output, match, std::regex(R"(Requests/sec:\s+([0-9.]+))"))) {
    throw std::runtime_error("wrk failed:\n" + output);
  }
  if (output.find("Non-2xx") != std::string::npos || output.find("Socket errors") != std::string::npos) {
    throw std::runtime_error("wrk saw errors:\n" + output);
  }
  return std::stod(match[1]);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int Run(int argc, char** argv) {
  const Options options = Parse(argc, argv);
  const char* path = std::getenv("PATH");
  const ResolvedProgram wrk = ResolveProgram("wrk", {}, path != nullptr ? path : "");

  Server server;
  fmt::print("server  stub-http-server on 127.0.0.1:{} (one thread)\n", server.port());
  RunClient(server, 2000, options);  // warm-up: connections, allocator, page cache
  // Alternating rounds, so load from other processes falls on both sides alike.
  std::vector<double> client_rates;
  std::vector<double> wrk_rates;
  for (int round = 1; round <= options.rounds; ++round) {
    const Figures client = RunClient(server, options.requests, options);
    client_rates.push_back(client.rate);
    fmt::print(
        "client  {} requests over {} connections: {:.3f} s, {:.0f} req/s, "
        "{:.1f} us client CPU per request (client CPU {:.0f}%, server CPU {:.0f}%)\n",
        options.requests, options.concurrency, client.wall_s, client.rate,
        1e6 * client.client_cpu_share * client.wall_s / options.requests, 100 * client.client_cpu_share,
        100 * client.server_cpu_share);
    if (!wrk.error.empty()) {
      fmt::print("wrk     wrk not installed\n");
      continue;
    }
    const double server_before = ProcessCpuSeconds(server.pid());
    const auto start = Clock::now();
    const double wrk_rate = RunWrk(wrk.path.string(), server.port(), options);
    const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    const double server_share = (ProcessCpuSeconds(server.pid()) - server_before) / wall_s;
    wrk_rates.push_back(wrk_rate);
    fmt::print("wrk     -t1 -c{} -d{}s: {:.0f} req/s (server CPU {:.0f}%)\n", options.concurrency, options.wrk_seconds,
               wrk_rate, 100 * server_share);
  }
  if (wrk_rates.empty()) {
    fmt::print("median  client {:.0f} req/s\n", Median(client_rates));
    return 0;
  }
  const double ratio = Median(client_rates) / Median(wrk_rates);
  fmt::print("median  client {:.0f} req/s, wrk {:.0f} req/s: client / wrk = {:.2f} ({})\n", Median(client_rates),
             Median(wrk_rates), ratio, ratio >= 0.5 ? "meets the aim of >= 0.5" : "BELOW the aim of >= 0.5");
  return 0;
}

}  // namespace
}  // namespace pe::bench

int main(int argc, char** argv) {
  try {
    return pe::bench::Run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_http_client: {}\n", e.what());
    return 2;
  }
}
