// `run --shard K/N` and `merge` end to end: one spec run whole and in shards with the stub
// contender; the merged verdict must have the checks of the whole run, and merge must refuse
// files that are not the shards of one run.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// Five plain workloads and a three-point sweep; the candidate sleeps 10 ms against 80 ms (the
// speedup stays above the 1.2x bar until start-up costs 340 ms), and "strict" asks for 50x, so
// the verdict is a miss on exactly one workload even on a loaded machine.
fs::path WriteSpec(const fs::path& dir, const std::string& name = "spec.toml", const std::string& extra = "") {
  const fs::path spec = dir / name;
  std::ofstream(spec) << "[run]\nrounds = 7\nwarmup_rounds = 0\nseed = 7\n"
                      << extra << "\n"
                      << "[contenders.baseline]\nargv = [\"" STUB_CONTENDER
                         "\", \"--sleep-ms\", \"80\", \"--print\", \"same\"]\n"
                      << "[contenders.candidate]\nargv = [\"" STUB_CONTENDER
                         "\", \"--sleep-ms\", \"10\", \"--print\", \"same\"]\n"
                      << "[workloads.alpha]\n[workloads.bravo]\n[workloads.charlie]\n[workloads.delta]\n"
                      << "[workloads.strict]\nthresholds = { min_speedup = 50.0 }\n"
                      << "[workloads.ramp]\nargs = [\"--sleep-ms\", \"{ms}\"]\n"
                      << "[workloads.ramp.sweep]\nms = [1, 2, 3]\n"
                      << "[thresholds]\nmin_speedup = 1.2\nmin_win_rate = 0.5\n";
  return spec;
}

nlohmann::json Read(const fs::path& p) { return nlohmann::json::parse(ReadAll(p)); }

std::string CheckText(const nlohmann::json& c) {
  return "check " + c["workload"].get<std::string>() + " " + c["threshold"].get<std::string>() +
         (c["skipped"].get<bool>()  ? " skipped"
          : c["passed"].get<bool>() ? " passed"
                                    : " failed");
}

// What must agree between a whole run and a merge: which checks, in which order, and how each
// came out; which workloads and sweeps; the exit.
std::vector<std::string> Structure(const nlohmann::json& r) {
  std::vector<std::string> out;
  out.push_back("exit " + r["verdict"]["exit"].get<std::string>());
  for (const auto& w : r["workloads"]) out.push_back("workload " + w["name"].get<std::string>());
  for (const auto& s : r["sweeps"]) out.push_back("sweep " + s["name"].get<std::string>());
  for (const auto& c : r["verdict"]["checks"]) {
    out.push_back(CheckText(c));
  }
  return out;
}

class ShardE2E : public ::testing::Test {
 protected:
  Finished Shard(const fs::path& spec, int k, int n, const fs::path& json) {
    return RunPerfengine(
        {"run", spec.string(), "--shard", std::to_string(k) + "/" + std::to_string(n), "--json", json.string()},
        dir_.path());
  }
  fs::path File(const std::string& name) const { return dir_.path() / name; }
  TempDir dir_;
};

TEST_F(ShardE2E, ThreeShardsMergedHaveTheChecksOfOneWholeRun) {
  const fs::path spec = WriteSpec(dir_.path());
  const Finished whole = RunPerfengine({"run", spec.string(), "--json", File("whole.json").string()}, dir_.path());
  ASSERT_EQ(whole.exit, 1) << whole.out << whole.err;

  std::vector<std::string> shard_files;
  std::vector<std::string> ran;
  for (int k = 1; k <= 3; ++k) {
    const fs::path json = File("shard" + std::to_string(k) + ".json");
    const Finished f = Shard(spec, k, 3, json);
    ASSERT_TRUE(f.exit == 0 || f.exit == 1) << f.out << f.err;
    EXPECT_NE(f.out.find("shard " + std::to_string(k) + " of 3: "), std::string::npos) << f.out;
    const auto r = Read(json);
    ASSERT_EQ(r["shards"].size(), 1u);
    EXPECT_EQ(r["shards"][0]["index"], k);
    EXPECT_EQ(r["shards"][0]["count"], 3);
    EXPECT_EQ(r["shards"][0]["selection"].size(), 8u);  // 5 plain workloads, 3 sweep points
    EXPECT_EQ(r["workloads"][0]["name"], "startup");    // every shard measures its own start-up
    for (const auto& w : r["shards"][0]["workloads"]) ran.push_back(w.get<std::string>());
    shard_files.push_back(json.string());
  }
  // Round-robin over the sorted names: every workload exactly once, shards within one in size.
  std::sort(ran.begin(), ran.end());
  EXPECT_EQ(ran, (std::vector<std::string>{"alpha", "bravo", "charlie", "delta", "ramp[ms=1]", "ramp[ms=2]",
                                           "ramp[ms=3]", "strict"}));
  EXPECT_EQ(Read(File("shard1.json"))["shards"][0]["workloads"],
            nlohmann::json::parse(R"(["alpha", "delta", "ramp[ms=3]"])"));

  // Given out of order on purpose: merge sorts by shard index.
  std::vector<std::string> args = {"merge",        shard_files[2],
                                   shard_files[0], shard_files[1],
                                   "--json",       File("merged.json").string(),
                                   "--markdown",   File("merged.md").string()};
  const Finished merged = RunPerfengine(args, dir_.path());
  EXPECT_EQ(merged.exit, 1) << merged.out << merged.err;
  EXPECT_NE(merged.out.find("strict: median speedup"), std::string::npos) << merged.out;
  for (int k = 1; k <= 3; ++k) {
    EXPECT_NE(merged.out.find("shard " + std::to_string(k) + " of 3: "), std::string::npos) << merged.out;
  }
  EXPECT_NE(ReadAll(File("merged.md")).find("- shard 2 of 3: 3 of 8 workloads on "), std::string::npos);
  const auto m = Read(File("merged.json"));
  EXPECT_EQ(Structure(m), Structure(Read(File("whole.json"))));
  EXPECT_EQ(m["shards"].size(), 3u);
  EXPECT_EQ(m["verdict"]["checks"].size(), 16u);  // 8 workloads x (median speedup, win rate)

  // A merged file is itself a results file: explain reads it.
  const Finished explained = RunPerfengine({"explain", File("merged.json").string()}, dir_.path());
  EXPECT_EQ(explained.exit, 0) << explained.err;
}

