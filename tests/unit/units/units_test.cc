#include "engine/units/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace pe::units {
namespace {

TEST(UnitsTest, Seconds) {
  EXPECT_EQ(FormatSeconds(1.234), "1.23 s");
  EXPECT_EQ(FormatSeconds(12.34), "12.3 s");
  EXPECT_EQ(FormatSeconds(123.4), "123 s");
  EXPECT_EQ(FormatSeconds(1234.5), "1234 s");
  EXPECT_EQ(FormatSeconds(0.0412), "41.2 ms");
  EXPECT_EQ(FormatSeconds(0.001), "1.00 ms");
  EXPECT_EQ(FormatSeconds(0.000812), "812 us");
  EXPECT_EQ(FormatSeconds(2.5e-9), "2.50 ns");
  EXPECT_EQ(FormatSeconds(0), "0 s");
  EXPECT_EQ(FormatSeconds(-0.0412), "-41.2 ms");
  EXPECT_EQ(FormatSeconds(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

TEST(UnitsTest, SecondsRoundUpIntoTheNextDigitOrUnit) {
  EXPECT_EQ(FormatSeconds(9.996), "10.0 s");
  EXPECT_EQ(FormatSeconds(99.96), "100 s");
  EXPECT_EQ(FormatSeconds(0.9996), "1.00 s");
  EXPECT_EQ(FormatSeconds(0.0009996), "1.00 ms");
  EXPECT_EQ(FormatSeconds(0.0009994), "999 us");
}

// A slow server's rate once printed as "0 requests/s" (issue 26, minor 18).
TEST(UnitsTest, RatesNeverRoundToZero) {
  EXPECT_EQ(FormatRate(1234.4), "1234");
  EXPECT_EQ(FormatRate(10), "10");
  EXPECT_EQ(FormatRate(2.54), "2.5");
  EXPECT_EQ(FormatRate(0.4), "0.4");
  EXPECT_EQ(FormatRate(0.4166), "0.42");
  EXPECT_EQ(FormatRate(0.003141), "0.0031");
  EXPECT_EQ(FormatRate(0), "0");
}

TEST(UnitsTest, KiB) {
  EXPECT_EQ(FormatKiB(0), "0 KiB");
  EXPECT_EQ(FormatKiB(812), "812 KiB");
  EXPECT_EQ(FormatKiB(1000), "1000 KiB");
  EXPECT_EQ(FormatKiB(1024), "1.00 MiB");
  EXPECT_EQ(FormatKiB(12595), "12.3 MiB");
  EXPECT_EQ(FormatKiB(8167400), "7.79 GiB");
  EXPECT_EQ(FormatKiB(std::int64_t{3} << 30), "3.00 TiB");
}

// `list` and `generate` print fixture sizes with it (they once rolled their own "{:.1f} MiB").
TEST(UnitsTest, Bytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1.00 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(1000 * 1024), "1000 KiB");
  EXPECT_EQ(FormatBytes(1048064), "1.00 MiB");  // 1023.5 KiB rounds up into the next unit
  EXPECT_EQ(FormatBytes(std::uint64_t{12595} * 1024), "12.3 MiB");
  EXPECT_EQ(FormatBytes(std::uint64_t{3} << 40), "3.00 TiB");
}

TEST(UnitsTest, Ratios) {
  EXPECT_EQ(FormatRatio(0.94), "0.94x");
  EXPECT_EQ(FormatRatio(8.4249), "8.42x");
  EXPECT_EQ(FormatRatio(9.996), "10.0x");
  EXPECT_EQ(FormatRatio(19.84), "19.8x");
  EXPECT_EQ(FormatRatio(132.05), "132.1x");
  EXPECT_EQ(FormatRatio(std::numeric_limits<double>::infinity()), "n/a");
}

TEST(UnitsTest, RatiosWithTheirOwnDecimals) {
  EXPECT_EQ(FormatRatio(1.0, 3), "1.000x");
  EXPECT_EQ(RatioDecimals(9.99), 2);
  EXPECT_EQ(RatioDecimals(12.4), 1);
  EXPECT_EQ(DecimalsToShow(1.0, 2), 2);
  EXPECT_EQ(DecimalsToShow(1.005, 2), 3);
  EXPECT_EQ(DecimalsToShow(1.0625, 2), 4);
  EXPECT_EQ(DecimalsToShow(12.5, 1), 1);
  EXPECT_EQ(DecimalsToShow(1.0 / 3, 2), 6);  // at most 6
  EXPECT_EQ(FormatRatio(1.005, DecimalsToShow(1.005, RatioDecimals(1.005))), "1.005x");
  EXPECT_EQ(FormatFixed(1.5, 2), "1.50");
}

TEST(UnitsTest, PercentagesAndPValues) {
  EXPECT_EQ(FormatPercent(0.06), "6%");
  EXPECT_EQ(FormatPercent(0.9), "90%");
  EXPECT_EQ(FormatPValue(0.031), "p = 0.031");
  EXPECT_EQ(FormatPValue(0.5), "p = 0.500");
  EXPECT_EQ(FormatPValue(0.00099), "p < 0.001");
  EXPECT_EQ(FormatPValue(0.001), "p = 0.001");
}

// A level split across checks keeps the digits that say how far from certain it is.
TEST(UnitsTest, PercentagesWithDecimalsSignsAndPoints) {
  EXPECT_EQ(FormatPercentFixed(0.125, 1), "12.5%");
  EXPECT_EQ(FormatPercentFixed(0.0034, 2), "0.34%");
  EXPECT_EQ(FormatPercentFixed(0.06, 0), FormatPercent(0.06));
  EXPECT_EQ(FormatSignedPercent(0.041, 1), "+4.1%");
  EXPECT_EQ(FormatSignedPercent(-0.02, 0), "-2%");
  EXPECT_EQ(FormatSignedPercent(0, 1), "+0.0%");
  EXPECT_EQ(FormatPoints(0.12), "12 points");
  EXPECT_EQ(FormatPoints(0.01), "1 points");  // as every line has printed it
  EXPECT_EQ(FormatSignedPoints(-0.05), "-5 points");
  EXPECT_EQ(FormatSignedPoints(0.2), "+20 points");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const std::string& text : {FormatPercentFixed(nan, 1), FormatSignedPercent(nan, 1), FormatPoints(nan),
                                  FormatSignedPoints(nan), FormatSignificant(nan, 4)}) {
    EXPECT_EQ(text, "n/a");
  }
}

TEST(UnitsTest, SignificantDigits) {
  EXPECT_EQ(FormatSignificant(1.23456, 4), "1.235");
  EXPECT_EQ(FormatSignificant(0.000123456, 4), "0.0001235");
  EXPECT_EQ(FormatSignificant(1234567, 4), "1.235e+06");
  EXPECT_EQ(FormatSignificant(2, 4), "2");
}

// Once written twice (engine/measure/call_graph.cc and where_the_time_went.cc).
TEST(UnitsTest, CountsGroupedByThousands) {
  EXPECT_EQ(Grouped(0), "0");
  EXPECT_EQ(Grouped(999), "999");
  EXPECT_EQ(Grouped(1000), "1,000");
  EXPECT_EQ(Grouped(1234567), "1,234,567");
  EXPECT_EQ(Grouped(std::numeric_limits<std::uint64_t>::max()), "18,446,744,073,709,551,615");
  EXPECT_EQ(SignedGrouped(0), "+0");
  EXPECT_EQ(SignedGrouped(1234), "+1,234");
  EXPECT_EQ(SignedGrouped(-1234567), "-1,234,567");
  EXPECT_EQ(SignedGrouped(std::numeric_limits<std::int64_t>::min()), "-9,223,372,036,854,775,808");
}

TEST(UnitsTest, ConfidenceLevelsNeverRoundToCertainty) {
  EXPECT_EQ(FormatConfidence(0.95), "95%");
  EXPECT_EQ(FormatConfidence(0.9), "90%");
  EXPECT_EQ(FormatConfidence(0.99), "99%");
  EXPECT_EQ(FormatConfidence(1 - 0.05 / 3), "98.3%");
  EXPECT_EQ(FormatConfidence(1 - 0.05 / 19), "99.74%");
  EXPECT_EQ(FormatConfidence(1 - 0.05 / 100), "99.95%");
  EXPECT_EQ(FormatConfidence(1 - 0.05 / 1000), "99.995%");
  EXPECT_EQ(FormatConfidence(0.995), "99.5%");
  EXPECT_EQ(FormatConfidence(0.9999), "99.99%");
}

TEST(UnitsTest, CountsAgreeWithTheirNouns) {
  EXPECT_EQ(FormatCount(0, "run"), "0 runs");
  EXPECT_EQ(FormatCount(1, "run"), "1 run");
  EXPECT_EQ(FormatCount(2, "round"), "2 rounds");
}

TEST(UnitsTest, FmtFormattersUseTheSameText) {
  EXPECT_EQ(fmt::format("{}", Seconds{0.0412}), "41.2 ms");
  EXPECT_EQ(fmt::format("[{:>9}]", Seconds{0.0412}), "[  41.2 ms]");
  EXPECT_EQ(fmt::format("{}", KiB{12595}), "12.3 MiB");
  EXPECT_EQ(fmt::format("{:<6}|", Ratio{19.84}), "19.8x |");
  EXPECT_EQ(fmt::format("{}", Percent{0.06}), "6%");
  EXPECT_EQ(fmt::format("{}", PValue{0.0001}), "p < 0.001");
}

}  // namespace
}  // namespace pe::units
