// explain and compare goldens live in tests/unit/explain/golden/ (UPDATE_GOLDEN=1 rewrites them).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "engine/model/json.h"
#include "tests/support/golden.h"

namespace pe::testing {

inline void ExpectGolden(std::string_view name, const std::string& actual) {
  ExpectGoldenIn(PE_EXPLAIN_GOLDEN_DIR, name, actual);
}

// A crafted results file from tests/data/results/ (written by make_explain_results).
inline model::RunResult LoadResults(std::string_view name) {
  return model::ReadResultsFile(std::filesystem::path(PE_EXPLAIN_RESULTS_DIR) / name);
}

}  // namespace pe::testing
