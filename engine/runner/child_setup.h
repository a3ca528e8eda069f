// A Boost.Process initializer that prepares the child between fork and exec. Everything in
// on_exec_setup runs in the forked copy of a possibly multi-threaded engine, so it calls only
// async-signal-safe syscalls and touches only memory prepared in the parent.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process/extend.hpp>
#include <cerrno>
#include <csignal>
#include <system_error>

namespace pe {

struct ChildSetup : boost::process::extend::handler {
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  const char* cwd = nullptr;     // nullptr: stay where the engine is
  char* const* argv = nullptr;   // the argv as given, so argv[0] is what the spec wrote
  char** envp = nullptr;         // nullptr: the engine's own environment

  // Boost.Process's own environment class reads past the end of shorter names when looking
  // one up (Boost 1.74, seen under AddressSanitizer), so the runner builds envp itself.
  template <class Executor>
  void on_setup(Executor& exec) const {
    if (envp != nullptr) exec.env = envp;
  }

  template <class Executor>
  void on_exec_setup(Executor& exec) const {
    // Our own group, so a timeout or Ctrl-C can kill the child and all it started at once,
    // and the terminal's SIGINT reaches only the engine, which decides what to kill.
    if (::setpgid(0, 0) != 0) Fail(exec, "setpgid");
    // A mask inherited from an engine thread would survive exec and make SIGTERM ineffective.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    Redirect(exec, stdin_fd, STDIN_FILENO);
    Redirect(exec, stdout_fd, STDOUT_FILENO);
    Redirect(exec, stderr_fd, STDERR_FILENO);
    if (cwd != nullptr && ::chdir(cwd) != 0) Fail(exec, "chdir");
    // Engine descriptors opened without O_CLOEXEC (by any library) must not leak into the
    // contender; this marks them all, keeping only stdin, stdout and stderr.
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    if (argv != nullptr) exec.cmd_line = argv;
  }

  // Closes the race in which the engine signals the group before the child has created it.
  template <class Executor>
  void on_success(Executor& exec) const {
    ::setpgid(exec.pid, exec.pid);
  }

  // Boost forgets a child whose exec failed; reap it so it does not linger as a zombie.
  template <class Executor>
  void on_error(Executor& exec, const std::error_code&) const {
    if (exec.pid > 0) {
      while (::waitpid(exec.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }

 private:
  template <class Executor>
  static void Fail(Executor& exec, const char* what) {
    exec.set_error(std::error_code(errno, std::system_category()), what);
    ::_exit(127);
  }

  template <class Executor>
  static void Redirect(Executor& exec, int from, int to) {
    if (from == to) {
      ::fcntl(to, F_SETFD, 0);  // dup2 onto itself would leave O_CLOEXEC set
    } else if (::dup2(from, to) < 0) {
      Fail(exec, "dup2");
    }
  }
};

}  // namespace pe
