#include "engine/base/suggest.h"

#include <gtest/gtest.h>

#include "engine/base/error.h"

namespace pe::base {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(EditDistance("", ""), 0);
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(EditDistance("abc", ""), 3);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);  // the textbook Levenshtein example
  EXPECT_EQ(EditDistance("fan_in", "fanin"), 1);    // one deletion
  EXPECT_EQ(EditDistance("wrok", "work"), 1);       // a swap of neighbours is one typo
  EXPECT_EQ(EditDistance("ca", "abc"), 3);          // optimal string alignment, not Damerau: no edit after a swap
  EXPECT_EQ(EditDistance("work", "work"), 0);
}

TEST(NearestName, NearNamesOnly) {
  EXPECT_EQ(NearestName("roundz", {"rounds", "order", "seed"}), "rounds");
  EXPECT_EQ(NearestName("xyz", {"rounds", "order", "seed"}), "");
  EXPECT_EQ(NearestName("anything", {}), "");
}

TEST(NearestName, AboutOneTypoPerThreeCharacters) {
  // 6 characters allow 2 edits, 5 allow 1.
  EXPECT_EQ(NearestName("rouxdz", {"rounds"}), "rounds");
  EXPECT_EQ(NearestName("ruxds", {"rounds"}), "");
  // A short name needs at least one edit allowed, but never one that replaces it whole.
  EXPECT_EQ(NearestName("rn", {"run"}), "run");
  EXPECT_EQ(NearestName("3", {"1"}), "");
}

TEST(NearestName, TheNearestWinsAndTiesGoToTheFirst) {
  EXPECT_EQ(NearestName("seeds", {"speed", "seed"}), "seed");
  EXPECT_EQ(NearestName("bat", {"bar", "bag"}), "bar");
  EXPECT_EQ(NearestName("bat", {"bag", "bar"}), "bag");
}

TEST(DidYouMean, TheSuffixOrNothing) {
  EXPECT_EQ(DidYouMean("sede", {"seed"}), " (did you mean 'seed'?)");
  EXPECT_EQ(DidYouMean("xyz", {"seed"}), "");
}

TEST(UsageError, CarriesItsMessage) {
  try {
    throw UsageError("--workload: no such workload 'x'");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "--workload: no such workload 'x'");
  }
}

}  // namespace
}  // namespace pe::base