TEST_F(ShardE2E, MergeRefusesFilesThatAreNotTheShardsOfOneRun) {
  // Two real shards of a small spec; every other file is one of them doctored, since merge
  // reads nothing but the files.
  const fs::path spec = dir_.path() / "small.toml";
  std::ofstream(spec) << "[run]\nrounds = 1\nwarmup_rounds = 0\nseed = 7\n"
                      << "[contenders.baseline]\nargv = [\"" STUB_CONTENDER "\", \"--print\", \"same\"]\n"
                      << "[contenders.candidate]\nargv = [\"" STUB_CONTENDER "\", \"--print\", \"same\"]\n"
                      << "[workloads.alpha]\n[workloads.bravo]\n";
  ASSERT_LE(Shard(spec, 1, 2, File("a1.json")).exit, 1);
  ASSERT_LE(Shard(spec, 2, 2, File("a2.json")).exit, 1);
  const auto doctor = [&](const std::string& name, const std::function<void(nlohmann::json&)>& change) {
    auto results = Read(File("a2.json"));
    change(results);
    std::ofstream(File(name)) << results.dump();
    return File(name).string();
  };
  const std::string b2 = doctor("b2.json", [](nlohmann::json& r) {
    r["spec_path"] = "other.toml";
    r["spec_digest"] = "0123456789abcdef";
  });
  const std::string whole = doctor("whole.json", [](nlohmann::json& r) { r.erase("shards"); });
  const auto refused = [&](std::vector<std::string> files) {
    files.insert(files.begin(), "merge");
    const Finished f = RunPerfengine(files, dir_.path());
    EXPECT_EQ(f.exit, 2) << f.out;
    EXPECT_EQ(f.out, "");
    return f.err;
  };
  const std::string a1 = File("a1.json").string(), a2 = File("a2.json").string();
  EXPECT_EQ(refused({a1}), "perfengine: shard 2 of 2 is missing (given: 1)\n");
  EXPECT_EQ(refused({a1, a2, a1}), "perfengine: shard 1 of 2 is given twice: " + a1 + " and " + a1 + "\n");
  const std::string sha = Read(File("a1.json"))["spec_digest"].get<std::string>().substr(0, 12);
  EXPECT_EQ(refused({a1, b2}), "perfengine: " + a1 + " and " + b2 + " are not shards of one run: different specs (" +
                                   spec.string() + " sha256 " + sha + ", other.toml sha256 0123456789ab)\n");
  EXPECT_EQ(refused({whole, a1}),
            "perfengine: " + whole + " is not a shard's results file: it was not run with --shard K/N\n");
  const std::string rounds = doctor("rounds.json", [](nlohmann::json& r) { r["settings"]["rounds"] = 5; });
  EXPECT_EQ(refused({a1, rounds}),
            "perfengine: " + a1 + " and " + rounds + " are not shards of one run: different settings: rounds 1 vs 5\n");

  // A workload in a shard it does not belong to: in two shards at once.
  const std::string overlap = doctor(
      "overlap.json", [&](nlohmann::json& r) { r["workloads"].push_back(Read(File("a1.json"))["workloads"][1]); });
  EXPECT_EQ(Read(File("a1.json"))["workloads"][1]["name"], "alpha");
  EXPECT_EQ(refused({a1, overlap}), "perfengine: " + overlap + ": workload 'alpha' is not in shard 2 of 2\n");

  // The same spec with another seed: only a doctored file can have it, but merge must notice.
  auto doctored = Read(a2);
  doctored["settings"]["seed"] = 8;
  std::ofstream(File("seed.json")) << doctored.dump();
  EXPECT_EQ(refused({a1, File("seed.json").string()}), "perfengine: " + a1 + " and " + File("seed.json").string() +
                                                           " are not shards of one run: different seeds (7 vs 8)\n");
  auto three = Read(a2);
  three["shards"][0]["count"] = 3;
  std::ofstream(File("three.json")) << three.dump();
  EXPECT_EQ(refused({a1, File("three.json").string()}),
            "perfengine: " + a1 + " and " + File("three.json").string() +
                " are not shards of one run: shard 1 of 2 vs shard 2 of 3\n");

  // A usage mistake on the command line is exit 2 as well.
  const Finished bad = RunPerfengine({"run", spec.string(), "--shard", "3/2"}, dir_.path());
  EXPECT_EQ(bad.exit, 2);
  EXPECT_EQ(bad.err, "perfengine: --shard: '3/2' must be K/N with 1 <= K <= N, e.g. 2/4\n");
}

}  // namespace
}  // namespace pe::e2e
