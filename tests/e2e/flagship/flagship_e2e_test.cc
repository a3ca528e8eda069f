// specs/bazel-diff.toml end to end at a small scale, with both reference builds: the fixtures
// are generated, both builds agree on every workload, and a verdict comes out. A planted bug
// in one build must be caught by parity, naming the label whose hash differs.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// The whole spec at a small scale, as few rounds as a verdict needs (12: its 27 checks share 95%, each at 99.81%;
// docs/statistics.md) and a few requests per serve round: --scale does not shrink request_count, and the spec's 300
// requests a round made serve-large alone take minutes on a loaded machine. These tests ask whether a verdict comes
// out, not how fast; ctest's TIMEOUT (CMakeLists.txt) is the budget measured under load.
constexpr char kServeRequests[] = "12";

// The flagship spec without its [thresholds] (its last table), written into `dir`: for the tests
// that ask whether every workload runs with a given contender, not what the verdict is. Its checks
// need 12 rounds to resolve (run refuses fewer); with none, 2 rounds run every argv twice.
// Its contenders' paths are relative to specs/, so callers name both contenders.
fs::path UngatedFlagship(const fs::path& dir) {
  std::string spec = ReadAll(PERFENGINE_SOURCE_DIR "/specs/bazel-diff.toml");
  const std::size_t at = spec.find("\n[thresholds]\n");
  EXPECT_NE(at, std::string::npos) << "specs/bazel-diff.toml has no [thresholds] table";
  EXPECT_EQ(spec.find("\n[", at + 1), std::string::npos) << "[thresholds] is no longer the spec's last table";
  if (at != std::string::npos) spec.resize(at + 1);
  const fs::path path = dir / "ungated.toml";
  std::ofstream(path) << spec;
  return path;
}

TEST(FlagshipE2E, BothReferenceBuildsAgreeAndAVerdictComesOut) {
  TempDir dir;
  const auto json = dir.path() / "results.json";
  const Finished f =
      RunPerfengine({"run", PERFENGINE_SOURCE_DIR "/specs/bazel-diff.toml", "--scale", "0.02", "--rounds", "12",
                     "--max-rounds", "12", "--warmup-rounds", "0", "--serve-requests", kServeRequests, "--cache-dir",
                     (dir.path() / "cache").string(), "--json", json.string()},
                    dir.path());
  // 0, 1 or 3 (unresolved) are verdicts on speed; 2 would mean the run itself failed.
  EXPECT_TRUE(f.exit == 0 || f.exit == 1 || f.exit == 3) << f.exit << "\n" << f.out << f.err;
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["complete"], true);
  std::vector<std::string> names;
  for (const auto& w : results["workloads"]) {
    names.push_back(w["name"]);
    EXPECT_TRUE(w.contains("comparison")) << w["name"];
    EXPECT_FALSE(w.contains("failures") && !w["failures"].empty()) << w["name"];
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "startup", "generate-hashes-small", "generate-hashes-large", "generate-hashes-dense",
                       "generate-hashes-bzlmod-small", "generate-hashes-bzlmod-large", "get-impacted-targets",
                       "get-impacted-targets-distances", "serve-small", "serve-large", "serve-distances"}));
  // The bzlmod workloads are judged as the WORKSPACE ones are: each of the spec's three checks is
  // made on them (none skipped), so a bzlmod regression fails the shipped gate.
  for (const std::string workload : {"generate-hashes-bzlmod-small", "generate-hashes-bzlmod-large"}) {
    std::vector<std::string> checked;
    for (const auto& check : results["verdict"]["checks"]) {
      if (check["workload"] == workload && check["skipped"] == false) checked.push_back(check["threshold"]);
    }
    std::sort(checked.begin(), checked.end());
    EXPECT_EQ(checked, (std::vector<std::string>{"min_logic_speedup", "min_speedup", "min_win_rate"})) << workload;
  }
  // list shows each workload's generator and, once generated, its fixture's size.
  const Finished list = RunPerfengine({"list", PERFENGINE_SOURCE_DIR "/specs/bazel-diff.toml", "--scale", "0.02",
                                       "--cache-dir", (dir.path() / "cache").string()},
                                      dir.path());
  EXPECT_EQ(list.exit, 0) << list.err;
  EXPECT_NE(
      list.out.find(
          "fixture: generator bazel_workspace (fan_in = 4, shape = \"calibrated\", targets = 4800)\n    cached: "),
      std::string::npos)
      << list.out;
  const Finished fresh = RunPerfengine({"list", PERFENGINE_SOURCE_DIR "/specs/bazel-diff.toml", "--scale", "0.03",
                                        "--cache-dir", (dir.path() / "cache").string()},
                                       dir.path());
  EXPECT_NE(fresh.out.find("not generated yet"), std::string::npos) << fresh.out;
}

