// Every file in tests/data/bad_specs/ is one mistake; NAME.err beside NAME.toml holds the exact
// one-line message perfengine must print for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/spec/programs.h"
#include "engine/spec/spec.h"

namespace pe::spec {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> BadSpecNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(PERFENGINE_BAD_SPECS_DIR)) {
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class BadSpec : public ::testing::TestWithParam<std::string> {};

TEST_P(BadSpec, FailsWithItsExactMessage) {
  const fs::path dir = PERFENGINE_BAD_SPECS_DIR;
  const std::string name = GetParam();
  ASSERT_TRUE(fs::exists(dir / (name + ".err"))) << "missing " << name << ".err";
  std::string expected = Read(dir / (name + ".err"));
  while (!expected.empty() && expected.back() == '\n') expected.pop_back();
  // Parse relative to the corpus folder so relative paths resolve there and messages stay short.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  std::string actual = "(no error)";
  try {
    Spec spec = ParseSpecFile(name + ".toml");
    CheckPrograms(spec);
  } catch (const SpecError& e) {
    actual = e.what();
  }
  fs::current_path(cwd);
  EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadSpec, ::testing::ValuesIn(BadSpecNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace pe::spec
