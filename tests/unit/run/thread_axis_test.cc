// A threads axis past the machine's cores is warned about; one within them is not.
#include "engine/run/thread_axis.h"

#include <gtest/gtest.h>

namespace pe::run {
namespace {

spec::Spec SpecWithThreads(const std::string& threads) {
  return spec::ParseSpecText(
      "[contenders.baseline]\nargv = [\"true\"]\n[contenders.candidate]\nargv = [\"true\"]\n"
      "[workloads.dense]\nargs = [\"{threads}\"]\n[workloads.dense.sweep]\nthreads = " +
          threads + "\nmode = [\"a\", \"b\"]\n",
      "x.toml");
}

TEST(ThreadAxisWarnings, PastTheCoresOnly) {
  EXPECT_EQ(ThreadAxisWarnings(SpecWithThreads("[1, 2, 8]"), 2),
            (std::vector<std::string>{"sweep 'dense' runs up to 8 threads on a 2-core machine: past 2 threads its "
                                      "throughput and scaling efficiency measure contention for cores, not scaling"}));
  EXPECT_TRUE(ThreadAxisWarnings(SpecWithThreads("[1, 2]"), 2).empty());
  EXPECT_TRUE(ThreadAxisWarnings(SpecWithThreads("[1, 2, 8]"), 8).empty());
}

}  // namespace
}  // namespace pe::run
