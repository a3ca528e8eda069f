/* A perfengine worker in C or C++, linking nothing (docs/workers.md, protocol version 1).
 *
 *   pe_worker w;
 *   pe_request r;
 *   if (pe_worker_open(&w) != 0) return 2;            // PERFENGINE_WORKER_FDS missing or bad
 *   pe_worker_hello(&w, "parse,generate", "");        // benchmarks, counters (comma lists)
 *   while (pe_worker_next(&w, &r) == 1) {             // 0: quit; -1: not the protocol
 *     pe_timer t; pe_batch b;
 *     pe_timer_start(&t);
 *     for (int64_t i = 0; i < r.iterations; ++i) run_it(r.name);
 *     pe_timer_stop(&t, &b);
 *     pe_worker_done(&w, &r, &b, "-", NULL, NULL, 0);  // digest, counters' names and growth
 *   }
 *
 * Header only, C99 or C++11 and later, POSIX (in strict C, define _POSIX_C_SOURCE 200809L before
 * any include, for clock_gettime and F_DUPFD_CLOEXEC). Every function returns -1 with errno set
 * (EPROTO for a line that is not the protocol) on failure; a worker should then exit non-zero,
 * and perfengine reports its stderr. One worker per process, used from one thread. */
#ifndef PERFENGINE_WORKER_H_
#define PERFENGINE_WORKER_H_

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PE_WORKER_PROTOCOL_VERSION 1
#define PE_WORKER_MAX_LINE 65536 /* bytes in a line, its newline excluded */
#define PE_WORKER_MAX_NAME 128   /* bytes in a benchmark's or a counter's name */
#define PE_WORKER_FNV_OFFSET 14695981039346656037ULL

typedef struct pe_worker {
  int in_fd;  /* requests come from here */
  int out_fd; /* replies go here */
  size_t len; /* bytes in buf not yet returned as lines */
  char buf[PE_WORKER_MAX_LINE + 1];
} pe_worker;

typedef struct pe_request {
  char name[PE_WORKER_MAX_NAME + 1];
  int64_t iterations;
} pe_request;

/* The clocks at a batch's start. */
typedef struct pe_timer {
  struct timespec wall, process, thread;
} pe_timer;

/* One batch's figures, in nanoseconds. */
typedef struct pe_batch {
  int64_t thread_cpu_ns;  /* the thread that ran the loop: what the benchmark itself cost */
  int64_t process_cpu_ns; /* every thread: a runtime's collector and compiler too */
  int64_t wall_ns;
} pe_batch;

static inline int pe_worker_name_ok_(const char* s, size_t n) {
  size_t i;
  if (n == 0 || n > PE_WORKER_MAX_NAME) return 0;
  for (i = 0; i < n; ++i) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == ':' || c == '/' || c == '+' || c == '-'))
      return 0;
  }
  return 1;
}

