// Golden-file comparison shared by the reporter and explain tests. Run a test with
// UPDATE_GOLDEN=1 to rewrite its golden files from the current output, then review the diff
// before committing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

namespace pe::testing {

inline void ExpectGoldenIn(const std::filesystem::path& dir, std::string_view name, const std::string& actual) {
  const std::filesystem::path path = dir / name;
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

}  // namespace pe::testing
