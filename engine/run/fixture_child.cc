#include "engine/run/fixture_child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "engine/runner/interrupt.h"

namespace pe::run {

namespace {

void WriteAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// One maker's child, seen from the engine: its group, the read end of its answer pipe.
struct Child {
  std::size_t index = 0;
  pid_t pid = -1;
  int fd = -1;
  std::string answer;
};

// Forks a child that runs `make` in a group of its own and writes "+DIR" or "-ERROR" to a
// pipe; returns its pid and the pipe's read end, the group registered for interrupts.
Child Start(std::size_t index, const std::function<std::filesystem::path()>& make) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const pid_t engine = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    // An engine killed with SIGKILL cannot kill us: the kernel does, or a generator orphaned
    // in its own group would go on writing hundreds of MB into the cache. The engine may have
    // died before the prctl: then our parent is already someone else.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != engine) ::_exit(1);
    ::setpgid(0, 0);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
    ::close(fds[0]);
    std::string answer;
    try {
      answer = "+" + make().string();
    } catch (const std::exception& e) {
      answer = std::string("-") + e.what();
    } catch (...) {
      answer = "-unknown error";
    }
    WriteAll(fds[1], answer);
    ::_exit(0);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first, the group exists before a kill
  interrupt::RegisterGroup(pid);
  ::close(fds[1]);
  return Child{.index = index, .pid = pid, .fd = fds[0], .answer = {}};
}

// Reaps a child whose pipe is closed (or that was killed), kills what it left in its group,
// and says what became of it.
MadeInChild Finish(Child& child) {
  if (child.fd >= 0) ::close(child.fd);
  child.fd = -1;
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-child.pid, SIGKILL);  // anything the generator started and left behind
  interrupt::UnregisterGroup(child.pid);
  MadeInChild made;
  if (child.answer.empty()) {
    made.state = MadeInChild::State::kFailed;
    made.error = WIFSIGNALED(status) ? fmt::format("the generator was killed by signal {} ({})", WTERMSIG(status),
                                                   ::strsignal(WTERMSIG(status)))
                                     : "the generator process ended without an answer";
  } else if (child.answer[0] == '-') {
    made.state = MadeInChild::State::kFailed;
    made.error = child.answer.substr(1);
  } else {
    made.state = MadeInChild::State::kMade;
    made.dir = child.answer.substr(1);
  }
  return made;
}

}  // namespace

std::vector<MadeInChild> MakeInChildren(std::span<const std::function<std::filesystem::path()>> makes,
                                        std::size_t at_once, const std::function<void()>& after_kill,
                                        const std::function<void(std::size_t)>& on_start) {
  at_once = std::max<std::size_t>(at_once, 1);
  std::vector<MadeInChild> made(makes.size());
  std::vector<Child> running;
  std::size_t next = 0;
  bool failed = false;
  bool unanswered = false;  // a child ended without an answer: after_kill is due
  auto finish = [&](Child& child) {
    const bool killed = child.answer.empty();
    made[child.index] = Finish(child);
    unanswered = unanswered || killed;
    failed = failed || made[child.index].state == MadeInChild::State::kFailed;
  };
  // Every child goes with the engine's interrupt, and with an exception of its own (a failed
  // fork): none is left writing.
  auto kill_all = [&] {
    for (Child& child : running) ::kill(-child.pid, SIGKILL);
    for (Child& child : running) finish(child);
    running.clear();
  };
  try {
    while (true) {
      if (interrupt::Interrupted()) break;
      while (!failed && next < makes.size() && running.size() < at_once) {
        if (on_start) on_start(next);
        running.push_back(Start(next, makes[next]));
        ++next;
      }
      if (running.empty()) break;
      std::vector<pollfd> polls;
      for (const Child& child : running) polls.push_back({child.fd, POLLIN, 0});
      if (interrupt::WakeFd() >= 0) polls.push_back({interrupt::WakeFd(), POLLIN, 0});
      const int ready = ::poll(polls.data(), polls.size(), 200);
      if (ready < 0 && errno != EINTR) {
        throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
      }
      if (ready <= 0) continue;
      for (std::size_t i = running.size(); i-- > 0;) {
        if (!(polls[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buffer[4096];
        const ssize_t n = ::read(running[i].fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n > 0) {
          running[i].answer.append(buffer, static_cast<std::size_t>(n));
          continue;
        }
        finish(running[i]);  // end of its answer: the child is exiting
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  } catch (...) {
    kill_all();
    if (unanswered && after_kill) after_kill();
    throw;
  }
  const bool interrupted = interrupt::Interrupted();
  kill_all();  // empty unless interrupted
  // Killed before it answered (here, or by anyone): clean what it was writing, now that it is gone.
  if (unanswered && after_kill) after_kill();
  if (interrupted || interrupt::Interrupted()) throw FixtureInterrupted();
  return made;
}

std::filesystem::path MakeInChild(const std::function<std::filesystem::path()>& make,
                                  const std::function<void()>& after_kill) {
  const std::function<std::filesystem::path()> makes[] = {make};
  const MadeInChild made = MakeInChildren(makes, 1, after_kill).front();
  if (made.state != MadeInChild::State::kMade) throw std::runtime_error(made.error);
  return made.dir;
}

}  // namespace pe::run