static inline int pe_worker_write_(pe_worker* w, const char* text, size_t n) {
  while (n > 0) {
    ssize_t k = write(w->out_fd, text, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    text += k;
    n -= (size_t)k;
  }
  return 0;
}

/* PERFENGINE_WORKER_SHIFT (docs/workers.md, "Layout"): a seed perfengine draws anew for each round
 * and contender (empty for counting workers). A block of 1 to 16,384 bytes drawn from it is
 * allocated and kept for the process, so what the worker allocates after it lies at other offsets
 * in every round. pe_worker_open calls it; a worker that sets its benchmarks up before opening the
 * channel calls it first. */
static inline void pe_worker_shift(void) {
  static void* kept = NULL;
  const char* seed = getenv("PERFENGINE_WORKER_SHIFT");
  char* end = NULL;
  unsigned long long s;
  if (kept != NULL || seed == NULL || *seed < '0' || *seed > '9') return;
  s = strtoull(seed, &end, 10);
  if (*end != '\0') return;
  s ^= s >> 33; /* a seed's low bits alone would do; mixed, nearby seeds give unrelated sizes */
  s *= 0xff51afd7ed558ccdULL;
  s ^= s >> 33;
  kept = malloc(1 + (size_t)(s % 16384));
}

/* Finds the channel in PERFENGINE_WORKER_FDS ("IN,OUT"). A channel on stdin (perfengine gives
 * "0,0") moves to a descriptor of its own and stdin becomes /dev/null, so a benchmark that reads
 * stdin reads nothing rather than the protocol. The channel is close-on-exec: a program the
 * benchmark runs does not inherit it. */
static inline int pe_worker_open(pe_worker* w) {
  const char* fds = getenv("PERFENGINE_WORKER_FDS");
  char* end = NULL;
  long in, out;
  pe_worker_shift();
  w->len = 0;
  if (fds == NULL) {
    errno = ENOENT;
    return -1;
  }
  in = strtol(fds, &end, 10);
  if (end == fds || *end != ',' || in < 0) {
    errno = EINVAL;
    return -1;
  }
  fds = end + 1;
  out = strtol(fds, &end, 10);
  if (end == fds || *end != '\0' || out < 0) {
    errno = EINVAL;
    return -1;
  }
  w->in_fd = (int)in;
  w->out_fd = (int)out;
  if (in == 0 || out == 0) {
    int moved = fcntl(0, F_DUPFD_CLOEXEC, 3);
    int null_fd = open("/dev/null", O_RDONLY);
    if (moved < 0 || null_fd < 0 || dup2(null_fd, 0) < 0) return -1;
    if (null_fd != 0) close(null_fd);
    if (in == 0) w->in_fd = moved;
    if (out == 0) w->out_fd = moved;
  }
  if (fcntl(w->in_fd, F_SETFD, FD_CLOEXEC) != 0 || fcntl(w->out_fd, F_SETFD, FD_CLOEXEC) != 0) return -1;
  return 0;
}

/* benchmarks: "a,b,c" (at least one); counters: "x,y" or "" for none. */
static inline int pe_worker_hello(pe_worker* w, const char* benchmarks, const char* counters) {
  char line[PE_WORKER_MAX_LINE + 2];
  int n = counters != NULL && counters[0] != '\0'
              ? snprintf(line, sizeof line, "hello version=%d benchmarks=%s counters=%s\n", PE_WORKER_PROTOCOL_VERSION,
                         benchmarks, counters)
              : snprintf(line, sizeof line, "hello version=%d benchmarks=%s\n", PE_WORKER_PROTOCOL_VERSION, benchmarks);
  if (n < 0 || (size_t)n >= sizeof line) {
    errno = E2BIG;
    return -1;
  }
  return pe_worker_write_(w, line, (size_t)n);
}

/* Reads the next request: 1 with *r filled for `run NAME ITERATIONS`, 0 for `quit` or the end of
 * the channel (perfengine has gone: exit), -1 for anything else. */
static inline int pe_worker_next(pe_worker* w, pe_request* r) {
  for (;;) {
    char* newline = (char*)memchr(w->buf, '\n', w->len);
    if (newline != NULL) {
      size_t n = (size_t)(newline - w->buf);
      char* space;
      int result = -1;
      *newline = '\0';
      if (strcmp(w->buf, "quit") == 0) {
        result = 0;
      } else if (strncmp(w->buf, "run ", 4) == 0 && (space = strchr(w->buf + 4, ' ')) != NULL) {
        size_t name_len = (size_t)(space - (w->buf + 4));
        const char* digits = space + 1;
        int64_t count = 0;
        int ok = pe_worker_name_ok_(w->buf + 4, name_len) && *digits != '\0';
        for (; ok && *digits != '\0'; ++digits) {
          if (*digits < '0' || *digits > '9' || count > (INT64_MAX - 9) / 10)
            ok = 0;
          else
            count = count * 10 + (*digits - '0');
        }
        if (ok && count >= 1) {
          memcpy(r->name, w->buf + 4, name_len);
          r->name[name_len] = '\0';
          r->iterations = count;
          result = 1;
        }
      }
      memmove(w->buf, newline + 1, w->len - n - 1);
      w->len -= n + 1;
      if (result < 0) errno = EPROTO;
      return result;
    }
    if (w->len >= PE_WORKER_MAX_LINE + 1) {
      errno = EPROTO;
      return -1;
    }
    {
      ssize_t k = read(w->in_fd, w->buf + w->len, sizeof w->buf - w->len);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) return -1;
      if (k == 0) return 0;
      w->len += (size_t)k;
    }
  }
}

