// stub-contender: a stand-in for a real contender whose duration, output, memory and exit
// code a test controls entirely from its argv. Actions run in the order given; the whole
// argv is parsed first so a typo fails with exit 64 before any action has side effects.
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <forward_list>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kUsageError = 64;  // EX_USAGE

using Action = std::function<void()>;

[[noreturn]] void Die(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "stub-contender: %s\n", message.c_str());
  std::exit(1);
}

// CPU time of this process, read only every few thousand iterations: the read itself is a
// syscall and must not turn "user time" into system time.
double CpuSeconds() {
  timespec ts = {};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

void BusyMs(long ms) {
  const double until = CpuSeconds() + ms / 1000.0;
  volatile std::uint64_t sink = 0;
  while (CpuSeconds() < until) {
    for (std::uint64_t i = 0; i < 200000; ++i) sink = sink * 6364136223846793005ULL + i;
  }
}

void WriteLine(int fd, const std::string& text) {
  std::string line = text + "\n";
  const char* data = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Die("write failed: " + std::string(std::strerror(errno)));
    data += n;
    left -= static_cast<size_t>(n);
  }
}

void WriteFile(const std::string& path, const std::string& text, int extra_flags) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | extra_flags, 0644);
  if (fd < 0) Die("cannot open " + path + ": " + std::strerror(errno));
  WriteLine(fd, text);
  ::close(fd);
}

std::forward_list<void*>& resident_blocks = *new std::forward_list<void*>;

void AllocMb(long mb) {
  const size_t bytes = static_cast<size_t>(mb) << 20;
  auto* block = static_cast<volatile char*>(std::malloc(bytes));
  if (block == nullptr) Die("cannot allocate " + std::to_string(mb) + " MiB");
  // Kept until exit so the pages count in peak RSS. A plain global (never destroyed) holds it,
  // so the leak checker of a sanitizer build sees it reachable and does not fail the run.
  resident_blocks.push_front(const_cast<char*>(block));
  const long page = ::sysconf(_SC_PAGESIZE);
  for (size_t i = 0; i < bytes; i += static_cast<size_t>(page)) block[i] = 1;
}

void Log(const std::string& path, const std::string& tag) {
  timespec ts = {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const long long ns = static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  // One write() with O_APPEND, so lines from contenders never interleave.
  WriteFile(path, tag + " " + std::to_string(::getpid()) + " " + std::to_string(ns), O_APPEND);
}

// "TAG <pid> <monotonic ns> <cpu>": when and on which CPU (sched_getcpu) this point was
// reached, for tests that check two contenders ran at the same time on different cores.
void CpuLog(const std::string& path, const std::string& tag) {
  timespec ts = {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const long long ns = static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  WriteFile(path,
            tag + " " + std::to_string(::getpid()) + " " + std::to_string(ns) + " " + std::to_string(sched_getcpu()),
            O_APPEND);
}

// Busy for a random 0..ms milliseconds: a contender whose run-to-run noise a test controls.
void JitterMs(long ms) {
  timespec ts = {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  std::uint64_t state = static_cast<std::uint64_t>(ts.tv_nsec) ^ (static_cast<std::uint64_t>(::getpid()) << 32);
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  BusyMs(static_cast<long>((state >> 33) % static_cast<std::uint64_t>(ms + 1)));
}

int SignalByName(std::string name) {
  if (name.rfind("SIG", 0) == 0) name = name.substr(3);
  static const std::map<std::string, int> kSignals = {
      {"SEGV", SIGSEGV}, {"ABRT", SIGABRT}, {"KILL", SIGKILL}, {"TERM", SIGTERM}, {"INT", SIGINT},   {"BUS", SIGBUS},
      {"FPE", SIGFPE},   {"ILL", SIGILL},   {"HUP", SIGHUP},   {"QUIT", SIGQUIT}, {"USR1", SIGUSR1}, {"PIPE", SIGPIPE},
  };
  auto it = kSignals.find(name);
  return it == kSignals.end() ? 0 : it->second;
}

void RaiseSignal(int signal) {
  std::fflush(nullptr);
  // No core files: a test that crashes the stub on purpose must stay fast and tidy.
  rlimit no_core = {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
  Die("signal did not terminate the process");
}

[[noreturn]] void Hang() {
  std::fflush(nullptr);
  for (;;) ::pause();
}

void SpawnChildThatHangs(const std::string& pidfile) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) Die("fork failed");
  if (pid == 0) Hang();
  // Written whole under a temporary name, so a reader never sees a partial pid.
  const std::string temporary = pidfile + ".tmp";
  WriteFile(temporary, std::to_string(pid), O_TRUNC);
  if (::rename(temporary.c_str(), pidfile.c_str()) != 0) Die("cannot write " + pidfile);
}

// A daemon that escapes the process group: a child that calls setsid() and starts a
// grandchild of its own; both hang. The pid file gets "CHILD GRANDCHILD".
void SpawnSetsidPairThatHangs(const std::string& pidfile) {
  std::fflush(nullptr);
  int ready[2];
  if (::pipe(ready) != 0) Die("pipe failed");
  pid_t pid = ::fork();
  if (pid < 0) Die("fork failed");
  if (pid == 0) {
    ::close(ready[0]);
    if (::setsid() < 0) _exit(1);
    pid_t grandchild = ::fork();
    if (grandchild == 0) {
      ::close(ready[1]);
      Hang();
    }
    const std::string text = std::to_string(::getpid()) + " " + std::to_string(grandchild);
    const std::string temporary = pidfile + ".tmp";
    WriteFile(temporary, text, O_TRUNC);
    if (::rename(temporary.c_str(), pidfile.c_str()) != 0) _exit(1);
    ::close(ready[1]);
    Hang();
  }
  ::close(ready[1]);
  char byte;
  while (::read(ready[0], &byte, 1) < 0 && errno == EINTR) {
  }
  ::close(ready[0]);
}

// This process's own peak RSS as the kernel keeps it (VmHWM in /proc/self/status), in KiB,
// then _exit(0): nothing may fault in new pages after the figure is taken. The first pass
// only warms up the code the second one runs, so the second reads the final high-water mark.
long ReadVmHwm() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) Die("cannot read /proc/self/status");
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  }
  std::fclose(status);
  if (kib < 0) Die("no VmHWM in /proc/self/status");
  return kib;
}

