// Units, formatted once (docs/results-format.md, "Units"). Every reporter prints through
// these, so a duration or a ratio reads the same in the terminal, in Markdown and in logs.
//
//   durations  3 significant digits in s, ms, us or ns: "1.23 s", "41.2 ms", "812 us"
//   memory     from KiB, binary units: "812 KiB", "12.3 MiB", "1.23 GiB"
//   ratios     2 decimals below 10, 1 from 10: "0.94x", "19.8x"
//   fractions  as whole percentages: "6%"
//   p-values   3 decimals, floored: "p = 0.031", "p < 0.001"
//
// Non-finite inputs print as "n/a". ASCII only ("us", not the micro sign), so column
// widths are byte counts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace pe::report {

std::string FormatSeconds(double seconds);
std::string FormatKiB(std::int64_t kib);
std::string FormatRatio(double ratio);
std::string FormatPercent(double fraction);
std::string FormatPValue(double p);

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

}  // namespace pe::report

template <>
struct fmt::formatter<pe::report::Seconds> : fmt::formatter<std::string_view> {
  auto format(pe::report::Seconds v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::report::FormatSeconds(v.value), ctx);
  }
};
template <>
struct fmt::formatter<pe::report::KiB> : fmt::formatter<std::string_view> {
  auto format(pe::report::KiB v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::report::FormatKiB(v.value), ctx);
  }
};
template <>
struct fmt::formatter<pe::report::Ratio> : fmt::formatter<std::string_view> {
  auto format(pe::report::Ratio v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::report::FormatRatio(v.value), ctx);
  }
};
template <>
struct fmt::formatter<pe::report::Percent> : fmt::formatter<std::string_view> {
  auto format(pe::report::Percent v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::report::FormatPercent(v.value), ctx);
  }
};
template <>
struct fmt::formatter<pe::report::PValue> : fmt::formatter<std::string_view> {
  auto format(pe::report::PValue v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(pe::report::FormatPValue(v.value), ctx);
  }
};
