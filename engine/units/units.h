// Units, formatted once (docs/results-format.md, "Units"). Every module that prints a figure
// (the gate's lines, the analysis notes, every reporter) prints through these, so a duration
// or a ratio reads the same in the terminal, in Markdown and in logs. It depends on fmt only,
// at the bottom of the module graph.
//
//   durations  3 significant digits in s, ms, us or ns: "1.23 s", "41.2 ms", "812 us"
//   memory     from KiB, binary units: "812 KiB", "12.3 MiB", "1.23 GiB"; from bytes, the same
//              with whole bytes below 1 KiB: "512 B", "1.50 KiB", "12.3 MiB"
//   ratios     2 decimals below 10, 1 from 10: "0.94x", "19.8x"; a bar from a spec prints
//              with the decimals it was written with: "1.005x", never "1.00x"
//   fractions  as whole percentages: "6%"; with decimals where a figure needs them: "12.5%";
//              a change signed: "+4.1%"; a difference of two fractions in points: "12 points"
//   counts     grouped by thousands: "1,234,567"; a change signed: "+1,234"
//   p-values   3 decimals, floored: "p = 0.031", "p < 0.001"
//
// Non-finite inputs print as "n/a". ASCII only ("us", not the micro sign), so column
// widths are byte counts.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace pe::units {

std::string FormatSeconds(double seconds);
std::string FormatKiB(std::int64_t kib);
std::string FormatBytes(std::uint64_t bytes);
std::string FormatRatio(double ratio);
std::string FormatRatio(double ratio, int decimals);  // "1.000x"
std::string FormatFixed(double value, int decimals);  // a plain number: "1.52"
// A rate such as requests per second: whole from 10 ("1234"), one decimal from 1 ("2.5"), two
// significant digits below ("0.42", "0.0031"), so a slow rate never prints as "0".
std::string FormatRate(double per_second);

// The decimals FormatRatio(ratio) uses: 2 below 10, 1 from 10.
int RatioDecimals(double ratio);
// The fewest decimals, at least `at_least` and at most 6, at which `value` prints exactly
// (a bar written 1.005 needs 3).
int DecimalsToShow(double value, int at_least);
std::string FormatPercent(double fraction);
// Not an overload of FormatPercent, which callers pass as a function.
std::string FormatPercentFixed(double fraction, int decimals);   // 0.125, 1 -> "12.5%"
std::string FormatSignedPercent(double fraction, int decimals);  // 0.041, 1 -> "+4.1%"; -0.02, 0 -> "-2%"
// A difference of two fractions (two rates) in percentage points, whole: 0.12 -> "12 points",
// signed -0.05 -> "-5 points". "points" whatever the number, as every line prints it.
std::string FormatPoints(double difference);
std::string FormatSignedPoints(double difference);
// `digits` significant digits, the shortest form ("{:.4g}"): 4 -> "1.235", "0.0001235", "1.235e+06".
std::string FormatSignificant(double value, int digits);
// A count grouped by thousands: 1234567 -> "1,234,567"; signed, "+1,234" or "-1,234" ("+0").
std::string Grouped(std::uint64_t count);
std::string SignedGrouped(std::int64_t count);
// A confidence level with the digits that keep its complement to two significant figures, so a
// level split across many checks never prints as 100%: 0.95 -> "95%", 0.983 -> "98.3%",
// 0.997368 -> "99.74%", 0.9995 -> "99.95%".
std::string FormatConfidence(double level);
std::string FormatPValue(double p);
// A count and its noun, the noun in the plural unless the count is 1: "1 run", "2 runs".
// Regular nouns only (an "s" is added).
std::string FormatCount(long long count, std::string_view noun);

// For fmt: fmt::format("{:>8}", Seconds{0.0412}) == " 41.2 ms".
struct Seconds {
  double value;
};
struct KiB {
  std::int64_t value;
};
struct Ratio {
  double value;
};
struct Percent {
  double value;
};
struct PValue {
  double value;
};

}  // namespace pe::units

template <>
struct fmt::formatter<pe::units::Seconds> : fmt::formatter<std::string_view> {
  auto format(pe::units::Seconds v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::units::FormatSeconds(v.value), ctx);
  }
};
template <>
struct fmt::formatter<pe::units::KiB> : fmt::formatter<std::string_view> {
  auto format(pe::units::KiB v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::units::FormatKiB(v.value), ctx);
  }
};
template <>
struct fmt::formatter<pe::units::Ratio> : fmt::formatter<std::string_view> {
  auto format(pe::units::Ratio v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::units::FormatRatio(v.value), ctx);
  }
};
template <>
struct fmt::formatter<pe::units::Percent> : fmt::formatter<std::string_view> {
  auto format(pe::units::Percent v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::units::FormatPercent(v.value), ctx);
  }
};
template <>
struct fmt::formatter<pe::units::PValue> : fmt::formatter<std::string_view> {
  auto format(pe::units::PValue v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::units::FormatPValue(v.value), ctx);
  }
};
