// `run --shard K/N` and `merge` end to end with the stub contender: the merged verdict must
// have the checks of one whole run over the same samples; merge must refuse files that are not
// the shards of one run, and must judge a shard by its samples, never by what it stores.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// A verdict, whatever it is (0 pass, 1 missed, 3 unresolved), rather than a failed run (2).
bool AVerdict(int exit) { return exit == 0 || exit == 1 || exit == 3; }

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
                      << "[thresholds]\nmin_speedup = 1.2\nmin_win_rate = 0.5\n"
                      // Each check at 95% by hand: the split level of its 16 checks needs 11 rounds.
                      << "per_check_confidence = 0.95\n";
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

// The shards' samples put together as one shard of one: the run a whole unsharded run would
// have judged on these very samples (merge computes every figure again, as `run` does).
nlohmann::json Union(const std::vector<nlohmann::json>& shards) {
  nlohmann::json whole = shards.front();
  auto& info = whole["shards"][0];
  info["index"] = 1;
  info["count"] = 1;
  info["workloads"] = info["selection"];
  whole["workloads"] = nlohmann::json::array({shards.front()["workloads"][0]});  // shard 1's startup
  for (const auto& name : info["selection"]) {
    for (const auto& shard : shards) {
      for (const auto& w : shard["workloads"]) {
        if (w["name"] == name) whole["workloads"].push_back(w);
      }
    }
  }
  whole["sweeps"] = nlohmann::json::array();
  for (const auto& shard : shards) {
    for (const auto& sweep : shard["sweeps"]) {
      if (whole["sweeps"].empty()) whole["sweeps"].push_back(sweep);
    }
  }
  return whole;
}

