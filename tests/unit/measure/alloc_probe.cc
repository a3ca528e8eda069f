// A contender whose allocations the tests know exactly.
//   alloc_probe malloc N   N malloc(64) calls, each freed
//   alloc_probe kinds      one calloc, realloc, posix_memalign and aligned_alloc, each freed
//   alloc_probe fork N     a forked child does `malloc N` and exits; the parent waits
//   alloc_probe spawn N    a forked child execs `alloc_probe malloc N`; the parent waits
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// Kept where the compiler cannot see them die, so no malloc/free pair is optimised away.
void* volatile blocks[100000];

void Mallocs(int n) {
  for (int i = 0; i < n; ++i) blocks[i] = malloc(64);
  for (int i = 0; i < n; ++i) free(blocks[i]);
}

void Kinds() {
  blocks[0] = calloc(10, 8);
  blocks[0] = realloc(blocks[0], 200);
  void* aligned = nullptr;
  if (posix_memalign(&aligned, 64, 128) != 0) exit(3);
  blocks[1] = aligned;
  blocks[2] = aligned_alloc(64, 256);
  for (int i = 0; i < 3; ++i) free(blocks[i]);
}

int WaitFor(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 4;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const int n = argc > 2 ? atoi(argv[2]) : 0;
  if (n < 0 || n > 100000) return 2;
  if (strcmp(argv[1], "malloc") == 0) {
    Mallocs(n);
  } else if (strcmp(argv[1], "kinds") == 0) {
    Kinds();
  } else if (strcmp(argv[1], "fork") == 0) {
    pid_t pid = fork();
    if (pid == 0) {
      Mallocs(n);
      exit(0);
    }
    return WaitFor(pid);
  } else if (strcmp(argv[1], "spawn") == 0) {
    pid_t pid = fork();
    if (pid == 0) {
      char* child_argv[] = {argv[0], const_cast<char*>("malloc"), argv[2], nullptr};
      execv("/proc/self/exe", child_argv);
      _exit(6);
    }
    return WaitFor(pid);
  } else {
    return 2;
  }
  return 0;
}
