// What starting a minder costs the spawner (issue 27): fork() against clone(CLONE_VM), in a
// static program as small as perfengine-spawner. Built and run by minder_start_cost.py.
//
// For each way: the call alone (time in the parent until fork/clone returns) and the round
// trip (start, the new process touches a few pages of stack and data as a minder does, exits,
// and the parent reaps it), per start, in microseconds.
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kStackBytes = 128 * 1024, kTouched = 6 };
static char g_data[kTouched * 4096];  // pages a minder writes: its request, buffers

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int Minder(void* arg) {
  volatile char stack[3 * 4096];
  for (size_t i = 0; i < sizeof stack; i += 4096) stack[i] = 1;
  for (size_t i = 0; i < sizeof g_data; i += 4096) g_data[i] = (char)i;
  _exit(0);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 2000;
  char* stack = mmap(NULL, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return 2;
  memset(g_data, 1, sizeof g_data);
  double fork_call = 0, clone_call = 0;
  double start = Now();
  for (int i = 0; i < n; ++i) {
    const double t = Now();
    const pid_t pid = fork();
    if (pid == 0) Minder(NULL);
    fork_call += Now() - t;
    waitpid(pid, NULL, 0);
  }
  const double fork_trip = Now() - start;
  start = Now();
  for (int i = 0; i < n; ++i) {
    const double t = Now();
    const pid_t pid = clone(Minder, stack + kStackBytes, CLONE_VM | SIGCHLD, NULL);
    clone_call += Now() - t;
    waitpid(pid, NULL, 0);
  }
  const double clone_trip = Now() - start;
  printf("%.1f %.1f %.1f %.1f\n", fork_call / n * 1e6, fork_trip / n * 1e6, clone_call / n * 1e6, clone_trip / n * 1e6);
  return 0;
}
