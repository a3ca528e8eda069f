#include "stats/error.h"

#include <fmt/format.h>

#include <cmath>

namespace pe::stats {

void RequireFinite(const char* function, std::span<const double> x) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw StatsError(fmt::format("{}: value at index {} is {}, expected a finite number", function, i, x[i]));
    }
  }
}

void RequireAtLeast(const char* function, std::span<const double> x, std::size_t min_n) {
  if (x.size() < min_n) {
    throw StatsError(
        fmt::format("{}: needs at least {} value{}, got {}", function, min_n, min_n == 1 ? "" : "s", x.size()));
  }
}

}  // namespace pe::stats
