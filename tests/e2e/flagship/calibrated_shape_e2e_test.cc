// The flagship's generate-hashes workloads on the calibrated graph shape (docs/generators.md,
// "Shape"): both reference builds, through the replay shim, agree on every hash (parity holds)
// and a verdict comes out. The spec itself keeps the uniform shape; this runs a copy of it with
// shape = "calibrated" on those workloads.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

TEST(CalibratedShapeE2E, BothReferenceBuildsAgreeOnTheCalibratedWorkspace) {
  TempDir dir;
  std::string spec = ReadAll(PERFENGINE_SOURCE_DIR "/specs/bazel-diff.toml");
  int shaped = 0;
  for (const char* size : {"targets = 4800, fan_in = 4 }", "targets = 24000, fan_in = 4 }"}) {
    const std::size_t at = spec.find(size);
    ASSERT_NE(at, std::string::npos) << size;
    spec.insert(at + std::string(size).size() - 2, ", shape = \"calibrated\"");
    ++shaped;
  }
  ASSERT_EQ(shaped, 2);
  const fs::path copy = dir.path() / "calibrated.toml";
  std::ofstream(copy) << spec;
  const auto json = dir.path() / "results.json";
  const Finished f = RunPerfengine({"run",
                                    copy.string(),
                                    "--scale",
                                    "0.1",
                                    "--rounds",
                                    "12",
                                    "--max-rounds",
                                    "12",
                                    "--warmup-rounds",
                                    "0",
                                    "--workload",
                                    "generate-hashes-small",
                                    "--workload",
                                    "generate-hashes-large",
                                    "--contender",
                                    "baseline=" REFDIFF_BASELINE,
                                    "--contender",
                                    "candidate=" REFDIFF_CANDIDATE,
                                    "--cache-dir",
                                    (dir.path() / "cache").string(),
                                    "--json",
                                    json.string()},
                                   dir.path());
  // 0, 1 or 3 are verdicts on speed; 2 would be a failed run (a parity mismatch among them).
  EXPECT_TRUE(f.exit == 0 || f.exit == 1 || f.exit == 3) << f.exit << "\n" << f.out << f.err;
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["complete"], true);
  std::vector<std::string> names;
  for (const auto& w : results["workloads"]) {
    names.push_back(w["name"]);
    EXPECT_TRUE(w.contains("comparison")) << w["name"];
    EXPECT_FALSE(w.contains("failures") && !w["failures"].empty()) << w["name"] << "\n" << f.out;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"startup", "generate-hashes-small", "generate-hashes-large"}));
}

}  // namespace
}  // namespace pe::e2e
