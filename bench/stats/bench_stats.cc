// bench_stats: how long the statistics of one workload take, the cost `perfengine run`
// pays per workload after measuring. One analysis = AnalyzePaired on 30 paired rounds
// with 30 startup runs per contender and 10,000 bootstrap resamples (two bootstraps:
// median speedup and startup-adjusted speedup). Prints the median over repetitions.
//
//   build/bin/bench_stats [repetitions]      (default 21)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

#include "stats/analysis.h"

namespace {

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

struct Timing {
  double wall = 0;
  double cpu = 0;  // unaffected by other processes sharing the cores
};

Timing TimeOne(const pe::stats::PairedInput& input, double& sink) {
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  const pe::stats::PairedAnalysis analysis = pe::stats::AnalyzePaired(input);
  const auto stop = std::chrono::steady_clock::now();
  const double cpu_stop = ThreadCpuSeconds();
  sink += analysis.speedup_ci.bca ? analysis.speedup_ci.bca->low : 0.0;  // keep the work alive
  return Timing{std::chrono::duration<double>(stop - start).count(), cpu_stop - cpu_start};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
  constexpr int kRounds = 30;
  std::mt19937_64 engine(2026);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> baseline, candidate, baseline_startup, candidate_startup;
  for (int i = 0; i < kRounds; ++i) {
    const double drift = std::exp(0.03 * noise(engine));
    baseline.push_back(0.40 * drift * std::exp(0.02 * noise(engine)));
    candidate.push_back(0.10 * drift * std::exp(0.02 * noise(engine)));
    baseline_startup.push_back(0.05 * std::exp(0.05 * noise(engine)));
    candidate_startup.push_back(0.01 * std::exp(0.05 * noise(engine)));
  }
  pe::stats::PairedInput input;
  input.baseline = baseline;
  input.candidate = candidate;
  input.baseline_startup = baseline_startup;
  input.candidate_startup = candidate_startup;
  input.resamples = 10000;
  input.seed = 1;

  double sink = 0;
  TimeOne(input, sink);  // warm caches and the allocator
  std::vector<double> wall;
  std::vector<double> cpu;
  for (int i = 0; i < repetitions; ++i) {
    const Timing t = TimeOne(input, sink);
    wall.push_back(t.wall);
    cpu.push_back(t.cpu);
  }
  std::printf("AnalyzePaired: %d rounds, %d resamples, %d repetitions\n", kRounds, input.resamples, repetitions);
  std::printf("  wall median %.2f ms (min %.2f, max %.2f)   cpu median %.2f ms   (aim: under 50 ms)\n",
              Median(wall) * 1e3, *std::min_element(wall.begin(), wall.end()) * 1e3,
              *std::max_element(wall.begin(), wall.end()) * 1e3, Median(cpu) * 1e3);
  return sink == 12345.0 ? 1 : 0;  // never true; stops the optimiser dropping the runs
}