static inline int64_t pe_worker_ns_(struct timespec a, struct timespec b) {
  return (int64_t)(b.tv_sec - a.tv_sec) * 1000000000 + (int64_t)(b.tv_nsec - a.tv_nsec);
}

/* Wall first and thread last, so the CPU clocks' window lies inside the wall clock's. The
 * getppid() calls are the measuring window's markers (docs/workers.md, "Markers"): under callgrind
 * the engine zeroes and dumps the counts at each, and its allocation counter interposes it, so
 * instructions and allocations are the batch's alone. A benchmark must not call getppid(). */
static inline void pe_timer_start(pe_timer* t) {
  (void)getppid();
  clock_gettime(CLOCK_MONOTONIC, &t->wall);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t->process);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t->thread);
}

static inline void pe_timer_stop(const pe_timer* t, pe_batch* b) {
  struct timespec thread, process, wall;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &thread);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &process);
  clock_gettime(CLOCK_MONOTONIC, &wall);
  (void)getppid();
  b->thread_cpu_ns = pe_worker_ns_(t->thread, thread);
  b->process_cpu_ns = pe_worker_ns_(t->process, process);
  b->wall_ns = pe_worker_ns_(t->wall, wall);
}

/* The reply to `r`. digest: of the benchmark's result, printable without spaces, at most 128
 * bytes ("-": none); counters: every counter the hello named, in any order, with its growth. */
static inline int pe_worker_done(pe_worker* w, const pe_request* r, const pe_batch* b, const char* digest,
                                 const char* const* counter_names, const int64_t* counter_growth, size_t ncounters) {
  char line[PE_WORKER_MAX_LINE + 2];
  size_t i;
  int n = snprintf(line, sizeof line,
                   "done name=%s iterations=%lld thread_cpu_ns=%lld process_cpu_ns=%lld wall_ns=%lld digest=%s",
                   r->name, (long long)r->iterations, (long long)b->thread_cpu_ns, (long long)b->process_cpu_ns,
                   (long long)b->wall_ns, digest);
  for (i = 0; i < ncounters && n >= 0 && (size_t)n < sizeof line; ++i) {
    int k =
        snprintf(line + n, sizeof line - (size_t)n, " counter.%s=%lld", counter_names[i], (long long)counter_growth[i]);
    n = k < 0 ? k : n + k;
  }
  if (n < 0 || (size_t)n + 1 >= sizeof line) {
    errno = E2BIG;
    return -1;
  }
  line[n++] = '\n';
  return pe_worker_write_(w, line, (size_t)n);
}

/* The benchmark could not run (an exception, a missing file): reason is free text on one line. */
static inline int pe_worker_failed(pe_worker* w, const char* name, const char* reason) {
  char line[PE_WORKER_MAX_LINE + 2];
  int n;
  if (strchr(reason, '\n') != NULL) {
    errno = EINVAL;
    return -1;
  }
  n = snprintf(line, sizeof line, "failed name=%s reason=%s\n", name, reason);
  if (n < 0 || (size_t)n >= sizeof line) {
    errno = E2BIG;
    return -1;
  }
  return pe_worker_write_(w, line, (size_t)n);
}

/* FNV-1a, 64 bits: a digest of a result's bytes, fed in pieces (start from PE_WORKER_FNV_OFFSET).
 * For parity only (did both versions compute the same thing), not for security. */
static inline uint64_t pe_worker_fnv1a(uint64_t hash, const void* data, size_t n) {
  const unsigned char* p = (const unsigned char*)data;
  size_t i;
  for (i = 0; i < n; ++i) {
    hash ^= p[i];
    hash *= 1099511628211ULL;
  }
  return hash;
}

#endif /* PERFENGINE_WORKER_H_ */