TEST(FlagshipE2E, APlantedBugFailsParityAndShowsTheLabel) {
  TempDir dir;
  const fs::path spec = dir.path() / "planted.toml";
  std::ofstream(spec) << "[run]\nrounds = 1\nwarmup_rounds = 0\n"
                      << "[contenders.baseline]\nargv = [\"" REFDIFF_BASELINE "\", \"generate-hashes\"]\n"
                      << "[contenders.candidate]\nargv = [\"" REFDIFF_CANDIDATE
                         "\", \"generate-hashes\", \"--perturb\", \"//src/l00/p00000:mod0\"]\n"
                      << "[workloads.generate-hashes]\n"
                      << "args = [\"-w\", \"{fixture}/workspace\", \"-b\", \"{fixture}/bazel\", \"{out}\"]\n"
                      << "output = \"{out}\"\nparity = \"json-map\"\n"
                      << "fixture = { generator = \"bazel_workspace\", targets = 300 }\n";
  const Finished f = RunPerfengine({"run", spec.string(), "--cache-dir", (dir.path() / "cache").string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("generate-hashes: contender 'candidate' output differs from baseline's (parity: json-map)"),
            std::string::npos)
      << f.out;
  // 300 targets, of which 7 are the packages' package groups, which hash files leave out.
  EXPECT_NE(f.out.find("1 of 293 keys differ"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("key \"//src/l00/p00000:mod0\": baseline has"), std::string::npos) << f.out;
}

// The flagship's argv, unchanged, must be accepted by upstream bazel-diff's argument rules: the
// stand-in refuses what upstream's picocli refuses (required -w and --cacheDir, unknown
// options) before it hands over to the reference build.
TEST(FlagshipE2E, TheArgvPassesUpstreamsArgumentRules) {
  TempDir dir;
  const auto json = dir.path() / "results.json";
  const std::string spec = UngatedFlagship(dir.path()).string();
  const std::string cache = (dir.path() / "cache").string();
  const std::string baseline = "baseline=" UPSTREAM_STANDIN, candidate = "candidate=" REFDIFF_CANDIDATE;
  const Finished f =
      RunPerfengine({"run",          spec,         "--scale",         "0.02",    "--rounds",         "2",
                     "--max-rounds", "2",          "--warmup-rounds", "0",       "--serve-requests", kServeRequests,
                     "--contender",  baseline,     "--contender",     candidate, "--cache-dir",      cache,
                     "--json",       json.string()},
                    dir.path());
  // No threshold, so 0 unless a workload failed (2): every argv was accepted and ran.
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["complete"], true);
  std::vector<std::string> names;
  for (const auto& w : results["workloads"]) {
    names.push_back(w["name"]);
    EXPECT_FALSE(w.contains("failures") && !w["failures"].empty()) << w["name"] << "\n" << f.out;
  }
  EXPECT_EQ(names.size(), 11u) << f.out;  // startup and the ten the spec gates
}

// Upstream's serve fetches and runs `git checkout --force` in its -w (GitClient.kt:83-86,
// 158-166); so does the stand-in. The flagship's serve workloads pass {checkout}, a clone per
// server start, so they run with both contenders checking out as upstream does; the same spec
// pointing -w into the guarded fixture fails the run, as it did before {checkout}.
TEST(FlagshipE2E, ServeRunsAgainstAnUpstreamThatChecksOutInItsWorkspace) {
  TempDir dir;
  const auto json = dir.path() / "results.json";
  const std::vector<std::string> serve_only = {"--scale",          "0.02",
                                               "--rounds",         "2",
                                               "--max-rounds",     "2",
                                               "--warmup-rounds",  "0",
                                               "--serve-requests", kServeRequests,
                                               "--workload",       "serve-small",
                                               "--workload",       "serve-large",
                                               "--contender",      "baseline=" UPSTREAM_STANDIN,
                                               "--contender",      "candidate=" UPSTREAM_STANDIN,
                                               "--cache-dir",      (dir.path() / "cache").string()};
  std::vector<std::string> args = {"run", UngatedFlagship(dir.path()).string()};
  args.insert(args.end(), serve_only.begin(), serve_only.end());
  args.insert(args.end(), {"--json", json.string()});
  const Finished f = RunPerfengine(args, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;  // no threshold: 0 unless the run failed
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["complete"], true);
  std::vector<std::string> names;
  for (const auto& w : results["workloads"]) names.push_back(w["name"]);
  // --workload keeps the startup workload, which every run measures first.
  EXPECT_EQ(names, (std::vector<std::string>{"startup", "serve-small", "serve-large"}));
  for (const auto& w : results["workloads"]) {
    EXPECT_TRUE(w.contains("comparison")) << w["name"];
    EXPECT_FALSE(w.contains("failures") && !w["failures"].empty()) << w["name"] << "\n" << f.out;
  }

  std::string spec = ReadAll(UngatedFlagship(dir.path()));
  ASSERT_NE(spec.find("\"-w\", \"{checkout}\""), std::string::npos);
  for (std::size_t at; (at = spec.find("{checkout}")) != std::string::npos;) spec.replace(at, 10, "{fixture}/repo");
  const fs::path guarded = dir.path() / "guarded.toml";
  std::ofstream(guarded) << spec;
  args = {"run", guarded.string()};
  args.insert(args.end(), serve_only.begin(), serve_only.end());
  const Finished g = RunPerfengine(args, dir.path());
  EXPECT_EQ(g.exit, 2) << g.out << g.err;
  // The sandbox keeps the fixture read-only to the server, so git's first write there fails;
  // where the kernel refuses a sandbox, root writes through the fixture's read-only bits and the
  // guard names the write, and anyone else gets git's refusal from the stand-in.
  const std::string said = g.out + g.err;
  EXPECT_TRUE(said.find("Read-only file system") != std::string::npos ||
              said.find("wrote into the fixture") != std::string::npos ||
              said.find("checkout --force") != std::string::npos)
      << said;
}

// The bzlmod path end to end (stream = "bzlmod", docs/generators.md): both reference builds
// against a fixture whose shim plays Bazel 8.6 hash its repositories from `mod show_repo` as
// synthetic //external: rules, agree on them, and a planted change to one of those is caught by
// parity with its label, so the synthetic targets are really in what is compared.
TEST(FlagshipE2E, BzlmodStreamRunsTheShowRepoPathOnBothBuilds) {
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
                        << "fixture = { generator = \"bazel_workspace\", targets = 600, stream = \"bzlmod\" }\n";
    return path;
  };
  const std::string cache = (dir.path() / "cache").string();
  const Finished same = RunPerfengine({"run", spec("same", "").string(), "--cache-dir", cache}, dir.path());
  // 0, 1 or 3 are verdicts on speed; 2 would mean the run itself failed.
  EXPECT_TRUE(same.exit == 0 || same.exit == 1 || same.exit == 3) << same.exit << "\n" << same.out << same.err;
  const Finished planted = RunPerfengine(
      {"run", spec("planted", ", \"--perturb\", \"//external:zlib\"").string(), "--cache-dir", cache}, dir.path());
  EXPECT_EQ(planted.exit, 2) << planted.out << planted.err;
  EXPECT_NE((planted.out + planted.err).find("//external:zlib"), std::string::npos) << planted.out << planted.err;
}

