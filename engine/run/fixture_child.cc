#include "engine/run/fixture_child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace

std::filesystem::path MakeInChild(const std::function<std::filesystem::path()>& make,
                                  const std::function<void()>& after_kill) {
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
  std::string answer;
  bool interrupted = false;
  while (true) {
    if (interrupt::Interrupted()) {
      interrupted = true;
      break;
    }
    pollfd polls[2] = {{fds[0], POLLIN, 0}, {interrupt::WakeFd(), POLLIN, 0}};
    const int ready = ::poll(polls, interrupt::WakeFd() >= 0 ? 2 : 1, 200);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0 || !(polls[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buffer[4096];
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (interrupted) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-pid, SIGKILL);  // anything the generator started and left behind
  interrupt::UnregisterGroup(pid);
  // Killed before it answered (here, or by anyone): clean what it was writing, now that it is gone.
  if (answer.empty() && after_kill) after_kill();
  if (interrupted || interrupt::Interrupted()) throw FixtureInterrupted();
  if (answer.empty()) {
    throw std::runtime_error(WIFSIGNALED(status) ? fmt::format("the generator was killed by signal {} ({})",
                                                               WTERMSIG(status), ::strsignal(WTERMSIG(status)))
                                                 : "the generator process ended without an answer");
  }
  if (answer[0] == '-') throw std::runtime_error(answer.substr(1));
  return answer.substr(1);
}

}  // namespace pe::run
