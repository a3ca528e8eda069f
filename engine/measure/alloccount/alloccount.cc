// The LD_PRELOAD interposer behind pe::measure::CountAllocations. It wraps the C allocation
// functions, counts calls and requested bytes, and at exit appends one line to the file named
// by PERFENGINE_ALLOC_OUT:
//   "pid malloc_calls calloc_calls realloc_calls memalign_calls free_calls bytes_allocated\n"
// or "pid own-malloc\n" from a program that defines malloc itself (so nothing reaches us).
// memalign_calls covers posix_memalign, aligned_alloc, memalign, valloc and pvalloc. C++
// operator new reaches malloc (or aligned_alloc) through the PLT, so it is counted too.
// A process reports at exit() and at _exit()/_Exit(); one that execs reports nothing for
// the part before exec (the new program reports for itself).
//
// Everything here runs inside someone else's process, at any time, on any thread: no locks,
// no allocation of our own, no stdio, only relaxed atomics and raw syscalls.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace {

using MallocFn = void* (*)(size_t);
using CallocFn = void* (*)(size_t, size_t);
using ReallocFn = void* (*)(void*, size_t);
using FreeFn = void (*)(void*);
using PosixMemalignFn = int (*)(void**, size_t, size_t);
using AlignedAllocFn = void* (*)(size_t, size_t);
using VallocFn = void* (*)(size_t);

struct RealFunctions {
  MallocFn malloc;
  CallocFn calloc;
  ReallocFn realloc;
  FreeFn free;
  PosixMemalignFn posix_memalign;
  AlignedAllocFn aligned_alloc;
  AlignedAllocFn memalign;
  VallocFn valloc;
  VallocFn pvalloc;
};

RealFunctions real;
// 0: not resolved, 1: dlsym in progress, 2: ready.
std::atomic<int> resolve_state{0};

// dlsym itself may call calloc or malloc (for its error buffer) before we know where the real
// ones are; those requests are served from here and never freed. Each block starts with a
// header holding its size, so realloc can copy it out.
constexpr size_t kBootstrapSize = 64 * 1024;
constexpr size_t kHeader = 16;
alignas(16) char bootstrap[kBootstrapSize];
std::atomic<size_t> bootstrap_used{0};

std::atomic<uint64_t> malloc_calls{0};
std::atomic<uint64_t> calloc_calls{0};
std::atomic<uint64_t> realloc_calls{0};
std::atomic<uint64_t> memalign_calls{0};
std::atomic<uint64_t> free_calls{0};
std::atomic<uint64_t> bytes_allocated{0};

// Set once this process has written its line, so a process that calls _exit() from a
// destructor does not report twice.
std::atomic<bool> reported{false};

// Set when the global `malloc` is not ours: the program itself defines one (an allocator
// linked statically into the executable), which the dynamic loader finds before any preload.
// Counting then sees nothing, so the process reports "pid own-malloc" instead of zeros.
bool malloc_overridden = false;

// Captured at load time: the program may clear or rewrite its environment before it exits.
char out_path[4096];
// $PERFENGINE_ALLOC_MARKS: a worker's markers (docs/workers.md, "Markers") are its getppid()
// calls around each batch's loop; at each, the running totals go to this file as a line.
char marks_path[4096];

bool InBootstrap(const void* p) {
  const char* c = static_cast<const char*>(p);
  return c >= bootstrap && c < bootstrap + kBootstrapSize;
}

void* BootstrapAlloc(size_t size) {
  size_t rounded = (size + kHeader + 15) & ~static_cast<size_t>(15);
  size_t offset = bootstrap_used.fetch_add(rounded, std::memory_order_relaxed);
  if (offset + rounded > kBootstrapSize) return nullptr;
  char* block = bootstrap + offset;
  memcpy(block, &size, sizeof size);
  return block + kHeader;
}

size_t BootstrapSize(const void* p) {
  size_t size;
  memcpy(&size, static_cast<const char*>(p) - kHeader, sizeof size);
  return size;
}

template <class Fn>
Fn Next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

