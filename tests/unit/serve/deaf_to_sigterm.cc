// deaf-to-sigterm PROGRAM ARGS...: runs PROGRAM with SIGTERM blocked, so it never sees the
// engine's polite stop and only SIGKILL ends it. A blocked signal stays blocked across exec
// and stays pending even where the program installs a handler, so any server can be made
// deaf this way (here: stub-http-server, for the stop-grace tests).
#include <signal.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: deaf-to-sigterm PROGRAM ARGS...\n");
    return 2;
  }
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigprocmask(SIG_BLOCK, &term, nullptr);
  execv(argv[1], argv + 1);
  std::perror("deaf-to-sigterm: exec");
  return 127;
}
