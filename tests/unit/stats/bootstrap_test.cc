#include "stats/bootstrap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stats/descriptive.h"
#include "stats/error.h"
#include "stats/random.h"
#include "vectors.h"

namespace pe::stats {
namespace {

using testing::Close;
using testing::Doubles;
using testing::kExact;

const nlohmann::json& Vectors() {
  static const nlohmann::json vectors = testing::LoadVectors("bootstrap.json");
  return vectors;
}

// Exact: the same replicates through our interval code and SciPy's BCa code
// (scipy.stats._resampling._bca_interval, which computes its own jackknife).
TEST(BootstrapTest, IntervalArithmeticMatchesScipyOnTheSameReplicates) {
  const std::vector<double> baseline = Doubles(Vectors()["baseline"]);
  const std::vector<double> candidate = Doubles(Vectors()["candidate"]);
  const std::vector<double> replicates = Doubles(Vectors()["replicates"]);
  const double estimate = Median(baseline) / Median(candidate);
  EXPECT_TRUE(Close(estimate, Vectors()["estimate"], kExact));
  const std::vector<std::vector<double>> jackknife{JackknifeMedianRatio(baseline, candidate)};
  for (const auto& c : Vectors()["exact"]) {
    SCOPED_TRACE(c["confidence"].get<double>());
    const BootstrapResult result = IntervalsFromReplicates(estimate, replicates, jackknife, c["confidence"]);
    ASSERT_TRUE(result.percentile.has_value());
    ASSERT_TRUE(result.bca.has_value());
    EXPECT_TRUE(Close(result.percentile->low, c["percentile"][0], kExact));
    EXPECT_TRUE(Close(result.percentile->high, c["percentile"][1], kExact));
    EXPECT_TRUE(Close(result.bias_correction, c["z0"], kExact));
    EXPECT_TRUE(Close(result.acceleration, c["acceleration"], kExact));
    EXPECT_TRUE(Close(result.bca->low, c["bca"][0], kExact));
    EXPECT_TRUE(Close(result.bca->high, c["bca"][1], kExact));
  }
}

// Loose: our whole procedure (10,000 resamples, our generator) against
// scipy.stats.bootstrap (100,000 resamples, numpy's generator) on the same data. They
// agree only up to Monte Carlo error, hence 0.5% of the estimate.
TEST(BootstrapTest, WholeProcedureAgreesWithScipyBootstrapWithinMonteCarloError) {
  const std::vector<double> baseline = Doubles(Vectors()["baseline"]);
  const std::vector<double> candidate = Doubles(Vectors()["candidate"]);
  const auto& scipy = Vectors()["scipy_bootstrap_100000"];
  for (std::uint64_t seed : {0, 1, 2}) {
    SCOPED_TRACE(seed);
    const BootstrapResult result = BootstrapMedianRatio(baseline, candidate, {0.95, 10000, seed});
    const double tolerance = 0.005 * result.estimate;
    EXPECT_NEAR(result.percentile->low, scipy["percentile"][0].get<double>(), tolerance);
    EXPECT_NEAR(result.percentile->high, scipy["percentile"][1].get<double>(), tolerance);
    ASSERT_TRUE(result.bca.has_value());
    EXPECT_NEAR(result.bca->low, scipy["BCa"][0].get<double>(), tolerance);
    EXPECT_NEAR(result.bca->high, scipy["BCa"][1].get<double>(), tolerance);
  }
}

TEST(BootstrapTest, SameSeedIsBitIdenticalAndSeedIsRecorded) {
  const std::vector<double> baseline = Doubles(Vectors()["baseline"]);
  const std::vector<double> candidate = Doubles(Vectors()["candidate"]);
  const BootstrapResult first = BootstrapMedianRatio(baseline, candidate, {0.95, 2000, 42});
  const BootstrapResult again = BootstrapMedianRatio(baseline, candidate, {0.95, 2000, 42});
  const BootstrapResult other = BootstrapMedianRatio(baseline, candidate, {0.95, 2000, 43});
  EXPECT_EQ(first.seed, 42u);
  EXPECT_EQ(first.resamples, 2000);
  EXPECT_EQ(first.percentile->low, again.percentile->low);
  EXPECT_EQ(first.percentile->high, again.percentile->high);
  EXPECT_EQ(first.bca->low, again.bca->low);
  EXPECT_EQ(first.bca->high, again.bca->high);
  EXPECT_NE(first.bias_correction, other.bias_correction);
}

// The library finds resample medians by counting ranks rather than copying and
// partitioning; redoing the bootstrap the plain way with the same generator must give
// the same intervals bit for bit (odd and even round counts, with tied values).
TEST(BootstrapTest, RankCountingMediansEqualPlainMediansOfTheSameResamples) {
  for (std::size_t n : {7u, 12u}) {
    SCOPED_TRACE(n);
    std::vector<double> baseline;
    std::vector<double> candidate;
    for (std::size_t i = 0; i < n; ++i) {
      baseline.push_back(1.0 + 0.1 * static_cast<double>((i * 5) % 7));
      candidate.push_back(0.5 + 0.03 * static_cast<double>((i * 3) % 4));
    }
    const BootstrapOptions options{0.9, 500, 99};
    Random rng(options.seed);
    std::vector<double> replicates;
    for (int r = 0; r < options.resamples; ++r) {
      std::vector<double> b(n);
      std::vector<double> c(n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t j = rng.Below(n);
        b[i] = baseline[j];
        c[i] = candidate[j];
      }
      replicates.push_back(Median(b) / Median(c));
    }
    const BootstrapResult plain =
        IntervalsFromReplicates(Median(baseline) / Median(candidate), replicates,
                                {JackknifeMedianRatio(baseline, candidate)}, options.confidence);
    const BootstrapResult library = BootstrapMedianRatio(baseline, candidate, options);
    EXPECT_EQ(library.percentile->low, plain.percentile->low);
    EXPECT_EQ(library.percentile->high, plain.percentile->high);
    ASSERT_TRUE(library.bca.has_value() && plain.bca.has_value());
    EXPECT_EQ(library.bca->low, plain.bca->low);
    EXPECT_EQ(library.bca->high, plain.bca->high);
    EXPECT_EQ(library.bias_correction, plain.bias_correction);
  }
}

TEST(RandomTest, BelowStaysInRangeAndHitsEveryValue) {
  Random rng(5);
  std::vector<int> seen(7, 0);
  for (int i = 0; i < 7000; ++i) {
    const std::uint64_t v = rng.Below(7);
    ASSERT_LT(v, 7u);
    ++seen[v];
  }
  for (int count : seen) EXPECT_NEAR(count, 1000, 150);
  Random a(8);
  Random b(8);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.Below(1000003), b.Below(1000003));
}

// Statistical property: over many simulated workloads with a known population speedup
// of 2, the 95% intervals should cover it roughly 95% of the time. Bootstrap intervals
// for a median of 20 rounds are known to run a little narrow, so the bar is loose.
TEST(BootstrapTest, IntervalsCoverAKnownSpeedupAtRoughlyTheirLevel) {
  std::mt19937_64 engine(123);
  std::normal_distribution<double> noise(0.0, 1.0);  // fine here: only the test data
  constexpr int kDatasets = 200;
  int covered_percentile = 0;
  int covered_bca = 0;
  for (int dataset = 0; dataset < kDatasets; ++dataset) {
    std::vector<double> baseline(20);
    std::vector<double> candidate(20);
    for (int i = 0; i < 20; ++i) {
      baseline[i] = std::exp(0.1 * noise(engine));
      candidate[i] = baseline[i] * std::exp(std::log(0.5) + 0.05 * noise(engine));
    }
    const BootstrapResult result =
        BootstrapMedianRatio(baseline, candidate, {0.95, 1000, static_cast<std::uint64_t>(dataset)});
    covered_percentile += result.percentile->low <= 2.0 && 2.0 <= result.percentile->high;
    covered_bca += result.bca->low <= 2.0 && 2.0 <= result.bca->high;
  }
  EXPECT_GE(covered_percentile, 0.85 * kDatasets);
  EXPECT_LE(covered_percentile, 0.995 * kDatasets);
  EXPECT_GE(covered_bca, 0.85 * kDatasets);
  EXPECT_LE(covered_bca, 0.995 * kDatasets);
}

TEST(BootstrapTest, OneRoundAndAllTiesGiveZeroWidthIntervals) {
  const BootstrapResult one = BootstrapMedianRatio(std::vector<double>{2.0}, std::vector<double>{1.0});
  EXPECT_EQ(one.estimate, 2.0);
  EXPECT_EQ(one.percentile->low, 2.0);
  EXPECT_EQ(one.bca->high, 2.0);
  EXPECT_EQ(one.note, "one round: nothing to resample");

  const BootstrapResult ties =
      BootstrapMedianRatio(std::vector<double>(10, 3.0), std::vector<double>(10, 1.5), {0.95, 500, 1});
  EXPECT_EQ(ties.estimate, 2.0);
  EXPECT_EQ(ties.percentile->low, 2.0);
  EXPECT_EQ(ties.percentile->high, 2.0);
  ASSERT_TRUE(ties.bca.has_value());
  EXPECT_EQ(ties.bca->low, 2.0);
  EXPECT_EQ(ties.bca->high, 2.0);
  EXPECT_EQ(ties.bias_correction, 0.0);
  EXPECT_EQ(ties.acceleration, 0.0);
}

TEST(BootstrapTest, EveryReplicateOnOneSideWithholdsBca) {
  const std::vector<double> replicates{1.0, 1.1, 1.2};
  const BootstrapResult result = IntervalsFromReplicates(0.5, replicates, {}, 0.95);
  EXPECT_TRUE(result.percentile.has_value());
  EXPECT_FALSE(result.bca.has_value());
  EXPECT_EQ(result.note, "no BCa interval: every resample fell on one side of the estimate (z0 = -inf)");
}

TEST(BootstrapTest, RejectsBadInput) {
  const std::vector<double> ok{1.0, 2.0};
  EXPECT_THROW(BootstrapMedianRatio(std::vector<double>{}, std::vector<double>{}), StatsError);
  EXPECT_THROW(BootstrapMedianRatio(ok, std::vector<double>{1.0}), StatsError);
  EXPECT_THROW(BootstrapMedianRatio(ok, std::vector<double>{1.0, 0.0}), StatsError);
  EXPECT_THROW(BootstrapMedianRatio(ok, std::vector<double>{1.0, std::nan("")}), StatsError);
  EXPECT_THROW(BootstrapMedianRatio(ok, ok, {0.95, 0, 0}), StatsError);
  EXPECT_THROW(BootstrapMedianRatio(ok, ok, {1.0, 100, 0}), StatsError);
}

// Startup-adjusted ratio: rounds of ~1.0 s vs ~0.5 s, startup ~0.2 s vs ~0.05 s, so the
// logic speedup is (1.0 - 0.2) / (0.5 - 0.05) = 1.78.
struct StartupData {
  std::vector<double> baseline, candidate, baseline_startup, candidate_startup;
};

StartupData MakeStartupData(double startup_noise, std::size_t startup_runs_b, std::size_t startup_runs_c) {
  std::mt19937_64 engine(7);
  std::normal_distribution<double> noise(0.0, 1.0);
  StartupData data;
  for (int i = 0; i < 30; ++i) {
    data.baseline.push_back(1.0 * std::exp(0.02 * noise(engine)));
    data.candidate.push_back(0.5 * std::exp(0.02 * noise(engine)));
  }
  for (std::size_t i = 0; i < startup_runs_b; ++i) {
    data.baseline_startup.push_back(0.2 * std::exp(startup_noise * noise(engine)));
  }
  for (std::size_t i = 0; i < startup_runs_c; ++i) {
    data.candidate_startup.push_back(0.05 * std::exp(startup_noise * noise(engine)));
  }
  return data;
}

TEST(StartupAdjustedTest, IntervalBracketsTheEstimate) {
  for (auto [nb, nc] : {std::pair<std::size_t, std::size_t>{30, 30}, {10, 25}}) {
    SCOPED_TRACE(::testing::Message() << nb << " and " << nc << " startup runs");
    const StartupData d = MakeStartupData(0.05, nb, nc);
    const BootstrapResult result = BootstrapStartupAdjustedRatio(d.baseline, d.candidate, d.baseline_startup,
                                                                 d.candidate_startup, {0.95, 2000, 3});
    const AdjustedMedians adjusted =
        StartupAdjustedMedians(d.baseline, d.candidate, d.baseline_startup, d.candidate_startup);
    EXPECT_DOUBLE_EQ(result.estimate, adjusted.baseline / adjusted.candidate);
    EXPECT_NEAR(result.estimate, 0.8 / 0.45, 0.1);
    ASSERT_TRUE(result.percentile.has_value());
    ASSERT_TRUE(result.bca.has_value());
    EXPECT_LT(result.percentile->low, result.estimate);
    EXPECT_GT(result.percentile->high, result.estimate);
    EXPECT_LT(result.bca->low, result.estimate);
    EXPECT_GT(result.bca->high, result.estimate);
    EXPECT_TRUE(result.note.empty()) << result.note;
  }
}

TEST(StartupAdjustedTest, StartupAsLongAsTheRunHasNoRatio) {
  const std::vector<double> rounds{0.1, 0.1, 0.1};
  const std::vector<double> startup{0.2, 0.2, 0.2};
  EXPECT_FALSE(StartupAdjustedMedians(rounds, rounds, startup, startup).positive());
  EXPECT_THROW(BootstrapStartupAdjustedRatio(rounds, rounds, startup, startup), StatsError);
  EXPECT_THROW(BootstrapStartupAdjustedRatio(rounds, rounds, {}, startup), StatsError);
}

TEST(StartupAdjustedTest, ResamplesThatCrossZeroWithholdTheInterval) {
  // Candidate rounds 0.06 s with startup 0.05 s +- 30%: some resamples cross zero.
  std::mt19937_64 engine(11);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> baseline, candidate, baseline_startup, candidate_startup;
  for (int i = 0; i < 10; ++i) {
    baseline.push_back(1.0 + 0.01 * noise(engine));
    candidate.push_back(0.06 * std::exp(0.2 * noise(engine)));
    baseline_startup.push_back(0.2 + 0.01 * noise(engine));
    candidate_startup.push_back(0.05 * std::exp(0.3 * noise(engine)));
  }
  const AdjustedMedians adjusted = StartupAdjustedMedians(baseline, candidate, baseline_startup, candidate_startup);
  ASSERT_TRUE(adjusted.positive());
  const BootstrapResult result =
      BootstrapStartupAdjustedRatio(baseline, candidate, baseline_startup, candidate_startup, {0.95, 2000, 5});
  EXPECT_FALSE(result.percentile.has_value());
  EXPECT_FALSE(result.bca.has_value());
  EXPECT_NE(result.note.find("resamples left a startup-adjusted median <= 0"), std::string::npos) << result.note;
}

}  // namespace
}  // namespace pe::stats

namespace pe::stats {
namespace {

// The engine's Ctrl-C hook: the bootstrap asks every 1024 resamples and stops when told.
TEST(BootstrapCancellation, StopsWhenTheCallableSaysSo) {
  const std::vector<double> baseline = {1.0, 1.1, 1.2, 1.3, 1.4};
  const std::vector<double> candidate = {0.5, 0.6, 0.55, 0.65, 0.7};
  int asked = 0;
  BootstrapOptions options;
  options.resamples = 1000000;
  options.cancelled = [&] { return ++asked == 3; };
  EXPECT_THROW(BootstrapMedianRatio(baseline, candidate, options), Cancelled);
  EXPECT_EQ(asked, 3);  // stopped at the third poll, after 2048 of a million resamples
  int polls = 0;
  options.resamples = 4096;
  options.cancelled = [&] { return ++polls < 0; };
  const BootstrapResult full = BootstrapMedianRatio(baseline, candidate, options);
  EXPECT_EQ(polls, 4);
  EXPECT_EQ(full.resamples, 4096);
}

}  // namespace
}  // namespace pe::stats