// Issue 24: the merged verdict is compared with the whole run computed from the same samples,
// never with a second, separately timed run (two timed runs can differ by nature).
TEST_F(ShardE2E, ThreeShardsMergedHaveTheChecksOfOneWholeRun) {
  const fs::path spec = WriteSpec(dir_.path());
  std::vector<std::string> shard_files;
  std::vector<nlohmann::json> shards;
  std::vector<std::string> ran;
  for (int k = 1; k <= 3; ++k) {
    const fs::path json = File("shard" + std::to_string(k) + ".json");
    const Finished f = Shard(spec, k, 3, json);
    ASSERT_TRUE(f.exit == 0 || f.exit == 1 || f.exit == 3) << f.out << f.err;
    EXPECT_NE(f.out.find("shard " + std::to_string(k) + " of 3: "), std::string::npos) << f.out;
    const auto r = Read(json);
    ASSERT_EQ(r["shards"].size(), 1u);
    EXPECT_EQ(r["shards"][0]["index"], k);
    EXPECT_EQ(r["shards"][0]["count"], 3);
    EXPECT_EQ(r["shards"][0]["selection"].size(), 8u);  // 5 plain workloads, 3 sweep points
    EXPECT_EQ(r["workloads"][0]["name"], "startup");    // every shard measures its own start-up
    for (const auto& w : r["shards"][0]["workloads"]) ran.push_back(w.get<std::string>());
    shard_files.push_back(json.string());
    shards.push_back(r);
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
  EXPECT_EQ(merged.exit, 1) << merged.out << merged.err;  // "strict" asks for 50x
  EXPECT_NE(merged.out.find("strict: median speedup"), std::string::npos) << merged.out;
  for (int k = 1; k <= 3; ++k) {
    EXPECT_NE(merged.out.find("shard " + std::to_string(k) + " of 3: "), std::string::npos) << merged.out;
  }
  EXPECT_NE(ReadAll(File("merged.md")).find("- shard 2 of 3: 3 of 8 workloads on "), std::string::npos);

  std::ofstream(File("union.json")) << Union(shards).dump();
  const Finished whole =
      RunPerfengine({"merge", File("union.json").string(), "--json", File("whole.json").string()}, dir_.path());
  ASSERT_EQ(whole.exit, merged.exit) << whole.out << whole.err;
  const auto m = Read(File("merged.json"));
  const auto w = Read(File("whole.json"));
  EXPECT_EQ(Structure(m), Structure(w));
  EXPECT_EQ(m["verdict"]["checks"].size(), 16u);  // 8 workloads x (median speedup, win rate)
  EXPECT_EQ(m["verdict"]["checks"], w["verdict"]["checks"]);  // the same figures, to the last bit
  EXPECT_EQ(m["verdict"]["lines"], w["verdict"]["lines"]);
  EXPECT_EQ(m["sweeps"], w["sweeps"]);
  EXPECT_EQ(m["shards"].size(), 3u);

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
  ASSERT_TRUE(AVerdict(Shard(spec, 1, 2, File("a1.json")).exit));
  ASSERT_TRUE(AVerdict(Shard(spec, 2, 2, File("a2.json")).exit));
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

// A shard file comes from a job that ran the pull request's code: what it stores about itself
// is not evidence. Two workloads, one a shard; the candidate is slower (16 ms against 10 ms).
class ShardFilesAreData : public ShardE2E {
 protected:
  void SetUp() override {
    spec_ = dir_.path() / "slower.toml";
    std::ofstream(spec_) << "[run]\nrounds = 7\nwarmup_rounds = 1\nseed = 7\n"
                         << "[contenders.baseline]\nargv = [\"" STUB_CONTENDER
                            "\", \"--sleep-ms\", \"10\", \"--print\", \"same\"]\n"
                         << "[contenders.candidate]\nargv = [\"" STUB_CONTENDER
                            "\", \"--sleep-ms\", \"16\", \"--print\", \"same\"]\n"
                         << "[workloads.alpha]\n[workloads.bravo]\n"
                         << "[thresholds]\nmin_speedup = 1.0\nper_check_confidence = 0.95\n";
    // 1 in all likelihood; on a loaded machine the verdict may be anything but a failed run.
    ASSERT_TRUE(AVerdict(Shard(spec_, 1, 2, File("s1.json")).exit));
    ASSERT_TRUE(AVerdict(Shard(spec_, 2, 2, File("s2.json")).exit));
  }
  // Shard `k`'s file changed by `change`, written as `name`.
  std::string Doctor(int k, const std::string& name, const std::function<void(nlohmann::json&)>& change) {
    auto results = Read(File("s" + std::to_string(k) + ".json"));
    change(results);
    std::ofstream(File(name)) << results.dump();
    return File(name).string();
  }
  nlohmann::json& Workload(nlohmann::json& r, const std::string& name) {
    for (auto& w : r["workloads"]) {
      if (w["name"] == name) return w;
    }
    throw std::runtime_error("no workload " + name);
  }
  Finished Merge(const std::string& one, const std::string& two, const std::string& json = "merged.json") {
    return RunPerfengine({"merge", one, two, "--json", File(json).string()}, dir_.path());
  }
  std::string Refused(const std::string& one, const std::string& two) {
    const Finished f = Merge(one, two);
    EXPECT_EQ(f.exit, 2) << f.out;
    EXPECT_EQ(f.out, "");
    return f.err;
  }
  fs::path spec_;
};

// B3: a slower candidate's figures edited to a 1.5x speed-up (sequence, wins, summaries and
// verdict too) in both shards: merge computes them again from the samples, so the merged result
// is the one the unedited shards give, to the last bit, whatever the timings were.
TEST_F(ShardFilesAreData, EditedFiguresDoNotChangeTheMergedVerdict) {
  const auto flatter = [](nlohmann::json& r) {
    for (auto& w : r["workloads"]) {
      if (!w.contains("comparison")) continue;
      auto& c = w["comparison"];
      c["speedup"] = 1.5;
      c["wins"] = c["rounds"];
      c["win_rate"] = 1.0;
      c["speedup_cs"]["estimate"] = 1.5;
      c["speedup_cs"]["low"] = 1.4;
      c["speedup_cs"]["high"] = 1.6;
      for (auto& s : w["summaries"]) s["median_wall_s"] = s["contender"] == "candidate" ? 0.01 : 0.015;
    }
    r["verdict"]["exit"] = "pass";
    r["verdict"]["checks"] = nlohmann::json::array();
    r["verdict"]["lines"] = nlohmann::json::array();
  };
  const Finished honest = Merge(File("s1.json").string(), File("s2.json").string(), "honest.json");
  const std::string one = Doctor(1, "d1.json", flatter), two = Doctor(2, "d2.json", flatter);
  const Finished edited = Merge(one, two, "edited.json");
  EXPECT_EQ(edited.exit, honest.exit) << edited.out << edited.err;
  EXPECT_EQ(edited.out, honest.out);
  auto h = Read(File("honest.json"));
  auto e = Read(File("edited.json"));
  EXPECT_EQ(e["verdict"], h["verdict"]);
  ASSERT_EQ(e["verdict"]["checks"].size(), 2u);
  for (const std::string name : {"alpha", "bravo"}) {
    EXPECT_EQ(Workload(e, name)["comparison"], Workload(h, name)["comparison"]) << name;
    EXPECT_EQ(Workload(e, name)["summaries"], Workload(h, name)["summaries"]) << name;
    EXPECT_NE(Workload(e, name)["comparison"]["speedup"], 1.5) << name;  // the claim is gone
  }
}

TEST_F(ShardFilesAreData, TruncatedOrUnpairedSamplesAreRefused) {
  const std::string s1 = File("s1.json").string();
  // The candidate's last two rounds of bravo dropped: its remaining rounds no longer pair.
  const std::string unpaired = Doctor(2, "unpaired.json", [&](nlohmann::json& r) {
    auto& samples = Workload(r, "bravo")["samples"];
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& x : samples) {
      if (!(x["contender"] == "candidate" && x["round"].get<int>() >= 6)) kept.push_back(x);
    }
    samples = kept;
  });
  EXPECT_EQ(Refused(s1, unpaired), "perfengine: " + unpaired +
                                       ": shard 2 of 2 cannot be merged: workload 'bravo': 'candidate' has no "
                                       "sample in round 6, which 'baseline' has\n");
  // Both contenders cut to their first four measured rounds: fewer than [run] rounds = 7.
  const std::string truncated = Doctor(2, "truncated.json", [&](nlohmann::json& r) {
    auto& samples = Workload(r, "bravo")["samples"];
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& x : samples) {
      if (x["round"].get<int>() < 5) kept.push_back(x);
    }
    samples = kept;
  });
  EXPECT_EQ(Refused(s1, truncated), "perfengine: " + truncated +
                                        ": shard 2 of 2 cannot be merged: workload 'bravo': 'baseline' has 4 "
                                        "measured rounds, fewer than the 7 the settings say\n");
  // A slow round of the candidate moved onto another round: two samples in one round.
  const std::string moved = Doctor(1, "moved.json", [&](nlohmann::json& r) {
    for (auto& x : Workload(r, "alpha")["samples"]) {
      if (x["contender"] == "candidate" && x["round"] == 3) x["round"] = 2;
    }
  });
  EXPECT_EQ(Refused(moved, File("s2.json").string()),
            "perfengine: " + moved +
                ": shard 1 of 2 cannot be merged: workload 'alpha': 'candidate' has two "
                "samples in round 2\n");
}

