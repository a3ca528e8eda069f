// The demo library's google/benchmark suite, as a project would keep it: nothing of perfengine's.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "checksum.h"

namespace {

void BM_checksum(benchmark::State& state) {
  std::vector<std::uint8_t> data(static_cast<std::size_t>(state.range(0)));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + 7);
  for (auto _ : state) benchmark::DoNotOptimize(demo::Checksum(data.data(), data.size()));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_checksum)->Arg(64)->Arg(4096);

}  // namespace

BENCHMARK_MAIN();
