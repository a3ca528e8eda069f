#include "engine/worker/worker_process.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/runner/file_tail.h"
#include "engine/runner/interrupt.h"
#include "engine/runner/process_group.h"
#include "engine/runner/program_lookup.h"
#include "engine/runner/wait_for_exit.h"

namespace pe::worker {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point In(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// stdout or stderr for the worker: the command's file (truncated), else /dev/null.
runner::UniqueFd OpenOutput(const std::filesystem::path& path, std::string* error) {
  const std::string target = path.empty() ? "/dev/null" : path.string();
  runner::UniqueFd fd(::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) *error = fmt::format("cannot open {}: {}", target, std::strerror(errno));
  return fd;
}

}  // namespace

WorkerProcess::WorkerProcess(std::string name) : name_(std::move(name)) {}

WorkerProcess::~WorkerProcess() {
  if (started_ && !reaped_) KillAndReap();
}

std::string WorkerProcess::Start(const runner::Command& command, const WorkerSettings& settings) {
  if (std::string error = Spawn(command, settings); !error.empty()) return error;
  return AwaitHello();
}

std::string WorkerProcess::Spawn(const runner::Command& command, const WorkerSettings& settings) {
  if (started_) return Fail("at start", "already started");
  settings_ = settings;
  // Idempotent; Ctrl-C must kill the worker's group like any child's.
  interrupt::InstallHandlers();
  if (interrupt::Interrupted()) return Fail("at start", "interrupted before start");
  if (command.argv.empty()) return Fail("at start", "empty command");
  const runner::ResolvedProgram program =
      runner::ResolveProgram(command.argv[0], command.cwd, runner::PathVariable(command.env));
  if (!program.error.empty()) return Fail("at start", program.error);
  // The spawner hands a child exactly three descriptors (spawner_protocol.h), so the channel
  // rides on the one a benchmark does not use: a socket pair, its far end as the worker's stdin,
  // both directions on it (docs/workers.md, "The channel").
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return Fail("at start", fmt::format("cannot make its channel: {}", std::strerror(errno)));
  }
  channel_ = runner::UniqueFd(pair[0]);
  runner::UniqueFd far_end(pair[1]);
  std::string error;
  runner::UniqueFd out = OpenOutput(command.stdout_path, &error);
  runner::UniqueFd err = out.get() >= 0 ? OpenOutput(command.stderr_path, &error) : runner::UniqueFd();
  if (err.get() < 0) return Fail("at start", error);
  stderr_path_ = command.stderr_path.string();

  std::map<std::string, std::string> env = command.env;
  env[kFdsVariable] = "0,0";
  runner::StartRequest request;
  request.program = program.path;
  request.argv = command.argv;
  request.env = runner::ChildEnvironment(env);
  request.cwd = command.cwd;
  request.stdin_fd = far_end.get();
  request.stdout_fd = out.get();
  request.stderr_fd = err.get();
  request.sandbox = command.sandbox;
  request.no_aslr = command.no_aslr;
  request.hold = command.cpu >= 0;  // pinned before exec, so nothing of it runs elsewhere
  spawned_ = runner::StartProcess(request);
  if (!spawned_.error.empty()) return Fail("at start", spawned_.error);
  started_ = true;
  alive_ = true;
  if (command.cpu >= 0) {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(command.cpu, &cpus);
    if (::sched_setaffinity(spawned_.pid, sizeof cpus, &cpus) != 0) {
      const int errno_value = errno;
      KillAndReap();
      return Fail("at start", fmt::format("cannot pin it to CPU {}: {}", command.cpu, std::strerror(errno_value)));
    }
    runner::Release(spawned_);
  }
  // Only the worker may hold the far end: its exit must be our end of file.
  far_end.Reset();
  hello_deadline_ = In(settings_.start_timeout_s);
  return "";
}

