#include "engine/units/units.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

namespace pe::units {
namespace {

constexpr std::string_view kNotAvailable = "n/a";

// Three significant digits for 1 <= value < 1000; the thresholds sit at the rounding
// boundaries so that 9.996 prints "10.0", never "10.00".
std::string ThreeDigits(double value) {
  if (value < 9.995) return fmt::format("{:.2f}", value);
  if (value < 99.95) return fmt::format("{:.1f}", value);
  return fmt::format("{:.0f}", value);
}

struct Unit {
  double scale;  // how many of this unit make one of the input's unit
  std::string_view name;
};

// Picks the largest unit in which the value rounds to at least 1 (units largest first;
// the last one takes everything smaller).
template <std::size_t kCount>
std::string Scaled(double value, const std::array<Unit, kCount>& units) {
  for (std::size_t i = 0; i < kCount; ++i) {
    double scaled = value * units[i].scale;
    if (scaled >= 0.9995 || i + 1 == kCount) {
      return fmt::format("{} {}", ThreeDigits(scaled), units[i].name);
    }
  }
  return std::string(kNotAvailable);  // unreachable: the last unit always matches
}

}  // namespace

std::string FormatSeconds(double seconds) {
  if (!std::isfinite(seconds)) return std::string(kNotAvailable);
  if (seconds == 0) return "0 s";
  static constexpr std::array<Unit, 4> kUnits{{{1, "s"}, {1e3, "ms"}, {1e6, "us"}, {1e9, "ns"}}};
  std::string magnitude = Scaled(std::fabs(seconds), kUnits);
  return seconds < 0 ? "-" + magnitude : magnitude;
}

std::string FormatKiB(std::int64_t kib) {
  if (kib == 0) return "0 KiB";
  static constexpr std::array<Unit, 4> kUnits{
      {{1.0 / (1024.0 * 1024.0 * 1024.0), "TiB"}, {1.0 / (1024.0 * 1024.0), "GiB"}, {1.0 / 1024.0, "MiB"}, {1, "KiB"}}};
  // Below 1 MiB the KiB count itself is shown, up to 4 digits: "1000 KiB".
  double magnitude = std::fabs(static_cast<double>(kib));
  std::string text = magnitude < 1024 ? fmt::format("{} KiB", std::llabs(kib)) : Scaled(magnitude, kUnits);
  return kib < 0 ? "-" + text : text;
}

std::string FormatBytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr std::array<Unit, 4> kUnits{{{1.0 / (1024.0 * 1024.0 * 1024.0 * 1024.0), "TiB"},
                                               {1.0 / (1024.0 * 1024.0 * 1024.0), "GiB"},
                                               {1.0 / (1024.0 * 1024.0), "MiB"},
                                               {1.0 / 1024.0, "KiB"}}};
  return Scaled(static_cast<double>(bytes), kUnits);
}

int RatioDecimals(double ratio) { return std::fabs(ratio) < 9.995 ? 2 : 1; }

std::string FormatRatio(double ratio) { return FormatRatio(ratio, RatioDecimals(ratio)); }

std::string FormatRatio(double ratio, int decimals) {
  if (!std::isfinite(ratio)) return std::string(kNotAvailable);
  return fmt::format("{:.{}f}x", ratio, decimals);
}

std::string FormatFixed(double value, int decimals) {
  if (!std::isfinite(value)) return std::string(kNotAvailable);
  return fmt::format("{:.{}f}", value, decimals);
}

std::string FormatRate(double per_second) {
  if (!std::isfinite(per_second)) return std::string(kNotAvailable);
  if (per_second == 0 || per_second >= 10) return fmt::format("{:.0f}", per_second);
  if (per_second >= 1) return fmt::format("{:.1f}", per_second);
  return fmt::format("{:.2g}", per_second);
}

int DecimalsToShow(double value, int at_least) {
  int decimals = at_least;
  // Printed and read back, the text must give the value to within rounding noise.
  while (decimals < 6 && std::isfinite(value) &&
         std::fabs(std::stod(fmt::format("{:.{}f}", value, decimals)) - value) >
             1e-9 * std::max(1.0, std::fabs(value))) {
    ++decimals;
  }
  return decimals;
}

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) return std::string(kNotAvailable);
  return fmt::format("{:.0f}%", fraction * 100);
}

std::string FormatPercentFixed(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return std::string(kNotAvailable);
  return fmt::format("{:.{}f}%", fraction * 100, decimals);
}

std::string FormatSignedPercent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return std::string(kNotAvailable);
  return fmt::format("{:+.{}f}%", fraction * 100, decimals);
}

std::string FormatPoints(double difference) {
  if (!std::isfinite(difference)) return std::string(kNotAvailable);
  return fmt::format("{:.0f} points", 100 * difference);
}

std::string FormatSignedPoints(double difference) {
  if (!std::isfinite(difference)) return std::string(kNotAvailable);
  return fmt::format("{:+.0f} points", 100 * difference);
}

std::string FormatSignificant(double value, int digits) {
  if (!std::isfinite(value)) return std::string(kNotAvailable);
  return fmt::format("{:.{}g}", value, digits);
}

std::string Grouped(std::uint64_t count) {
  const std::string digits = std::to_string(count);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string SignedGrouped(std::int64_t count) {
  // The magnitude without negating INT64_MIN, which has no positive twin.
  const std::uint64_t magnitude =
      count < 0 ? static_cast<std::uint64_t>(-(count + 1)) + 1 : static_cast<std::uint64_t>(count);
  return (count < 0 ? "-" : "+") + Grouped(magnitude);
}

std::string FormatConfidence(double level) {
  if (!std::isfinite(level)) return std::string(kNotAvailable);
  const double alpha = 100 * (1 - level);
  const int decimals = alpha > 0 ? std::clamp(1 - static_cast<int>(std::floor(std::log10(alpha))), 0, 6) : 0;
  std::string text = fmt::format("{:.{}f}", 100 * level, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text + "%";
}

std::string FormatPValue(double p) {
  if (!std::isfinite(p)) return std::string(kNotAvailable);
  if (p < 0.001) return "p < 0.001";
  return fmt::format("p = {:.3f}", p);
}

std::string FormatCount(long long count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

}  // namespace pe::units
