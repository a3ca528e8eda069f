// Golden-file comparison for explain and compare. Run the test with UPDATE_GOLDEN=1 to
// rewrite the files under tests/unit/explain/golden/, then review the diff before committing.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "engine/model/json.h"

namespace pe::testing {

inline void ExpectGolden(std::string_view name, const std::string& actual) {
  const std::filesystem::path path = std::filesystem::path(PE_EXPLAIN_GOLDEN_DIR) / name;
  const char* update = std::getenv("UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    std::cerr << "rewrote " << path.string() << "\n";
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path.string() << " is missing; run with UPDATE_GOLDEN=1 to create it";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(expected.str(), actual) << "differs from " << path.string()
                                    << "; if the change is intended, rerun with UPDATE_GOLDEN=1";
}

// A crafted results file from tests/data/results/ (written by make_explain_results).
inline RunResult LoadResults(std::string_view name) {
  return ReadResultsFile(std::filesystem::path(PE_EXPLAIN_RESULTS_DIR) / name);
}

}  // namespace pe::testing