std::string WorkerProcess::AwaitHello() {
  if (!alive_) return error_.empty() ? Fail("at start", "not started") : error_;
  if (!hello_.benchmarks.empty()) return "";  // greeted already
  std::string line;
  const Clock::time_point deadline = hello_deadline_;
  if (const Read read = ReadLine(deadline, &line); read != Read::kLine) {
    return ReadFailure(read, deadline, "at start", "hello", settings_.start_timeout_s);
  }
  Parsed<Hello> hello = ParseHello(line);
  if (!hello.ok()) {
    KillAndReap();
    return Fail("at start", "not the protocol: " + hello.error);
  }
  hello_ = std::move(hello.value);
  return "";
}

BatchResult WorkerProcess::Run(const std::string& benchmark, std::int64_t iterations) {
  if (std::string error = Ask(benchmark, iterations); !error.empty()) return {{}, error};
  return Answer();
}

std::string WorkerProcess::Ask(const std::string& benchmark, std::int64_t iterations) {
  const std::string where = fmt::format("benchmark '{}'", benchmark);
  if (!alive_) return error_.empty() ? Fail(where, "not started") : error_;
  if (std::find(hello_.benchmarks.begin(), hello_.benchmarks.end(), benchmark) == hello_.benchmarks.end()) {
    return fmt::format("worker '{}', {}: the worker offers no such benchmark", name_, where);
  }
  if (iterations < 1) return fmt::format("worker '{}', {}: iterations must be at least 1", name_, where);
  // A line nobody asked for, already here, would be taken for this request's reply. (One still
  // on its way is, and then it is refused as a reply for another benchmark or count.)
  DrainChannel();
  if (!buffer_.empty()) {
    const std::string unasked = buffer_.substr(0, buffer_.find('\n'));
    KillAndReap();
    return Fail(where, "not the protocol: a line nobody asked for: " + Quote(unasked));
  }
  asked_ = RunRequest{benchmark, iterations};
  answer_deadline_ = In(settings_.request_timeout_s);
  // A worker that died has no reader on its channel: the write fails, and Answer's read finds why.
  sent_ = Send(FormatRequest(asked_));
  return "";
}

BatchResult WorkerProcess::Answer() {
  const std::string where = fmt::format("benchmark '{}'", asked_.name);
  if (!alive_) return {{}, error_.empty() ? Fail(where, "not started") : error_};
  const Clock::time_point deadline = answer_deadline_;
  std::string line;
  const Read read = sent_ ? ReadLine(deadline, &line) : Read::kEnded;
  if (read != Read::kLine) return {{}, ReadFailure(read, deadline, where, "reply", settings_.request_timeout_s)};
  Parsed<Reply> reply = ParseReply(line, hello_, asked_);
  if (!reply.ok()) {
    KillAndReap();
    return {{}, Fail(where, "not the protocol: " + reply.error)};
  }
  if (const auto* failed = std::get_if<Failed>(&reply.value)) {
    // The worker is sound; the benchmark is not. It stays up to be asked again or told to quit.
    return {{}, fmt::format("worker '{}', {}: the benchmark failed: {}", name_, where, Quote(failed->reason))};
  }
  return {std::get<Batch>(std::move(reply.value)), ""};
}

std::string WorkerProcess::Quit() {
  if (!alive_) return error_;
  const Clock::time_point deadline = In(settings_.quit_grace_s);
  Send(FormatRequest(QuitRequest{}));
  const runner::WaitEnd end = runner::WaitForExit(spawned_.done.get(), deadline);
  if (end != runner::WaitEnd::kExited) {
    KillAndReap();
    if (end == runner::WaitEnd::kInterrupted) {
      return Fail("at quit", fmt::format("interrupted by {}", runner::SignalName(interrupt::Signal())));
    }
    return Fail("at quit", fmt::format("did not exit within {:g} s of 'quit'; its process group was killed",
                                       settings_.quit_grace_s));
  }
  ReapBy(deadline);
  if (!outcome_.ok()) return Fail("at quit", Ending() + " after 'quit'");
  return "";
}