// True once the real functions are known; false while dlsym is still looking them up (the
// caller then serves the request from the bootstrap buffer).
bool Ready() {
  int state = resolve_state.load(std::memory_order_acquire);
  if (state == 2) return true;
  int expected = 0;
  if (!resolve_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    return resolve_state.load(std::memory_order_acquire) == 2;
  }
  real.malloc = Next<MallocFn>("malloc");
  real.calloc = Next<CallocFn>("calloc");
  real.realloc = Next<ReallocFn>("realloc");
  real.free = Next<FreeFn>("free");
  real.posix_memalign = Next<PosixMemalignFn>("posix_memalign");
  real.aligned_alloc = Next<AlignedAllocFn>("aligned_alloc");
  real.memalign = Next<AlignedAllocFn>("memalign");
  real.valloc = Next<VallocFn>("valloc");
  real.pvalloc = Next<VallocFn>("pvalloc");
  resolve_state.store(2, std::memory_order_release);
  return true;
}

void Count(std::atomic<uint64_t>& calls, size_t bytes) {
  calls.fetch_add(1, std::memory_order_relaxed);
  bytes_allocated.fetch_add(bytes, std::memory_order_relaxed);
}

// A forked child starts with a copy of its parent's counters; it reports only its own calls.
void ResetInChild() {
  reported.store(false, std::memory_order_relaxed);
  malloc_calls.store(0, std::memory_order_relaxed);
  calloc_calls.store(0, std::memory_order_relaxed);
  realloc_calls.store(0, std::memory_order_relaxed);
  memalign_calls.store(0, std::memory_order_relaxed);
  free_calls.store(0, std::memory_order_relaxed);
  bytes_allocated.store(0, std::memory_order_relaxed);
}

char* AppendNumber(char* out, uint64_t value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) *out++ = digits[--n];
  return out;
}

__attribute__((constructor)) void Load() {
  const char* path = getenv("PERFENGINE_ALLOC_OUT");
  if (path != nullptr) {
    size_t length = strlen(path);
    if (length < sizeof out_path) memcpy(out_path, path, length + 1);
  }
  const char* marks = getenv("PERFENGINE_ALLOC_MARKS");
  if (marks != nullptr) {
    size_t length = strlen(marks);
    if (length < sizeof marks_path) memcpy(marks_path, marks, length + 1);
  }
  Ready();
  Dl_info global_malloc = {};
  Dl_info this_library = {};
  void* global = dlsym(RTLD_DEFAULT, "malloc");
  if (global != nullptr && dladdr(global, &global_malloc) != 0 &&
      dladdr(reinterpret_cast<void*>(&AppendNumber), &this_library) != 0) {
    malloc_overridden = global_malloc.dli_fbase != this_library.dli_fbase;
  }
  pthread_atfork(nullptr, nullptr, ResetInChild);
}

// O_APPEND and a single write: lines from concurrent processes never interleave. errno is the
// program's again afterwards.
void AppendLine(const char* path, const char* line, size_t length) {
  int saved_errno = errno;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ssize_t ignored = write(fd, line, length);
    (void)ignored;
    close(fd);
  }
  errno = saved_errno;
}

void Report() {
  if (out_path[0] == '\0' || reported.exchange(true)) return;
  char line[256];
  char* p = line;
  const uint64_t fields[] = {
      static_cast<uint64_t>(getpid()),
      malloc_calls.load(std::memory_order_relaxed),
      calloc_calls.load(std::memory_order_relaxed),
      realloc_calls.load(std::memory_order_relaxed),
      memalign_calls.load(std::memory_order_relaxed),
      free_calls.load(std::memory_order_relaxed),
      bytes_allocated.load(std::memory_order_relaxed),
  };
  const size_t field_count = malloc_overridden ? 1 : sizeof fields / sizeof fields[0];
  for (size_t i = 0; i < field_count; ++i) {
    if (i > 0) *p++ = ' ';
    p = AppendNumber(p, fields[i]);
  }
  if (malloc_overridden) {
    memcpy(p, " own-malloc", 11);
    p += 11;
  }
  *p++ = '\n';
  AppendLine(out_path, line, static_cast<size_t>(p - line));
}

