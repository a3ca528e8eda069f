#include "parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace pe::refdiff {
namespace {

TEST(ParallelFor, VisitsEveryIndexOnce) {
  for (int threads : {1, 2, 4}) {
    std::vector<std::atomic<int>> visits(10007);
    ParallelFor(visits.size(), 64, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) visits[i]++;
    });
    for (std::size_t i = 0; i < visits.size(); ++i) ASSERT_EQ(visits[i].load(), 1) << i << " threads " << threads;
  }
}

TEST(ParallelFor, RethrowsTheWorkersError) {
  EXPECT_THROW(ParallelFor(1000, 10, 2,
                           [](std::size_t begin, std::size_t) {
                             if (begin == 500) throw std::runtime_error("batch 50");
                           }),
               std::runtime_error);
}

TEST(ParallelSort, SortsLikeStdSort) {
  std::mt19937 random(3);
  std::vector<std::string> values(50000);
  for (auto& value : values) value = "//pkg" + std::to_string(random() % 100000) + ":t";
  std::vector<std::string> expected = values;
  std::sort(expected.begin(), expected.end());
  for (int threads : {1, 2, 3, 4}) {
    std::vector<std::string> sorted = values;
    ParallelSort(sorted.begin(), sorted.end(), threads, std::less<>());
    EXPECT_EQ(sorted, expected) << threads << " threads";
  }
}

TEST(ParallelFor, ZeroThreadsMeansAllCores) { EXPECT_GE(EffectiveThreads(0), 1); }

}  // namespace
}  // namespace pe::refdiff