WorkerProcess::Read WorkerProcess::ReadLine(Clock::time_point deadline, std::string* line) {
  while (true) {
    if (const std::size_t newline = buffer_.find('\n'); newline != std::string::npos) {
      *line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line->size() > kMaxLineBytes ? Read::kTooLong : Read::kLine;
    }
    if (buffer_.size() > kMaxLineBytes) return Read::kTooLong;
    // The channel alone: its end of file comes when the worker (and all it started, which the
    // spawner kills) has gone, and a worker that closed its channel yet runs on times out.
    pollfd fds[2] = {{channel_.get(), POLLIN, 0}, {interrupt::WakeFd(), POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Read::kTimedOut;
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (interrupt::Interrupted()) return Read::kInterrupted;
    if (ready < 0 && errno != EINTR) return Read::kEnded;
    if (ready <= 0) continue;
    char chunk[16384];
    const ssize_t n = ::read(channel_.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Read::kEnded;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

void WorkerProcess::DrainChannel() {
  while (buffer_.size() <= kMaxLineBytes) {
    pollfd fd = {channel_.get(), POLLIN, 0};
    if (::poll(&fd, 1, 0) <= 0) return;
    char chunk[4096];
    const ssize_t n = ::read(channel_.get(), chunk, sizeof chunk);
    if (n <= 0) return;  // an end of file is found again by the read that awaits the reply
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

bool WorkerProcess::Send(const std::string& text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    // MSG_NOSIGNAL: a dead worker is an error to report, not a SIGPIPE for the engine.
    const ssize_t n = ::send(channel_.get(), text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

void WorkerProcess::KillAndReap() {
  if (!started_ || reaped_) return;
  runner::KillGroup(spawned_.pid);
  ReapBy(Clock::now());
}

void WorkerProcess::ReapBy(Clock::time_point deadline) {
  if (!started_ || reaped_) return;
  // Its channel closes a moment before the spawner has its exit status.
  if (runner::WaitForExit(spawned_.done.get(), deadline) != runner::WaitEnd::kExited) {
    runner::KillGroup(spawned_.pid);
  }
  outcome_ = runner::ReapChild(spawned_);
  reaped_ = true;
  alive_ = false;
  channel_.Reset();
}

std::string WorkerProcess::ReadFailure(Read read, Clock::time_point deadline, const std::string& where,
                                       const std::string& awaited, double timeout_s) {
  if (read == Read::kEnded) {
    ReapBy(deadline);
    return Fail(where, fmt::format("{} before its {}", Ending(), awaited));
  }
  KillAndReap();
  if (read == Read::kTimedOut) {
    return Fail(where, fmt::format("no {} within {:g} s; its process group was killed", awaited, timeout_s));
  }
  if (read == Read::kInterrupted) {
    return Fail(where, fmt::format("interrupted by {}", runner::SignalName(interrupt::Signal())));
  }
  return Fail(where, fmt::format("not the protocol: line longer than {} bytes", kMaxLineBytes));
}

std::string WorkerProcess::Ending() const {
  if (outcome_.status == runner::Outcome::Status::kExited)
    return fmt::format("exited with status {}", outcome_.exit_code);
  if (!outcome_.error.empty()) return outcome_.error;
  return "ended";
}

std::string WorkerProcess::StderrTail() const {
  if (stderr_path_.empty()) return "";
  std::string tail = runner::FileTail(stderr_path_, 3, 400);
  if (tail.empty()) return "; its stderr is empty";
  // One line: its lines joined, any other control byte shown as '?'.
  std::string joined;
  for (const char c : tail) {
    if (c == '\n') {
      joined += " | ";
    } else {
      joined += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
    }
  }
  return "; its stderr ends: " + joined;
}

std::string WorkerProcess::Fail(const std::string& where, const std::string& what) {
  error_ = fmt::format("worker '{}', {}: {}{}", name_, where, what, StderrTail());
  return error_;
}

}  // namespace pe::worker