// One marks line, "calls bytes" of this process's running totals, in a single write.
void Mark() {
  if (marks_path[0] == '\0') return;
  char line[64];
  char* p = AppendNumber(
      line, malloc_calls.load(std::memory_order_relaxed) + calloc_calls.load(std::memory_order_relaxed) +
                realloc_calls.load(std::memory_order_relaxed) + memalign_calls.load(std::memory_order_relaxed));
  *p++ = ' ';
  p = AppendNumber(p, bytes_allocated.load(std::memory_order_relaxed));
  *p++ = '\n';
  AppendLine(marks_path, line, static_cast<size_t>(p - line));
}

// Priority 101 runs after the program's own destructors, so their frees are counted too.
__attribute__((destructor(101))) void ReportAtExit() { Report(); }

// _exit() skips destructors; shells (dash) and many forked children end that way, so the
// process reports first and then leaves through the C library's own _exit.
using ExitFn = void (*)(int);

[[noreturn]] void ReportAndExit(const char* name, int status) {
  Report();
  auto real_exit = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, name));
  if (real_exit != nullptr) real_exit(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

}  // namespace

extern "C" {

// The worker protocol's marker (docs/workers.md): the totals are written, then the real call.
__attribute__((visibility("default"))) pid_t getppid(void) {
  Mark();
  return static_cast<pid_t>(syscall(SYS_getppid));
}

__attribute__((visibility("default"))) void* malloc(size_t size) {
  if (!Ready()) return BootstrapAlloc(size);
  Count(malloc_calls, size);
  return real.malloc(size);
}

__attribute__((visibility("default"))) void* calloc(size_t count, size_t size) {
  size_t total;
  bool overflow = __builtin_mul_overflow(count, size, &total);
  if (!Ready()) {
    if (overflow) return nullptr;
    void* p = BootstrapAlloc(total);  // static storage: already zero
    return p;
  }
  Count(calloc_calls, overflow ? 0 : total);
  return real.calloc(count, size);
}

__attribute__((visibility("default"))) void* realloc(void* old, size_t size) {
  if (!Ready()) {
    void* p = BootstrapAlloc(size);
    if (p != nullptr && old != nullptr) {
      size_t old_size = BootstrapSize(old);
      memcpy(p, old, old_size < size ? old_size : size);
    }
    return p;
  }
  Count(realloc_calls, size);
  if (old != nullptr && InBootstrap(old)) {
    void* p = real.malloc(size);
    if (p != nullptr) {
      size_t old_size = BootstrapSize(old);
      memcpy(p, old, old_size < size ? old_size : size);
    }
    return p;
  }
  return real.realloc(old, size);
}

// glibc's own reallocarray would call realloc internally and be counted twice; this one is
// realloc with glibc's overflow check.
__attribute__((visibility("default"))) void* reallocarray(void* old, size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(old, total);
}

// free(NULL) is a no-op and is not counted.
__attribute__((visibility("default"))) void free(void* p) {
  if (p == nullptr || InBootstrap(p)) return;
  if (!Ready()) return;  // cannot happen: nothing but bootstrap memory exists before Ready()
  free_calls.fetch_add(1, std::memory_order_relaxed);
  real.free(p);
}

__attribute__((visibility("default"))) int posix_memalign(void** out, size_t alignment, size_t size) {
  if (!Ready()) return ENOMEM;
  Count(memalign_calls, size);
  return real.posix_memalign(out, alignment, size);
}

__attribute__((visibility("default"))) void* aligned_alloc(size_t alignment, size_t size) {
  if (!Ready()) return nullptr;
  Count(memalign_calls, size);
  return real.aligned_alloc(alignment, size);
}

__attribute__((visibility("default"))) void* memalign(size_t alignment, size_t size) {
  if (!Ready()) return nullptr;
  Count(memalign_calls, size);
  return real.memalign(alignment, size);
}

__attribute__((visibility("default"))) void* valloc(size_t size) {
  if (!Ready()) return nullptr;
  Count(memalign_calls, size);
  return real.valloc(size);
}

__attribute__((visibility("default"))) void* pvalloc(size_t size) {
  if (!Ready()) return nullptr;
  Count(memalign_calls, size);
  return real.pvalloc(size);
}

__attribute__((visibility("default"), noreturn)) void _exit(int status) { ReportAndExit("_exit", status); }

__attribute__((visibility("default"), noreturn)) void _Exit(int status) { ReportAndExit("_Exit", status); }

}  // extern "C"