// The shipped flagship times the bzlmod path by default (issue 44): two generate-hashes workloads
// on fixtures whose shim plays Bazel 8.6 with WORKSPACE off, sized as generate-hashes-small and
// -large, gated (list marks an ungated workload "(not gated)").
TEST(FlagshipE2E, TheShippedSpecGatesTheBzlmodPath) {
  TempDir dir;
  const Finished list = RunPerfengine(
      {"list", PERFENGINE_SOURCE_DIR "/specs/bazel-diff.toml", "--cache-dir", (dir.path() / "cache").string()},
      dir.path());
  ASSERT_EQ(list.exit, 0) << list.err;
  for (const auto& [workload, targets] : {std::pair<std::string, std::string>{"generate-hashes-bzlmod-small", "4800"},
                                          {"generate-hashes-bzlmod-large", "24000"}}) {
    const std::size_t at = list.out.find("\n" + workload + "\n");
    ASSERT_NE(at, std::string::npos) << workload << " is not a gated workload of the flagship:\n" << list.out;
    const std::size_t fixture = list.out.find("fixture: ", at);
    EXPECT_EQ(list.out.substr(fixture, list.out.find('\n', fixture) - fixture),
              "fixture: generator bazel_workspace (fan_in = 4, shape = \"calibrated\", stream = \"bzlmod\", "
              "targets = " +
                  targets + ")")
        << list.out;
  }
}

TEST(FlagshipE2E, AnArgvUpstreamWouldRejectFailsOnTheStandIn) {
  TempDir dir;
  const fs::path spec = dir.path() / "old-argv.toml";
  // get-impacted-targets as it was spelled before upstream 17.0.1 made -w required.
  std::ofstream(spec) << "[run]\nrounds = 1\nwarmup_rounds = 0\n"
                      << "[contenders.baseline]\nargv = [\"" UPSTREAM_STANDIN "\"]\n"
                      << "[contenders.candidate]\nargv = [\"" REFDIFF_CANDIDATE "\"]\n"
                      << "[workloads.diff]\n"
                      << "args = [\"get-impacted-targets\", \"-sh\", \"{fixture}/start.json\", \"-fh\", "
                         "\"{fixture}/final.json\", \"-o\", \"{out}\"]\n"
                      << "output = \"{out}\"\nparity = \"exact\"\n"
                      << "fixture = { generator = \"hash_pair\", targets = 200 }\n";
  const Finished f = RunPerfengine({"run", spec.string(), "--cache-dir", (dir.path() / "cache").string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE((f.out + f.err).find("Missing required option: '--workspacePath=<workspacePath>'"), std::string::npos)
      << f.out << f.err;
}

}  // namespace
}  // namespace pe::e2e
