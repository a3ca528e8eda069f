// stats::BootstrapMedianRatioUnpaired: the resampling procedure pinned by redoing it with
// the public pieces, plus its edge cases.
#include <gtest/gtest.h>

#include <vector>

#include "stats/bootstrap.h"
#include "stats/descriptive.h"
#include "stats/error.h"
#include "stats/random.h"

namespace pe::stats {
namespace {

const std::vector<double> kBefore = {1.00, 1.10, 0.95, 1.05, 1.20, 0.98, 1.02};
const std::vector<double> kAfter = {0.50, 0.52, 0.49, 0.55, 0.51};

TEST(UnpairedBootstrap, PercentileIntervalIsThatOfIndependentResamples) {
  const BootstrapOptions options{0.90, 500, 7};
  const BootstrapResult r = BootstrapMedianRatioUnpaired(kBefore, kAfter, options);
  // The same draws, made by hand: before's indices, then after's, per replicate.
  Random rng(7);
  std::vector<double> replicates;
  for (int i = 0; i < 500; ++i) {
    std::vector<double> b, a;
    for (std::size_t j = 0; j < kBefore.size(); ++j) b.push_back(kBefore[rng.Below(kBefore.size())]);
    for (std::size_t j = 0; j < kAfter.size(); ++j) a.push_back(kAfter[rng.Below(kAfter.size())]);
    replicates.push_back(Median(b) / Median(a));
  }
  ASSERT_TRUE(r.percentile);
  EXPECT_DOUBLE_EQ(r.percentile->low, Quantile(replicates, 0.05));
  EXPECT_DOUBLE_EQ(r.percentile->high, Quantile(replicates, 0.95));
  EXPECT_EQ(r.estimate, Median(kBefore) / Median(kAfter));
  EXPECT_EQ(r.resamples, 500);
  EXPECT_EQ(r.seed, 7u);
  ASSERT_TRUE(r.bca);
  EXPECT_LE(r.bca->low, r.estimate);
  EXPECT_GE(r.bca->high, r.estimate);
}

TEST(UnpairedBootstrap, SameSeedSameBitsOtherSeedOtherDraws) {
  const BootstrapResult a = BootstrapMedianRatioUnpaired(kBefore, kAfter, {0.95, 1000, 3});
  const BootstrapResult b = BootstrapMedianRatioUnpaired(kBefore, kAfter, {0.95, 1000, 3});
  const BootstrapResult c = BootstrapMedianRatioUnpaired(kBefore, kAfter, {0.95, 1000, 4});
  EXPECT_EQ(a.bca->low, b.bca->low);
  EXPECT_EQ(a.bca->high, b.bca->high);
  EXPECT_EQ(a.bias_correction, b.bias_correction);
  EXPECT_TRUE(a.percentile->low != c.percentile->low || a.percentile->high != c.percentile->high);
}

TEST(UnpairedBootstrap, OneRunEachHasNoSpread) {
  const std::vector<double> one = {2.0};
  const std::vector<double> other = {0.5};
  const BootstrapResult r = BootstrapMedianRatioUnpaired(one, other);
  EXPECT_EQ(r.estimate, 4.0);
  EXPECT_EQ(r.bca->low, 4.0);
  EXPECT_EQ(r.percentile->high, 4.0);
  EXPECT_EQ(r.note, "one run on each side: nothing to resample");
}

TEST(UnpairedBootstrap, OneRunOnOneSideResamplesTheOther) {
  const std::vector<double> one = {1.0};
  const BootstrapResult r = BootstrapMedianRatioUnpaired(one, kAfter, {0.95, 1000, 1});
  ASSERT_TRUE(r.percentile);
  EXPECT_LT(r.percentile->low, r.percentile->high);
  EXPECT_EQ(r.percentile->high, 1.0 / 0.49);  // the fastest after-run is the largest ratio
}

TEST(UnpairedBootstrap, BadInputThrows) {
  const std::vector<double> empty;
  const std::vector<double> zero = {1.0, 0.0};
  EXPECT_THROW(BootstrapMedianRatioUnpaired(empty, kAfter), StatsError);
  EXPECT_THROW(BootstrapMedianRatioUnpaired(kBefore, zero), StatsError);
  EXPECT_THROW(BootstrapMedianRatioUnpaired(kBefore, kAfter, {1.5, 100, 0}), StatsError);
}

}  // namespace
}  // namespace pe::stats
