// The reporters' golden files live in tests/unit/report/golden/ (UPDATE_GOLDEN=1 rewrites them).
#pragma once

#include "tests/support/golden.h"

namespace pe::testing {

inline void ExpectGolden(std::string_view name, const std::string& actual) {
  ExpectGoldenIn(PE_REPORT_GOLDEN_DIR, name, actual);
}

}  // namespace pe::testing
