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
  int bazel_workspaces = 0;
  int calibrated = 0;
  for (std::size_t at = spec.find("fixture = {"); at != std::string::npos; at = spec.find("fixture = {", at + 1)) {
    const std::string line = spec.substr(at, spec.find('\n', at) - at);
    if (line.find("_workspace\"") != std::string::npos) {
      ++workspaces;
      bazel_workspaces += line.find("\"bazel_workspace\"") != std::string::npos ? 1 : 0;
      calibrated += line.find("shape = \"calibrated\"") != std::string::npos ? 1 : 0;
    }
  }
  // generate-hashes small, large and dense on the WORKSPACE stream, small and large on bzlmod;
  // the serve workloads' git_workspace fixtures besides.
  EXPECT_EQ(bazel_workspaces, 5);
  EXPECT_GT(workspaces, bazel_workspaces);
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

// The calibrated shape on the bzlmod stream (docs/generators.md): rules naming the fixture's
// repositories as Bazel 8.6 prints them, which both reference builds take through the show_repo
// path (synthetic //external:<repo> rules that those inputs reach) and hash alike: parity holds.
// A bug planted in one synthetic repository's hash is caught with its label, so they are compared.
TEST(CalibratedShapeE2E, BothReferenceBuildsAgreeOnTheBzlmodStream) {
  TempDir dir;
  auto spec = [&](const std::string& name, const std::string& candidate_extra) {
    const fs::path path = dir.path() / (name + ".toml");
    std::ofstream(path) << "[run]\nrounds = 1\nwarmup_rounds = 0\n"
                        << "[contenders.baseline]\nargv = [\"" REFDIFF_BASELINE "\", \"generate-hashes\"]\n"
                        << "[contenders.candidate]\nargv = [\"" REFDIFF_CANDIDATE "\", \"generate-hashes\""
                        << candidate_extra << "]\n"
                        << "[workloads.generate-hashes-bzlmod]\n"
                        << "args = [\"-w\", \"{fixture}/workspace\", \"-b\", \"{fixture}/bazel\", \"{out}\"]\n"
                        << "output = \"{out}\"\nparity = \"json-map\"\n"
                        << "fixture = { generator = \"bazel_workspace\", targets = 3000, shape = \"calibrated\", "
                           "source_bytes = 200, stream = \"bzlmod\" }\n";
    return path;
  };
  const std::string cache = (dir.path() / "cache").string();
  const Finished same = RunPerfengine({"run", spec("same", "").string(), "--cache-dir", cache}, dir.path());
  // 0, 1 or 3 are verdicts on speed; 2 would mean the run itself failed (parity among them).
  EXPECT_TRUE(same.exit == 0 || same.exit == 1 || same.exit == 3) << same.exit << "\n" << same.out << same.err;
  const Finished planted = RunPerfengine(
      {"run", spec("planted", ", \"--perturb\", \"//external:bazel_skylib\"").string(), "--cache-dir", cache},
      dir.path());
  EXPECT_EQ(planted.exit, 2) << planted.out << planted.err;
  EXPECT_NE(planted.out.find("output differs from baseline's (parity: json-map)"), std::string::npos) << planted.out;
  // A bzlmod hashes file nests them under "hashes" (beside the module graph); the synthetic
  // repository sorts first among them.
  EXPECT_NE(planted.out.find("key \"hashes\": baseline has {\"//external:bazel_skylib\":\""), std::string::npos)
      << planted.out;
}

}  // namespace
}  // namespace pe::e2e
