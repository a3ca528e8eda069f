// The flagship's generate-hashes workloads on the calibrated graph shape (docs/generators.md,
// "Shape"): both reference builds, through the replay shim, agree on every hash (parity holds)
// and a verdict comes out, at a larger scale than FlagshipE2E's. The spec as shipped generates
// every workspace (bazel_workspace and git_workspace) in that shape.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

TEST(CalibratedShapeE2E, BothReferenceBuildsAgreeOnTheCalibratedWorkspace) {
  TempDir dir;
  const std::string spec = ReadAll(PERFENGINE_SOURCE_DIR "/specs/bazel-diff.toml");
  int workspaces = 0;
  int calibrated = 0;
  for (std::size_t at = spec.find("fixture = {"); at != std::string::npos; at = spec.find("fixture = {", at + 1)) {
    const std::string line = spec.substr(at, spec.find('\n', at) - at);
    if (line.find("_workspace\"") != std::string::npos) {
      ++workspaces;
      calibrated += line.find("shape = \"calibrated\"") != std::string::npos ? 1 : 0;
    }
  }
  EXPECT_EQ(workspaces, 5);
  EXPECT_EQ(calibrated, workspaces) << "every workspace fixture of the flagship is calibrated";
  const auto json = dir.path() / "results.json";
  const Finished f = RunPerfengine({"run",
                                    PERFENGINE_SOURCE_DIR "/specs/bazel-diff.toml",
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
