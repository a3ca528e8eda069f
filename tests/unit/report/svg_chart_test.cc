#include "engine/report/svg_chart.h"

#include <gtest/gtest.h>

#include <limits>
#include <regex>
#include <string>
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

// A chart's title is drawn whole: every character of it (an entity and a UTF-8 character
// whole too) is in the drawn lines, in order, no line is wider than the chart at the
// budgeted character width, and the chart grows upwards to make room for the extra lines.
TEST(SvgChart, LongTitlesWrapInsideTheChartInsteadOfBeingClipped) {
  const std::string title =
      "Speed-up (baseline / candidate) by round: get-impacted-targets-distances-with-a-long-name &amp; more "
      "\xce\xbc-bench averyveryveryveryveryveryveryveryveryveryveryveryveryverylongworkloadnamewithoutspaces";
  const Frame frame;
  const std::string svg = OpenChart("ratio-over-rounds", "c1", frame, title);
  EXPECT_NE(svg.find("<title>" + title + "</title>"), std::string::npos) << svg;
  const std::size_t budget = static_cast<std::size_t>((frame.width - 2 * kTitleX) / kTitleCharWidth);
  std::string drawn;
  std::size_t lines = 0;
  const std::regex tspan("<tspan[^>]*>([^<]*)</tspan>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tspan); it != std::sregex_iterator(); ++it) {
    const std::string line = (*it)[1];
    EXPECT_LE(TitleWidthInChars(line), budget) << line;
    EXPECT_LE(kTitleX + kTitleCharWidth * TitleWidthInChars(line), frame.width - kTitleX) << line;
    drawn += line;
    ++lines;
  }
  std::string without_spaces;
  for (char c : title) {
    if (c != ' ') without_spaces += c;
  }
  std::string drawn_without_spaces;
  for (char c : drawn) {
    if (c != ' ') drawn_without_spaces += c;
  }
  EXPECT_EQ(drawn_without_spaces, without_spaces);
  ASSERT_GE(lines, 3u);
  const double extra = kTitleLineHeight * static_cast<double>(lines - 1);
  EXPECT_NE(svg.find("height=\"" + Px(frame.height + extra) + "\" viewBox=\"0 " + Px(0 - extra)), std::string::npos)
      << svg;
  // A short title stays one line, at the chart's own size.
  const std::string short_svg = OpenChart("box-plot", "c2", frame, "Wall time per run: tiny");
  EXPECT_NE(short_svg.find("height=\"300.0\" viewBox=\"0 0.0 540.0 300.0\""), std::string::npos) << short_svg;
  EXPECT_NE(short_svg.find("<tspan x=\"8.0\">Wall time per run: tiny</tspan>"), std::string::npos) << short_svg;
}

TEST(SvgChart, WrapTitleBreaksAtSpacesAndKeepsEntitiesWhole) {
  EXPECT_EQ(WrapTitle("aa bb cc", 5), (std::vector<std::string>{"aa bb", "cc"}));
  EXPECT_EQ(WrapTitle("&amp;&amp;&amp;", 2), (std::vector<std::string>{"&amp;&amp;", "&amp;"}));
  EXPECT_EQ(WrapTitle("abcdefg", 3), (std::vector<std::string>{"abc", "def", "g"}));
  EXPECT_EQ(TitleWidthInChars("\xce\xbc&lt;x"), 3u);
}

}  // namespace
}  // namespace pe::report::svg
