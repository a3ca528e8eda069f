/* A deterministic CPU-bound task for planted-regression trials (bench/verdicts). The
 * amount of work is ITERATIONS * (100 + EXTRA_PERCENT) / 100, so a build with
 * -DEXTRA_PERCENT=3 does exactly 3% more of the same work: a planted regression of known
 * size. Its output does not depend on EXTRA_PERCENT, so parity holds across builds. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef EXTRA_PERCENT
#define EXTRA_PERCENT 0
#endif
#ifndef ITERATIONS
#define ITERATIONS 12000000ULL
#endif

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    puts("work 1");
    return 0;
  }
  const uint64_t n = ITERATIONS * (uint64_t)(100 + EXTRA_PERCENT) / 100;
  volatile uint64_t sink = 0;
  uint64_t x = 88172645463325252ULL;
  for (uint64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    sink += x & 0xff;
  }
  (void)sink;
  puts("done");
  return 0;
}