[[noreturn]] void WriteVmHwmAndExit(const std::string& path) {
  for (int pass = 0; pass < 2; ++pass) WriteFile(path, std::to_string(ReadVmHwm()), O_TRUNC);
  std::fflush(nullptr);
  ::_exit(0);
}

void Copy(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) Die("cannot copy " + from + " to " + to + ": " + ec.message());
}

[[noreturn]] void Usage(const std::string& message) {
  std::fprintf(stderr, "stub-contender: %s\n", message.c_str());
  std::exit(kUsageError);
}

long ParseCount(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || value < 0) {
    Usage(flag + " needs a non-negative integer, got '" + text + "'");
  }
  return value;
}

std::vector<Action> Parse(int argc, char** argv) {
  std::vector<Action> actions;
  int i = 1;
  auto next = [&](const std::string& flag) -> std::string {
    if (i >= argc) Usage(flag + " needs an argument");
    return argv[i++];
  };
  while (i < argc) {
    const std::string flag = argv[i++];
    if (flag == "--version") {
      actions.push_back([] {
        WriteLine(STDOUT_FILENO, "stub-contender 1.0");
        std::exit(0);
      });
    } else if (flag == "--busy-ms") {
      long ms = ParseCount(flag, next(flag));
      actions.push_back([ms] { BusyMs(ms); });
    } else if (flag == "--jitter-ms") {
      long ms = ParseCount(flag, next(flag));
      actions.push_back([ms] { JitterMs(ms); });
    } else if (flag == "--cpu-log") {
      std::string path = next(flag);
      std::string tag = next(flag);
      actions.push_back([path, tag] { CpuLog(path, tag); });
    } else if (flag == "--sleep-ms") {
      long ms = ParseCount(flag, next(flag));
      actions.push_back([ms] { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); });
    } else if (flag == "--sleep-ms-alternating") {
      // FAST SLOW COUNTER: sleeps FAST ms on this contender's even executions and SLOW ms on its
      // odd ones (COUNTER is a file it counts them in), so its per-round ratio against a steady
      // contender swings far both ways and no interval can settle whatever the machine's load.
      long fast = ParseCount(flag, next(flag));
      long slow = ParseCount(flag, next(flag));
      std::string counter = next(flag);
      actions.push_back([fast, slow, counter] {
        long n = 0;
        if (FILE* in = std::fopen(counter.c_str(), "r")) {
          if (std::fscanf(in, "%ld", &n) != 1) n = 0;
          std::fclose(in);
        }
        if (FILE* out = std::fopen(counter.c_str(), "w")) {
          std::fprintf(out, "%ld\n", n + 1);
          std::fclose(out);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(n % 2 == 0 ? fast : slow));
      });
    } else if (flag == "--print") {
      std::string text = next(flag);
      actions.push_back([text] { WriteLine(STDOUT_FILENO, text); });
    } else if (flag == "--stderr") {
      std::string text = next(flag);
      actions.push_back([text] { WriteLine(STDERR_FILENO, text); });
    } else if (flag == "--write") {
      std::string path = next(flag);
      std::string text = next(flag);
      actions.push_back([path, text] { WriteFile(path, text, O_TRUNC); });
    } else if (flag == "--write-env") {
      // Appends a line to the file an environment variable names (e.g. $PERFENGINE_COUNTERS).
      std::string variable = next(flag);
      std::string text = next(flag);
      actions.push_back([variable, text] {
        const char* path = std::getenv(variable.c_str());
        if (path == nullptr) Die("$" + variable + " is not set");
        WriteFile(path, text, O_APPEND);
      });
    } else if (flag == "--symlink-env") {
      // Makes the path an environment variable names a symbolic link to TARGET (e.g. /dev/zero).
      std::string variable = next(flag);
      std::string target = next(flag);
      actions.push_back([variable, target] {
        const char* path = std::getenv(variable.c_str());
        if (path == nullptr) Die("$" + variable + " is not set");
        ::unlink(path);
        if (::symlink(target.c_str(), path) != 0) Die("cannot link " + std::string(path) + ": " + std::strerror(errno));
      });
    } else if (flag == "--mkfifo-env") {
      // Makes the path an environment variable names a FIFO that no one writes.
      std::string variable = next(flag);
      actions.push_back([variable] {
        const char* path = std::getenv(variable.c_str());
        if (path == nullptr) Die("$" + variable + " is not set");
        ::unlink(path);
        if (::mkfifo(path, 0600) != 0) Die("cannot make a FIFO " + std::string(path) + ": " + std::strerror(errno));
      });
    } else if (flag == "--pid-beside-env") {
      // Writes this process's pid to a file `pid` in the folder of the path a variable names.
      std::string variable = next(flag);
      actions.push_back([variable] {
        const char* path = std::getenv(variable.c_str());
        if (path == nullptr) Die("$" + variable + " is not set");
        WriteFile((std::filesystem::path(path).parent_path() / "pid").string(), std::to_string(::getpid()), O_TRUNC);
      });
    } else if (flag == "--rewrite-rival-env") {
      // VARIABLE FROM TO TEXT: the rival's file is this one's path (from the variable) with FROM
      // replaced by TO. When the rival left its pid beside it (--pid-beside-env), waits until
      // that process is gone (reaped), then 300 ms more, and overwrites the rival's file with
      // TEXT: what a contender running beside another could do to it (issue 45).
      std::string variable = next(flag);
      std::string from = next(flag);
      std::string to = next(flag);
      std::string text = next(flag);
      actions.push_back([variable, from, to, text] {
        const char* own = std::getenv(variable.c_str());
        if (own == nullptr) Die("$" + variable + " is not set");
        std::string rival = own;
        const size_t at = rival.find(from);
        if (at == std::string::npos) return;  // a parity execution: a directory of its own
        rival.replace(at, from.size(), to);
        long pid = 0;
        if (FILE* in = std::fopen((std::filesystem::path(rival).parent_path() / "pid").c_str(), "r")) {
          if (std::fscanf(in, "%ld", &pid) != 1) pid = 0;
          std::fclose(in);
        }
        if (pid <= 0) return;  // no rival ran beside this execution
        for (int i = 0; i < 10000 && ::kill(static_cast<pid_t>(pid), 0) == 0; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        WriteFile(rival, text, O_TRUNC);
      });
    } else if (flag == "--fail-if-exists") {
      // A file an earlier execution left behind, which a fresh scratch directory never holds.
      std::string path = next(flag);
      actions.push_back([path] {
        if (::access(path.c_str(), F_OK) == 0) Die("left over from an earlier run: " + path);
      });
    } else if (flag == "--copy") {
      std::string from = next(flag);
      std::string to = next(flag);
      actions.push_back([from, to] { Copy(from, to); });
    } else if (flag == "--alloc-mb") {
      long mb = ParseCount(flag, next(flag));
      actions.push_back([mb] { AllocMb(mb); });
    } else if (flag == "--log") {
      std::string path = next(flag);
      std::string tag = next(flag);
      actions.push_back([path, tag] { Log(path, tag); });
    } else if (flag == "--exit") {
      long code = ParseCount(flag, next(flag));
      if (code > 255) Usage("--exit needs a status from 0 to 255");
      actions.push_back([code] { std::exit(static_cast<int>(code)); });
    } else if (flag == "--signal") {
      std::string name = next(flag);
      int signal = SignalByName(name);
      if (signal == 0) Usage("unknown signal '" + name + "'");
      actions.push_back([signal] { RaiseSignal(signal); });
    } else if (flag == "--hang") {
      actions.push_back([] { Hang(); });
    } else if (flag == "--spawn-setsid-hang") {
      std::string pidfile = next(flag);
      actions.push_back([pidfile] { SpawnSetsidPairThatHangs(pidfile); });
    } else if (flag == "--vmhwm") {
      std::string path = next(flag);
      actions.push_back([path] { WriteVmHwmAndExit(path); });
    } else if (flag == "--spawn-child-hang") {
      std::string pidfile = next(flag);
      actions.push_back([pidfile] { SpawnChildThatHangs(pidfile); });
    } else {
      Usage("unknown flag '" + flag + "'");
    }
  }
  return actions;
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& action : Parse(argc, argv)) action();
  return 0;
}
