/* A deterministic CPU-bound task for planted-regression trials (bench/verdicts). The
 * amount of work is ITERATIONS * (100 + EXTRA_PERCENT) / 100, so a build with
 * -DEXTRA_PERCENT=3 does exactly 3% more of the same work: a planted regression of known
 * size. Its output does not depend on EXTRA_PERCENT, so parity holds across builds.
 *
 * Without rebuilding (aa_suite.py, calibrate_vs_actual.py): `work [ITERATIONS [NAME]]` does
 * ITERATIONS instead of the built-in count, and the environment variable WORK_EXTRA="NAME:PCT"
 * plants PCT% more work only in the run whose NAME matches (a patch-free knob: one workload of
 * a suite, one contender). When $PERFENGINE_COUNTERS names a file (docs/counters.md), it
 * appends `loop_us MICROSECONDS us`: the CPU time of the loop alone, a noisy counter that
 * excludes the process's start-up. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef EXTRA_PERCENT
#define EXTRA_PERCENT 0
#endif
#ifndef ITERATIONS
#define ITERATIONS 12000000ULL
#endif

static double CpuMicroseconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* PCT from WORK_EXTRA="NAME:PCT" when NAME is this run's name, else 0. */
static uint64_t PlantedPercent(const char* name) {
  const char* knob = getenv("WORK_EXTRA");
  if (knob == NULL || name == NULL) return 0;
  const char* colon = strrchr(knob, ':');
  if (colon == NULL || (size_t)(colon - knob) != strlen(name) || strncmp(knob, name, strlen(name)) != 0) return 0;
  return strtoull(colon + 1, NULL, 10);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    puts("work 1");
    return 0;
  }
  const uint64_t base = argc > 1 ? strtoull(argv[1], NULL, 10) : ITERATIONS;
  const uint64_t extra = EXTRA_PERCENT + PlantedPercent(argc > 2 ? argv[2] : NULL);
  const uint64_t n = base * (100 + extra) / 100;
  const double start = CpuMicroseconds();
  volatile uint64_t sink = 0;
  uint64_t x = 88172645463325252ULL;
  for (uint64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    sink += x & 0xff;
  }
  (void)sink;
  const double loop_us = CpuMicroseconds() - start;
  const char* counters = getenv("PERFENGINE_COUNTERS");
  if (counters != NULL && counters[0] != '\0') {
    FILE* f = fopen(counters, "a");
    if (f == NULL) return 3;
    fprintf(f, "loop_us %.3f us\n", loop_us > 0.001 ? loop_us : 0.001);
    if (fclose(f) != 0) return 3;
  }
  puts("done");
  return 0;
}
