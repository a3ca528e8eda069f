// Test helpers: load a SciPy reference file from vectors/ and compare to a tolerance.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pe::stats::testing {

// Parsed vectors/<name>; fails the test (via exception) when the file is missing.
nlohmann::json LoadVectors(const std::string& name);

std::vector<double> Doubles(const nlohmann::json& array);

// |actual - expected| <= tolerance * max(1, |expected|): relative for large values,
// absolute near zero, so one bound serves p-values and seconds alike.
::testing::AssertionResult Close(double actual, double expected, double tolerance);

// The agreement demanded where both sides compute the same exact quantity.
inline constexpr double kExact = 1e-9;

}  // namespace pe::stats::testing
