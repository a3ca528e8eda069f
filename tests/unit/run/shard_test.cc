#include "engine/run/shard.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/spec/spec_error.h"

namespace pe::run {
namespace {

TEST(ShardTest, RoundRobinOverSortedNamesKeepsTheGivenOrder) {
  const std::vector<std::string> names = {"zeta", "alpha", "mu", "beta", "omega"};
  // Sorted: alpha beta mu omega zeta.
  EXPECT_EQ(ShardNames(names, {1, 2}), (std::vector<std::string>{"zeta", "alpha", "mu"}));
  EXPECT_EQ(ShardNames(names, {2, 2}), (std::vector<std::string>{"beta", "omega"}));
  EXPECT_EQ(ShardNames(names, {1, 1}), names);
  EXPECT_EQ(ShardNames(names, {5, 5}), (std::vector<std::string>{"zeta"}));
  EXPECT_TRUE(ShardNames({"a", "b"}, {3, 4}).empty());  // more shards than workloads: some run none
}

TEST(ShardTest, EveryNameLandsInExactlyOneShardWhateverTheOrder) {
  std::vector<std::string> names;
  for (int i = 0; i < 23; ++i) names.push_back("w" + std::to_string(i * 7 % 23));
  for (int n = 1; n <= 6; ++n) {
    std::vector<std::string> all;
    size_t smallest = names.size(), largest = 0;
    for (int k = 1; k <= n; ++k) {
      const auto mine = ShardNames(names, {k, n});
      smallest = std::min(smallest, mine.size());
      largest = std::max(largest, mine.size());
      // Reordering the spec does not move a workload to another shard.
      std::vector<std::string> reversed(names.rbegin(), names.rend());
      auto again = ShardNames(reversed, {k, n});
      std::sort(again.begin(), again.end());
      auto sorted = mine;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(again, sorted);
      all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    auto expected = names;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(all, expected) << n << " shards";
    EXPECT_LE(largest - smallest, 1u) << n << " shards";
  }
}

TEST(ShardTest, ParsesKOverNAndSaysWhatIsWrong) {
  EXPECT_EQ(ParseShard("2/4").index, 2);
  EXPECT_EQ(ParseShard("2/4").count, 4);
  EXPECT_EQ(ParseShard("1/1").count, 1);
  for (const char* bad : {"0/4", "5/4", "2", "2/", "/4", "a/4", "2/4x", "-1/4", "2/0", ""}) {
    try {
      ParseShard(bad);
      ADD_FAILURE() << bad;
    } catch (const spec::UsageError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--shard: '") + bad + "' must be K/N with 1 <= K <= N, e.g. 2/4");
    }
  }
}

}  // namespace
}  // namespace pe::run