TEST_F(ShardFilesAreData, AnIncompleteShardIsRefused) {
  const std::string s1 = File("s1.json").string();
  const std::string marked = Doctor(2, "marked.json", [](nlohmann::json& r) { r["complete"] = false; });
  EXPECT_EQ(Refused(s1, marked), "perfengine: " + marked +
                                     ": shard 2 of 2 is incomplete (marked so, with no failure recorded); run it "
                                     "again\n");
  const std::string interrupted = Doctor(2, "interrupted.json", [](nlohmann::json& r) {
    r["complete"] = false;
    r["failures"] = nlohmann::json::parse(
        R"([{"kind": "interrupted", "workload": "", "contender": "", "message": "interrupted by signal 2 )"
        R"((Interrupt); the results are incomplete", "detail": ""}])");
  });
  EXPECT_EQ(Refused(s1, interrupted),
            "perfengine: " + interrupted +
                ": shard 2 of 2 is incomplete (interrupted by signal 2 (Interrupt); the results are incomplete); run "
                "it again\n");
}

// Thresholds and gate flags are claims too: given the spec, merge holds them against it.
TEST_F(ShardFilesAreData, WithTheSpecADroppedThresholdOrAnUngatedWorkloadIsRefused) {
  const std::string s1 = File("s1.json").string(), s2 = File("s2.json").string();
  const Finished honest =
      RunPerfengine({"merge", s1, s2, "--spec", spec_.string(), "--json", File("merged.json").string()}, dir_.path());
  EXPECT_EQ(honest.exit, Merge(s1, s2).exit) << honest.out << honest.err;
  const auto refused = [&](const std::string& doctored) {
    const Finished f = RunPerfengine({"merge", s1, doctored, "--spec", spec_.string()}, dir_.path());
    EXPECT_EQ(f.exit, 2) << f.out;
    EXPECT_EQ(f.out, "");
    return f.err;
  };
  const std::string dropped =
      Doctor(2, "dropped.json", [&](nlohmann::json& r) { Workload(r, "bravo")["thresholds"].erase("min_speedup"); });
  EXPECT_EQ(refused(dropped), "perfengine: " + dropped + ": workload 'bravo': thresholds are not " + spec_.string() +
                                  "'s: min_speedup none vs 1.0\n");
  const std::string ungated =
      Doctor(2, "ungated.json", [&](nlohmann::json& r) { Workload(r, "bravo")["gate"] = false; });
  EXPECT_EQ(refused(ungated),
            "perfengine: " + ungated + ": workload 'bravo': gate false vs true in " + spec_.string() + "\n");
  // Without --spec the shards' own thresholds are all there is: the dropped one is not checked.
  EXPECT_TRUE(AVerdict(Merge(s1, dropped).exit));
}

}  // namespace
}  // namespace pe::e2e
