#include "vectors.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace pe::stats::testing {

nlohmann::json LoadVectors(const std::string& name) {
  const std::string path = std::string(PE_STATS_VECTORS_DIR) + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

std::vector<double> Doubles(const nlohmann::json& array) { return array.get<std::vector<double>>(); }

::testing::AssertionResult Close(double actual, double expected, double tolerance) {
  const double bound = tolerance * std::max(1.0, std::fabs(expected));
  if (std::fabs(actual - expected) <= bound) return ::testing::AssertionSuccess();
  char message[160];
  std::snprintf(message, sizeof message, "actual %.17g differs from expected %.17g by %.3g (bound %.3g)", actual,
                expected, std::fabs(actual - expected), bound);
  return ::testing::AssertionFailure() << message;
}

}  // namespace pe::stats::testing
