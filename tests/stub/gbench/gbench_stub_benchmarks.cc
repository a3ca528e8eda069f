// A google/benchmark suite for perfengine-gbench-worker's tests (tests/unit/worker/
// gbench_adapter_test.cc), built against Debian's libbenchmark-dev as a user's suite would be,
// with BENCHMARK_MAIN and nothing of perfengine's.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace {

void BM_sum(benchmark::State& state) {
  for (auto _ : state) {
    std::uint64_t sum = 0;
    for (std::uint64_t k = 1; k <= 1000; ++k) {
      sum += k * k;
      benchmark::DoNotOptimize(sum);
    }
  }
}
BENCHMARK(BM_sum);
// Unescaped, "^BM_sum+$" would select BM_sum and not this one.
BENCHMARK(BM_sum)->Name("BM_sum+");

void BM_error(benchmark::State& state) {
  state.SkipWithError("fixture missing: data.json");
  for (auto _ : state) {
  }
}
BENCHMARK(BM_error);

// 1 ms of sleep per iteration, reported in milliseconds of real time.
void BM_sleep(benchmark::State& state) {
  for (auto _ : state) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
BENCHMARK(BM_sleep)->Unit(benchmark::kMillisecond)->UseRealTime();

template <typename T>
void BM_tmpl(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(T(42));
}
BENCHMARK_TEMPLATE(BM_tmpl, int);

// BM_sum's work, each run's iteration count appended to $GBENCH_STUB_LOG: the last line is the
// count of the run google/benchmark reported.
void BM_count(benchmark::State& state) {
  BM_sum(state);
  if (const char* log = std::getenv("GBENCH_STUB_LOG")) std::ofstream(log, std::ios::app) << state.iterations() << "\n";
}
BENCHMARK(BM_count);

// The whole binary dies: the adapter must reply `failed` and stay up.
void BM_abort(benchmark::State& state) {
  for (auto _ : state) std::abort();
}
BENCHMARK(BM_abort);

}  // namespace

BENCHMARK_MAIN();
