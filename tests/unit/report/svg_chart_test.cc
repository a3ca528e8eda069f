#include "engine/report/svg_chart.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace pe::report::svg {
namespace {

TEST(SvgChart, NiceStepsAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(NiceStep(6), 1);
  EXPECT_DOUBLE_EQ(NiceStep(10), 2);
  EXPECT_DOUBLE_EQ(NiceStep(25), 5);
  EXPECT_DOUBLE_EQ(NiceStep(0.06), 0.01);
  EXPECT_DOUBLE_EQ(NiceStep(55), 10);
}

TEST(SvgChart, LinearTicksCoverTheRangeAndPrintZeroAsZero) {
  EXPECT_EQ(LinearTicks(0, 6), (std::vector<double>{0, 1, 2, 3, 4, 5, 6}));
  // -0.25 to 0.25 in steps of 0.1: the middle tick is computed as -2.8e-17 and printed as 0.
  const std::vector<double> around_zero = LinearTicks(-0.25, 0.25);
  ASSERT_EQ(around_zero.size(), 5u);
  EXPECT_EQ(around_zero[2], 0.0);
  EXPECT_TRUE(LinearTicks(1, 1).empty());
  EXPECT_TRUE(LinearTicks(0, std::numeric_limits<double>::infinity()).empty());
}

TEST(SvgChart, LinearAxesArePaddedAndStartAtZeroWhenAsked) {
  const Axis padded = LinearAxis(10, 20, false);
  EXPECT_DOUBLE_EQ(padded.lo, 9.4);
  EXPECT_DOUBLE_EQ(padded.hi, 20.6);
  EXPECT_FALSE(padded.log);
  const Axis zero = LinearAxis(0, 50, true);
  EXPECT_DOUBLE_EQ(zero.lo, 0);
  EXPECT_DOUBLE_EQ(zero.hi, 53);
  // Equal ends get a span of their own, not a zero-width axis.
  const Axis flat = LinearAxis(2, 2, false);
  EXPECT_DOUBLE_EQ(flat.lo, 1.8);
  EXPECT_DOUBLE_EQ(flat.hi, 2.2);
}

TEST(SvgChart, AWideRangeGetsALogAxisWithDecadeTicks) {
  EXPECT_FALSE(AxisFor(1, 20, 30, false).log);
  const Axis log = AxisFor(0.001, 10, 30, false);
  ASSERT_TRUE(log.log);
  EXPECT_EQ(Ticks(log), (std::vector<double>{0.001, 0.01, 0.1, 1, 10}));
  // 1 to 9, padded to 0.88 to 10.3: 1-2-5 ticks and the decade.
  EXPECT_EQ(Ticks(LogAxis(1, 9)), (std::vector<double>{1, 2, 5, 10}));
  // Under a decade with fewer than three 1-2-5 ticks: plain steps.
  EXPECT_EQ(Ticks(LogAxis(2.2, 4.4)).size(), LinearTicks(LogAxis(2.2, 4.4).lo, LogAxis(2.2, 4.4).hi).size());
}

TEST(SvgChart, AxesMapValuesToPixels) {
  Axis linear{0, 10, false, 100, 200};
  EXPECT_DOUBLE_EQ(linear(5), 150);
  Axis log{1, 100, true, 0, 200};
  EXPECT_DOUBLE_EQ(log(10), 100);
  Axis upward{0, 1, false, 300, 100};  // y axes run up the page
  EXPECT_DOUBLE_EQ(upward(1), 100);
}

TEST(SvgChart, NumbersHaveThreeSignificantDigitsAndNoExponent) {
  EXPECT_EQ(Number(0), "0");
  EXPECT_EQ(Number(0.05), "0.05");
  EXPECT_EQ(Number(1.5), "1.5");
  EXPECT_EQ(Number(3264), "3264");
  EXPECT_EQ(Px(12.25), "12.2");
}

TEST(SvgChart, AnXAxisDrawsAGridLineAndLabelPerTick) {
  const Frame frame;
  const Axis x{0, 2, false, frame.PlotLeft(), frame.PlotRight()};
  const std::string svg = XAxis(
      frame, x, {0, 1, 2}, [](double t) { return Number(t) + "<"; }, "time");
  EXPECT_EQ(svg,
            "<line class=\"grid\" x1=\"70.0\" y1=\"34.0\" x2=\"70.0\" y2=\"254.0\"/>\n"
            "<text x=\"70.0\" y=\"269.0\" text-anchor=\"middle\">0&lt;</text>\n"
            "<line class=\"grid\" x1=\"295.0\" y1=\"34.0\" x2=\"295.0\" y2=\"254.0\"/>\n"
            "<text x=\"295.0\" y=\"269.0\" text-anchor=\"middle\">1&lt;</text>\n"
            "<line class=\"grid\" x1=\"520.0\" y1=\"34.0\" x2=\"520.0\" y2=\"254.0\"/>\n"
            "<text x=\"520.0\" y=\"269.0\" text-anchor=\"middle\">2&lt;</text>\n"
            "<line class=\"axis\" x1=\"70.0\" y1=\"254.0\" x2=\"520.0\" y2=\"254.0\"/>\n"
            "<text x=\"295.0\" y=\"288.0\" text-anchor=\"middle\">time</text>\n");
}

}  // namespace
}  // namespace pe::report::svg
