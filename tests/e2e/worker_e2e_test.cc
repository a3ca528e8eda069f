// Worker workloads end to end (docs/workers.md): the real perfengine on specs whose contenders
// are the test worker (tests/stub/worker), whose work, counters, digests and misbehaviour each
// test chooses from its argv. Gates fail on differences of a known size and pass on A/A pairs;
// the timed case plants a difference (twice the work) that no load on the machine can hide.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/personality.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e::workers {
namespace {

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// A spec with two worker contenders; `candidate_flags` are the candidate's test-worker flags.
fs::path WriteWorkerSpec(const TempDir& dir, const std::string& run, const std::string& candidate_flags,
                         const std::string& rest) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\n"
                      << run << "\n[contenders.baseline]\nworker = [" << Quoted(TEST_WORKER) << "]\n\n"
                      << "[contenders.candidate]\nworker = [" << Quoted(TEST_WORKER)
                      << (candidate_flags.empty() ? "" : ", " + candidate_flags)
                      << "]\n"
                      // The test's folder: where a worker told to (--hang-child) writes a pid.
                      << "writable = [" << Quoted(dir.path().string()) << "]\n\n"
                      << rest;
  return spec;
}

const char* kCallsCounter =
    "[counters.calls]\nunit = \"calls\"\nexact = true\n\n[thresholds.counters]\ncalls = 1.0\n\n";
const char* kSum = "[workloads.sum]\nkind = \"worker\"\n";

// The lines of a file (a worker's --log-shift log).
std::vector<std::string> Lines(const fs::path& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Runs a worker spec whose candidate appends $PERFENGINE_WORKER_SHIFT to `log` at each start
// (test-worker --log-shift, with " no-aslr" when its address randomization is off), exit 0
// expected; the log's lines.
std::vector<std::string> ShiftLog(const TempDir& dir, const std::string& log, const std::string& run_keys,
                                  const std::string& workloads) {
  const fs::path path = dir.path() / log;
  const fs::path spec = WriteWorkerSpec(dir, run_keys, "\"--log-shift\", " + Quoted(path.string()), workloads);
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  return Lines(path);
}

// The median over measured rounds of a contender's CPU time per iteration (user_s).
double MedianCpu(const nlohmann::json& results, const std::string& contender) {
  std::vector<double> cpu;
  for (const nlohmann::json& s : results["workloads"][0]["samples"]) {
    if (s["contender"] == contender && !s["warmup"].get<bool>()) cpu.push_back(s["user_s"].get<double>());
  }
  if (cpu.empty()) return 0;
  std::sort(cpu.begin(), cpu.end());
  return cpu[cpu.size() / 2];
}

bool HaveValgrind() { return std::system("valgrind --version > /dev/null 2>&1") == 0; }

TEST(WorkerE2E, AnExactCounterGrowthFailsAndTheSameWorkerPasses) {
  TempDir dir;
  const fs::path json = dir.path() / "results.json";
  const fs::path planted = WriteWorkerSpec(dir, "rounds = 3\nbatch_time = 0.01\n", "\"--calls-per-iteration\", \"2\"",
                                           std::string(kCallsCounter) + kSum);
  Finished run = RunPerfengine({"run", planted.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("sum: calls ratio 2.00x (candidate 2 calls, baseline 1 calls) is above the allowed 1.00x"),
            std::string::npos)
      << run.out;
  // The results file: a worker workload, its batch size and digest, figures per iteration.
  const nlohmann::json results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["settings"]["batch_time_s"], 0.01);
  const nlohmann::json& sum = results["workloads"][0];
  EXPECT_EQ(sum["name"], "sum");
  EXPECT_EQ(sum["kind"], "worker");
  EXPECT_EQ(sum["parity"], "digest");
  EXPECT_EQ(sum["worker"]["benchmark"], "sum");
  const std::int64_t n = sum["worker"]["iterations"];
  EXPECT_GE(n, 1);
  int measured = 0;
  for (const nlohmann::json& s : sum["samples"]) {
    EXPECT_EQ(s["worker"]["iterations"], n) << s.dump();  // the same batch size for both contenders
    EXPECT_GT(s["wall_s"].get<double>(), 0);
    EXPECT_LT(s["wall_s"].get<double>(), 0.01);  // per iteration, not per batch
    EXPECT_EQ(s["counters"][0]["value"], s["contender"] == "baseline" ? 1.0 : 2.0);
    if (!s["warmup"].get<bool>()) ++measured;
  }
  EXPECT_EQ(measured, 6);  // 3 rounds, two contenders, one sample each
  // No startup workload: nothing in a worker's figures is a process's start.
  EXPECT_EQ(results["workloads"].size(), 1u);

  const fs::path same = WriteWorkerSpec(dir, "rounds = 3\nbatch_time = 0.01\n", "", std::string(kCallsCounter) + kSum);
  run = RunPerfengine({"run", same.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
}

// [run] batches: each contender runs that many measured batches a round; its time is the batch
// with the least CPU time per iteration, its counters its first batch's. The candidate's 2nd,
// 4th, ... requests do four times the work and report twice the calls. With 3 batches (no
// warm-up) the 1st and 3rd are fast: calls 1.00x, a pass, and its CPU time near the baseline's.
// With 1 batch, after its warm-up, only the slow one is measured: 2.00x, a miss, and four times
// the work. CPU time, not wall, picks the batch, and the medians compared differ fourfold, so
// load on the machine cannot change the outcome.
TEST(WorkerE2E, EachRoundTakesTheFastestOfItsBatches) {
  TempDir dir;
  const fs::path json = dir.path() / "results.json";
  const fs::path three = WriteWorkerSpec(dir, "rounds = 3\nbatch_time = 0.005\nbatches = 3\n", "\"--slow-odd-batches\"",
                                         std::string(kCallsCounter) + kSum);
  Finished run = RunPerfengine({"run", three.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["settings"]["batches"], 3);
  int measured = 0;
  for (const nlohmann::json& s : results["workloads"][0]["samples"]) {
    EXPECT_EQ(s["worker"]["batches"], 3) << s.dump();
    EXPECT_EQ(s["counters"][0]["value"], 1.0) << s.dump();
    if (!s["warmup"].get<bool>()) ++measured;
  }
  EXPECT_EQ(measured, 6);  // one sample per contender and round, however many batches
  EXPECT_LT(MedianCpu(results, "candidate"), 2 * MedianCpu(results, "baseline"));
  EXPECT_NE(run.out.find("each contender runs 3 measured batches of"), std::string::npos) << run.out;

  const fs::path one = WriteWorkerSpec(dir, "rounds = 3\nbatch_time = 0.005\nbatches = 1\n", "\"--slow-odd-batches\"",
                                       std::string(kCallsCounter) + kSum);
  run = RunPerfengine({"run", one.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("sum: calls ratio 2.00x"), std::string::npos) << run.out;
  EXPECT_GT(MedianCpu(nlohmann::json::parse(ReadAll(json)), "candidate"),
            2 * MedianCpu(nlohmann::json::parse(ReadAll(json)), "baseline"));
}

TEST(WorkerE2E, InstructionsAndAllocationsPerBenchmarkCatchAPlantedRegressionAndNameTheFunction) {
  if (!HaveValgrind()) GTEST_SKIP() << "valgrind is not installed";
  TempDir dir;
  const std::string bars = "[thresholds]\nmax_instructions_ratio = 1.01\nmax_allocations_ratio = 1.0\n\n";
  // +5% arithmetic and one malloc an iteration: both exact counts see it, and the profile names malloc.
  const fs::path planted = WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.01\n",
                                           "\"--extra-work\", \"5\", \"--mallocs-per-iteration\", \"1\"", bars + kSum);
  Finished run = RunPerfengine({"run", planted.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("sum: instruction count ratio 1.0"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("sum: allocation count ratio unbounded is above the allowed 1.00x"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("malloc"), std::string::npos) << run.out;  // where the extra time went
  // The counts are the batch's loop alone: the same worker counts the same instructions.
  const fs::path json = dir.path() / "aa.json";
  const fs::path same = WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.01\n", "", bars + kSum);
  run = RunPerfengine({"run", same.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(json));
  const nlohmann::json& c = results["workloads"][0]["comparison"];
  EXPECT_EQ(c["instructions_ratio"], 1.0) << c.dump();
}

// Own-code instructions (docs/no-regression.md): work the candidate adds in libc (malloc and free)
// grows the whole count, not its own code's; work it adds in its own loop grows both.
TEST(WorkerE2E, OwnCodeInstructionsSeeTheWorkersOwnLoopNotLibc) {
  if (!HaveValgrind()) GTEST_SKIP() << "valgrind is not installed";
  TempDir dir;
  const std::string bars = "[thresholds]\nmax_instructions_ratio = 1.05\nmax_own_instructions_ratio = 1.05\n\n";
  const fs::path json = dir.path() / "libc.json";
  const fs::path in_libc =
      WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.01\n", "\"--mallocs-per-iteration\", \"10\"", bars + kSum);
  Finished run = RunPerfengine({"run", in_libc.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("sum: instruction count ratio"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("sum: own-code instruction ratio"), std::string::npos) << run.out;  // it passed
  nlohmann::json c = nlohmann::json::parse(ReadAll(json))["workloads"][0]["comparison"];
  EXPECT_GT(c["instructions_ratio"].get<double>(), 1.1) << c.dump();
  EXPECT_LT(c["own_instructions_ratio"].get<double>(), 1.05) << c.dump();
  // The own count is part of the whole, and the details line shows both.
  const nlohmann::json summary = nlohmann::json::parse(ReadAll(json))["workloads"][0]["summaries"][1];
  EXPECT_GT(summary["own_instructions"].get<std::uint64_t>(), 0u) << summary.dump();
  EXPECT_LT(summary["own_instructions"].get<std::uint64_t>(), summary["instructions"].get<std::uint64_t>());

  const fs::path own = WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.01\n", "\"--extra-work\", \"20\"", bars + kSum);
  run = RunPerfengine({"run", own.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("sum: own-code instruction ratio 1.2"), std::string::npos) << run.out;
  c = nlohmann::json::parse(ReadAll(json))["workloads"][0]["comparison"];
  EXPECT_GT(c["own_instructions_ratio"].get<double>(), c["instructions_ratio"].get<double>()) << c.dump();

  // The same worker on both sides: both counts equal to the instruction.
  const fs::path same = WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.01\n", "", bars + kSum);
  run = RunPerfengine({"run", same.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  c = nlohmann::json::parse(ReadAll(json))["workloads"][0]["comparison"];
  EXPECT_EQ(c["own_instructions_ratio"], 1.0) << c.dump();
}

// A Ruby worker's own profile (docs/workers.md, "Profiles"): a candidate whose benchmark also
// calls Hash#transform_keys each iteration fails its Ruby-object bar, and the report names the
// method, counted by the worker library with $PERFENGINE_PROFILE set, where callgrind sees the VM.
TEST(WorkerE2E, ARubyWorkersOwnProfileNamesTheMethodAChangeAdded) {
  if (!fs::exists("/usr/bin/ruby")) GTEST_SKIP() << "ruby is not installed";
  TempDir dir;
  const fs::path script = dir.path() / "keys.rb";
  std::ofstream(script) << "require " << Quoted(std::string(PE_SOURCE_DIR) + "/workers/ruby/perfengine_worker")
                        << "\nextra = ENV[\"EXTRA\"] == \"1\"\nh = { \"a\" => 1 }\nworker = PerfEngine::Worker.new\n"
                        << "worker.benchmark(\"keys\") { h.transform_keys(&:itself) if extra; h.size }\nworker.serve\n";
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 2\nbatch_time = 0.002\n\n[contenders.baseline]\nworker = [\"/usr/bin/ruby\", "
                      << Quoted(script.string()) << "]\n\n[contenders.candidate]\nworker = [\"/usr/bin/ruby\", "
                      << Quoted(script.string()) << "]\nenv = { EXTRA = \"1\" }\n\n"
                      << "[counters.ruby_objects]\nunit = \"objects\"\nexact = true\n\n"
                      << "[thresholds.counters]\nruby_objects = 1.0\n\n[workloads.keys]\nkind = \"worker\"\n";
  const fs::path json = dir.path() / "out.json";
  const Finished run = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("keys: ruby_objects ratio"), std::string::npos) << run.out;
  bool named = false;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(json));
  nlohmann::json profile;
  for (const nlohmann::json& w : results["workloads"]) {
    if (w["name"] == "keys") profile = w["profile"];
  }
  for (const nlohmann::json& f : profile) {
    if (f["function"] == "Hash#transform_keys" && f["basis"] == "calls") {
      named = true;
      EXPECT_EQ(f["baseline_cost"], 0) << f.dump();
      EXPECT_GT(f["candidate_cost"].get<int>(), 0) << f.dump();
    }
  }
  EXPECT_TRUE(named) << profile.dump();
  EXPECT_NE(run.out.find("Hash#transform_keys: 0 -> "), std::string::npos) << run.out;
}

// A count that misses in the shared worker is counted again in workers started for that
// benchmark alone: what other benchmarks left in a warm worker's heap is no regression.
TEST(WorkerE2E, ACountThatMissesOnlyInTheSharedWorkerIsCountedAgainAloneAndPasses) {
  if (!HaveValgrind()) GTEST_SKIP() << "valgrind is not installed";
  TempDir dir;
  const std::string rest = "[thresholds]\nmax_instructions_ratio = 1.01\n\n" + std::string(kSum) +
                           "\n[workloads.sleepy]\nkind = \"worker\"\nbenchmark = \"sleep\"\n";
  const fs::path spec =
      WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.01\n", "\"--extra-work-when-shared\", \"20\"", rest);
  Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("worker benchmark 'sum': its instructions were counted again in workers started for it "
                         "alone, as the shared worker's count"),
            std::string::npos)
      << run.out;
  // A regression that is the benchmark's own is still one when counted alone.
  const fs::path planted = WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.01\n", "\"--extra-work\", \"20\"", rest);
  run = RunPerfengine({"run", planted.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("sum: instruction count ratio 1.2"), std::string::npos) << run.out;  // 20% more arithmetic
}

// A count that still misses alone, by less than 5% of the bar, is counted once more alone and the
// figure is the count that grew the least (docs/workers.md, "Counts"): 2% more arithmetic in the
// candidate's shared and first lone count only is a process's layout, not a regression; in all
// three it is one.
TEST(WorkerE2E, ANearMissCountedAloneIsCountedOnceMoreAndTheLeastGrowthIsTheFigure) {
  if (!HaveValgrind()) GTEST_SKIP() << "valgrind is not installed";
  TempDir dir;
  const std::string rest = "[thresholds]\nmax_instructions_ratio = 1.01\n\n" + std::string(kSum);
  auto run = [&](const std::string& log, int with_extra) {
    const std::string flags = "\"--extra-work-in-counts\", \"2\", \"--count-log\", " +
                              Quoted((dir.path() / log).string()) + ", \"--counts-with-extra\", \"" +
                              std::to_string(with_extra) + "\"";
    return RunPerfengine({"run", WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.01\n", flags, rest).string()},
                         dir.path());
  };
  Finished layout = run("two.log", 2);
  EXPECT_EQ(layout.exit, 0) << layout.out << layout.err;
  EXPECT_NE(layout.out.find("its instructions missed alone by less than 5% of the bar, so each contender was "
                            "counted twice alone"),
            std::string::npos)
      << layout.out;
  Finished planted = run("three.log", 3);
  EXPECT_EQ(planted.exit, 1) << planted.out << planted.err;
  EXPECT_NE(planted.out.find("sum: instruction count ratio 1.02"), std::string::npos) << planted.out;
}

TEST(WorkerE2E, APlantedCpuRegressionOfTwiceTheWorkFailsTheCpuCheck) {
  TempDir dir;
  const fs::path spec = WriteWorkerSpec(dir, "rounds = 12\nbatch_time = 0.01\n", "\"--extra-work\", \"100\"",
                                        std::string("[thresholds]\nmax_slowdown = 1.05\n\n") + kSum);
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("sum: paired CPU-time ratio"), std::string::npos) << run.out;
}

// [run] final_look (docs/statistics.md, "A final look"): seven rounds are one fewer than the
// confidence sequence, at half of 5% under a final look, needs to show anything (eight straight
// rounds), so when twice the work fails the check in seven it is the final look's Hodges-Lehmann
// interval that showed it (every round's ratio above the bar, the one way seven rounds can show
// it at 97.5%), and the line says which interval it read.
TEST(WorkerE2E, AFinalLookShowsInSevenRoundsWhatItsSequenceCannot) {
  TempDir dir;
  const fs::path spec =
      WriteWorkerSpec(dir, "rounds = 7\nbatch_time = 0.01\nfinal_look = \"signed-rank\"\n", "\"--extra-work\", \"100\"",
                      std::string("[thresholds]\nmax_slowdown = 1.05\n\n") + kSum);
  const fs::path json = dir.path() / "results.json";
  const Finished run = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("sum: paired CPU-time ratio "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("95% interval (confidence sequence and signed-rank final look)"), std::string::npos)
      << run.out;
  const nlohmann::json results = nlohmann::json::parse(std::ifstream(json));
  EXPECT_EQ(results["settings"]["final_look"], "signed-rank");
  // Above the bar: with seven rounds the interval's low end is the slowest-looking round's own
  // ratio (k = 1), which a busy machine can bring well below twice the work.
  EXPECT_GT(results["workloads"][0]["comparison"]["cpu_ratio_cs"]["low"].get<double>(), 1.05);
  const std::string method = results["workloads"][0]["comparison"]["cpu_ratio_cs"]["method"];
  EXPECT_NE(method.find("at 97.5%, intersected at the final look (round 7)"), std::string::npos) << method;
}

// [run] futility (docs/statistics.md, "Stopping for futility"): the same worker on both sides
// stops measuring once its final look, at round 40, could not show the CPU-time ratio above
// 1.03x: at 99.9% the sequence cannot resolve the check in so few rounds, so only the futility
// rule ends the run before max_rounds, and the check passes unresolved. Twice the work is not
// stopped: it fails.
TEST(WorkerE2E, FutilityEndsAnAAPairEarlyAndLetsTwiceTheWorkFail) {
  TempDir dir;
  const std::string run_keys =
      "rounds = 5\nmax_rounds = 40\nconfidence = 0.999\nbatch_time = 0.005\nfinal_look = \"signed-rank\"\n"
      "futility = \"conditional-power\"\n";
  const std::string bars = std::string("[thresholds]\nmax_slowdown = 1.03\n\n") + kSum;
  const fs::path json = dir.path() / "aa.json";
  Finished run =
      RunPerfengine({"run", WriteWorkerSpec(dir, run_keys, "", bars).string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("its rounds stopped for futility"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("max_slowdown stopped for futility after "), std::string::npos) << run.out;
  const nlohmann::json results = nlohmann::json::parse(std::ifstream(json));
  EXPECT_EQ(results["settings"]["futility"], "conditional-power");
  const nlohmann::json& c = results["workloads"][0]["comparison"];
  EXPECT_LT(c["rounds"].get<int>(), 40) << c.dump();
  EXPECT_GE(c["rounds"].get<int>(), 8) << c.dump();
  EXPECT_LT(c["cpu_futility_chance"].get<double>(), 0.05) << c.dump();
  const auto& checks = results["verdict"]["checks"];
  ASSERT_EQ(checks.size(), 1u) << checks.dump();
  EXPECT_TRUE(checks[0]["futile"].get<bool>()) << checks.dump();
  EXPECT_EQ(checks[0]["state"], "unresolved") << checks.dump();
  EXPECT_TRUE(checks[0].contains("detectable")) << checks.dump();  // by round 40, at these rounds' noise
  EXPECT_NE(run.out.find("or more with 80% power at 99.9% confidence by the run's last round"), std::string::npos)
      << run.out;

  run = RunPerfengine({"run", WriteWorkerSpec(dir, run_keys, "\"--extra-work\", \"100\"", bars).string()}, dir.path());
  EXPECT_EQ(run.exit, 1) << run.out << run.err;
  EXPECT_EQ(run.out.find("stopped for futility"), std::string::npos) << run.out;
}

// PERFENGINE_WORKER_SHIFT (docs/workers.md, "Layout"): each round gets a seed of its
// own, the same for the same run seed, and the calibration and counting workers none (an empty
// value), so their counts cannot depend on the round.
TEST(WorkerE2E, RoundWorkersGetADifferentLayoutSeedEachRoundAndCountingWorkersNone) {
  TempDir dir;
  auto seeds = [&](const std::string& name) {
    return ShiftLog(dir, name, "rounds = 3\nwarmup_rounds = 0\nbatch_time = 0.002\nmeasure = [\"allocations\"]\n",
                    kSum);
  };
  const std::vector<std::string> first = seeds("shift-1.log"), again = seeds("shift-2.log");
  // The calibration worker, one round worker a round (the candidate's), the allocation count's.
  ASSERT_EQ(first.size(), 5u) << testing::PrintToString(first);
  EXPECT_EQ(first.front(), "");
  EXPECT_EQ(first.back(), "");
  const std::set<std::string> rounds(first.begin() + 1, first.end() - 1);
  EXPECT_EQ(rounds.size(), 3u) << testing::PrintToString(first);
  for (const std::string& seed : rounds) EXPECT_FALSE(seed.empty() || seed == "unset") << seed;
  EXPECT_EQ(first, again);
}

// The contenders of a round share its seed (docs/workers.md, "Layout"): the same draw on both
// sides, so a layout that is the same on both cancels in the round's ratio.
TEST(WorkerE2E, TheContendersOfARoundShareItsLayoutSeed) {
  TempDir dir;
  const fs::path base_log = dir.path() / "base.log", cand_log = dir.path() / "cand.log";
  const fs::path spec = dir.path() / "shared.toml";
  std::ofstream(spec) << "[run]\nrounds = 3\nwarmup_rounds = 0\nbatch_time = 0.002\n\n"
                      << "[contenders.baseline]\nworker = [" << Quoted(TEST_WORKER) << ", \"--log-shift\", "
                      << Quoted(base_log.string()) << "]\nwritable = [" << Quoted(dir.path().string()) << "]\n\n"
                      << "[contenders.candidate]\nworker = [" << Quoted(TEST_WORKER) << ", \"--log-shift\", "
                      << Quoted(cand_log.string()) << "]\nwritable = [" << Quoted(dir.path().string()) << "]\n\n"
                      << kSum;
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  const std::vector<std::string> base = Lines(base_log), cand = Lines(cand_log);
  ASSERT_GE(base.size(), 4u) << testing::PrintToString(base);  // a calibration worker, then one a round
  EXPECT_EQ(base, cand);
  EXPECT_EQ(std::set<std::string>(base.begin() + 1, base.begin() + 4).size(), 3u) << testing::PrintToString(base);
}

// [run] randomize_addresses = false: each round's workers start with the kernel's address-space
// randomization off (their layout comes from the round's seed); the calibration and counting
// workers, and every worker without the key, keep it.
TEST(WorkerE2E, RandomizeAddressesFalseTurnsItOffInRoundWorkersOnly) {
  // A container's seccomp profile may forbid the call (the start then fails, as designed).
  const int persona = personality(0xffffffff);
  if (persona == -1 || personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1) {
    GTEST_SKIP() << "this kernel or container forbids personality(ADDR_NO_RANDOMIZE)";
  }
  personality(static_cast<unsigned long>(persona));
  TempDir dir;
  auto logged = [&](const std::string& name, const std::string& key) {
    return ShiftLog(dir, name, "rounds = 2\nwarmup_rounds = 0\nbatch_time = 0.002\nmeasure = [\"allocations\"]\n" + key,
                    kSum);
  };
  const std::vector<std::string> off = logged("off.log", "randomize_addresses = false\n");
  ASSERT_EQ(off.size(), 4u) << testing::PrintToString(off);  // calibration, two rounds, the count
  EXPECT_EQ(off.front(), "");
  EXPECT_EQ(off.back(), "");
  for (int round : {1, 2}) EXPECT_TRUE(off[round].ends_with(" no-aslr")) << off[round];
  for (const std::string& line : logged("on.log", "")) EXPECT_FALSE(line.ends_with(" no-aslr")) << line;
}

// [run] pin_workers = true: each round's workers, every contender's, run on one CPU, the same
// all run long (the last the run may use); the calibration and counting workers, and every worker
// without the key, may run on any.
TEST(WorkerE2E, PinWorkersRunsEveryRoundWorkerOnOneCpu) {
  TempDir dir;
  auto logged = [&](const std::string& name, const std::string& key) {
    const fs::path path = dir.path() / name;
    const fs::path spec =
        WriteWorkerSpec(dir, "rounds = 2\nwarmup_rounds = 0\nbatch_time = 0.002\nmeasure = [\"allocations\"]\n" + key,
                        "\"--log-cpus\", " + Quoted(path.string()), kSum);
    const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
    EXPECT_EQ(run.exit, 0) << run.out << run.err;
    return Lines(path);
  };
  auto cpus = [](const std::string& line) { return line.substr(line.find(' ') + 1); };
  const std::vector<std::string> free = logged("free.log", "");
  ASSERT_EQ(free.size(), 4u) << testing::PrintToString(free);  // calibration, two rounds, the count
  const std::string all = cpus(free.front());
  for (const std::string& line : free) EXPECT_EQ(cpus(line), all) << line;
  const std::vector<std::string> pinned = logged("pinned.log", "pin_workers = true\n");
  ASSERT_EQ(pinned.size(), 4u) << testing::PrintToString(pinned);
  EXPECT_EQ(pinned.front(), "- " + all);  // the calibration worker
  EXPECT_EQ(pinned.back(), "- " + all);   // the counting worker
  const std::string last = all.substr(all.rfind(',') == std::string::npos ? 0 : all.rfind(',') + 1);
  for (int round : {1, 2}) EXPECT_EQ(cpus(pinned[round]), last) << pinned[round];
}

// worker_group (docs/workers.md, "Worker groups"): each group gets a round's workers of its own,
// one group after another, each set up for its own benchmarks alone ($PERFENGINE_WORKER_BENCHMARKS).
TEST(WorkerE2E, EachWorkerGroupGetsARoundsWorkersOfItsOwn) {
  TempDir dir;
  auto starts = [&](const std::string& name, const std::string& groups) {
    const std::string workloads = "[workloads.sum]\nkind = \"worker\"\n" + groups +
                                  "\n[workloads.sleepy]\nkind = \"worker\"\nbenchmark = \"sleep\"\n" +
                                  (groups.empty() ? "" : "worker_group = \"b\"\n");
    return ShiftLog(dir, name, "rounds = 2\nwarmup_rounds = 0\nbatch_time = 0.002\n", workloads);
  };
  // The calibration worker, then one a round; with two groups, two a round, sharing its seed.
  const std::vector<std::string> one = starts("one.log", ""), two = starts("two.log", "worker_group = \"a\"\n");
  EXPECT_EQ(one.size(), 3u) << testing::PrintToString(one);
  ASSERT_EQ(two.size(), 5u) << testing::PrintToString(two);
  EXPECT_EQ(two[1], two[2]);
  EXPECT_EQ(two[3], two[4]);
  EXPECT_NE(two[1], two[3]);
}

TEST(WorkerE2E, DifferentDigestsAreAParityFailure) {
  TempDir dir;
  const fs::path spec = WriteWorkerSpec(dir, "rounds = 2\n", "\"--digest-salt\", \"x\"", kSum);
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("outputs differ: benchmark 'sum' answered digest"), std::string::npos) << run.out;
}

// Several batches run in passes over the benchmarks (docs/workers.md, "Rounds"): batch k of
// every benchmark, then batch k + 1, so one benchmark's batches are spread over the round. The
// candidate logs each request it answers: after calibration, each round asks sum and sleep in
// turn, three times.
TEST(WorkerE2E, SeveralBatchesRunInPassesOverTheBenchmarks) {
  TempDir dir;
  const fs::path log = dir.path() / "requests.log";
  const fs::path spec = WriteWorkerSpec(dir, "rounds = 2\nbatch_time = 0.002\nbatches = 3\n",
                                        "\"--log-requests\", " + Quoted(log.string()),
                                        std::string(kCallsCounter) + kSum + "[workloads.sleep]\nkind = \"worker\"\n");
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  ASSERT_EQ(run.exit, 0) << run.out << run.err;
  std::ifstream in(log);
  std::vector<std::string> asked;
  for (std::string line; std::getline(in, line);) asked.push_back(line);
  const std::vector<std::string> round = {"sum", "sleep", "sum", "sleep", "sum", "sleep"};
  ASSERT_GE(asked.size(), 2 * round.size());
  // The last two rounds' requests (calibration's come first).
  EXPECT_EQ(std::vector<std::string>(asked.end() - 12, asked.end() - 6), round);
  EXPECT_EQ(std::vector<std::string>(asked.end() - 6, asked.end()), round);
}

// PERFENGINE_WORKER_DIGESTS (docs/workers.md, "Digests"): a round's worker may answer `-` after
// its first batch of a benchmark, and passes; a later batch that answers another digest is still
// a parity failure, named with the worker and benchmark.
TEST(WorkerE2E, LaterBatchesMayOmitTheirDigestButNotChangeIt) {
  TempDir dir;
  const std::string run = "rounds = 2\nbatch_time = 0.002\nbatches = 3\n";
  const std::string rest = std::string(kCallsCounter) + kSum;
  const fs::path once = WriteWorkerSpec(dir, run, "\"--digest-as-allowed\"", rest);
  const Finished passed = RunPerfengine({"run", once.string()}, dir.path());
  EXPECT_EQ(passed.exit, 0) << passed.out << passed.err;

  const fs::path changed = WriteWorkerSpec(dir, run, "\"--later-digest-salt\", \"warm\"", rest);
  const Finished failed = RunPerfengine({"run", changed.string()}, dir.path());
  EXPECT_EQ(failed.exit, 2) << failed.out << failed.err;
  EXPECT_NE(failed.out.find("worker 'candidate' answered benchmark 'sum' with digest"), std::string::npos)
      << failed.out;

  // The counting workers get "none": even their first batch may answer `-`.
  if (!HaveValgrind()) return;
  const fs::path counted = WriteWorkerSpec(dir, run, "\"--digest-as-allowed\"",
                                           std::string("[thresholds]\nmax_instructions_ratio = 1.01\n\n") + kSum);
  const Finished counts = RunPerfengine({"run", counted.string()}, dir.path());
  EXPECT_EQ(counts.exit, 0) << counts.out << counts.err;
  EXPECT_NE(counts.out.find("instruction count ratio"), std::string::npos) << counts.out;
}

TEST(WorkerE2E, ACrashingWorkerFailsTheRunNamingContenderBenchmarkAndStderr) {
  TempDir dir;
  const fs::path spec =
      WriteWorkerSpec(dir, "rounds = 2\n", "\"--crash-on\", \"sum\", \"--stderr\", \"parser state corrupt\"", kSum);
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("worker 'candidate', benchmark 'sum': killed by SIGSEGV before its reply"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("parser state corrupt"), std::string::npos) << run.out;
}

TEST(WorkerE2E, AHungWorkerIsKilledWithItsChildAfterTheTimeout) {
  TempDir dir;
  const fs::path child_pid = dir.path() / "child.pid";
  const fs::path spec =
      WriteWorkerSpec(dir, "rounds = 2\ntimeout = 1\n",
                      "\"--hang-on\", \"sum\", \"--hang-child\", " + Quoted(child_pid.string()), kSum);
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("worker 'candidate', benchmark 'sum': no reply within 1 s; its process group was killed"),
            std::string::npos)
      << run.out;
  const std::string pid = ReadAll(child_pid);
  ASSERT_FALSE(pid.empty());
  EXPECT_FALSE(IsAliveMentioning(std::stoi(pid), "test-worker")) << "the hung worker's child outlived the run";
}

TEST(WorkerE2E, ABenchmarkTheWorkerDoesNotOfferIsNamedWithTheNearestOne) {
  TempDir dir;
  const fs::path spec = WriteWorkerSpec(dir, "rounds = 2\n", "", "[workloads.summ]\nkind = \"worker\"\n");
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("worker 'baseline' offers no benchmark 'summ' (did you mean 'sum'?) (its hello names sum, "
                         "sleep, stdin)"),
            std::string::npos)
      << run.out;
}

TEST(WorkerE2E, ACounterTheWorkerDoesNotReportIsNamed) {
  TempDir dir;
  const fs::path spec = WriteWorkerSpec(dir, "rounds = 2\n", "",
                                        "[counters.objects]\nunit = \"objects\"\nexact = true\n\n" + std::string(kSum));
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("worker 'baseline' reports no counter 'objects', which the spec declares (its hello declares "
                         "calls)"),
            std::string::npos)
      << run.out;
}

// {fixture:NAME} in a worker's argv: the generated fixture of worker workload NAME.
TEST(WorkerE2E, AWorkerIsGivenItsWorkloadsFixturesByName) {
  TempDir dir;
  const fs::path spec = dir.path() / "spec.toml";
  const std::string worker = "worker = [" + Quoted(TEST_WORKER) + ", \"--require-dir\", \"{fixture:sum}\"]\n";
  std::ofstream(spec) << "[run]\nrounds = 2\n\n[contenders.baseline]\n"
                      << worker << "\n[contenders.candidate]\n"
                      << worker << "\n[workloads.sum]\nkind = \"worker\"\nfixture = { generator = \"json_docs\", "
                      << "documents = 1, fields = 4, depth = 0 }\n";
  Finished run = RunPerfengine({"run", spec.string(), "--cache-dir", (dir.path() / "cache").string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  // Without the fixture the same worker refuses to start: the placeholder is what gave it one.
  std::string text = ReadAll(spec);
  text.replace(text.find("fixture = "), text.find('\n', text.find("fixture = ")) - text.find("fixture = "), "");
  const fs::path broken = dir.path() / "broken.toml";
  std::ofstream(broken) << text;
  run = RunPerfengine({"validate", broken.string()}, dir.path());
  EXPECT_EQ(run.exit, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("unknown placeholder '{fixture:sum}'"), std::string::npos) << run.err;
}

// A worker benchmark with a parameter: each sweep point asks for its own benchmark by name, and
// the sweep's figures come from their per-iteration times.
TEST(WorkerE2E, ASweepAsksEachPointForItsOwnBenchmark) {
  TempDir dir;
  const fs::path json = dir.path() / "results.json";
  const std::string worker = "worker = [" + Quoted(TEST_WORKER) + ", \"--scaled\"]\n";
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 3\nbatch_time = 0.01\n\n[contenders.baseline]\n"
                      << worker << "\n[contenders.candidate]\n"
                      << worker
                      << "\n[workloads.scaled]\nkind = \"worker\"\nbenchmark = \"scaled:{size}\"\nelements = 1000\n"
                      << "parameters = { size = [\"1\", \"2\", \"4\"] }\n";
  const Finished run = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(run.exit, 0) << run.out << run.err;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(json));
  std::vector<std::string> asked;
  for (const nlohmann::json& w : results["workloads"]) asked.push_back(w["worker"]["benchmark"]);
  EXPECT_EQ(asked, (std::vector<std::string>{"scaled:1", "scaled:2", "scaled:4"}));
  // Each point's answer is its own benchmark's (scaled:K sums K passes), not one benchmark thrice.
  EXPECT_NE(results["workloads"][0]["worker"]["digest"], results["workloads"][1]["worker"]["digest"]);
  EXPECT_NE(results["workloads"][1]["worker"]["digest"], results["workloads"][2]["worker"]["digest"]);
  // An axis with an environment per point cannot reach a worker started before every point.
  const fs::path allocator = dir.path() / "allocator.toml";
  std::ofstream(allocator) << "[contenders.baseline]\n"
                           << worker << "\n[contenders.candidate]\n"
                           << worker << "\n[workloads.scaled]\nkind = \"worker\"\nbenchmark = \"sum\"\n"
                           << "sweep = { allocator = [\"system\", \"mimalloc\"] }\n";
  const Finished refused = RunPerfengine({"validate", allocator.string()}, dir.path());
  EXPECT_EQ(refused.exit, 2);
  EXPECT_NE(refused.err.find("axis 'allocator' sets an environment per point, and worker workload 'scaled'"),
            std::string::npos)
      << refused.err;
}

// isolated = true: a worker that maps another contender's build fails the run after start-up.
TEST(WorkerE2E, AnIsolatedWorkerMappingAnotherContendersBuildFailsTheRun) {
  TempDir dir;
  fs::create_directories(dir.path() / "own");
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 2\n\n[contenders.baseline]\nworker = [" << Quoted(TEST_WORKER)
                      << "]\nisolated = true\nown_objects = [" << Quoted((dir.path() / "own").string())
                      << "]\n\n[contenders.candidate]\nworker = [" << Quoted(TEST_WORKER) << "]\nown_objects = ["
                      << Quoted(fs::path(TEST_WORKER).parent_path().string()) << "]\n\n"
                      << kSum;
  const Finished run = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(run.exit, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("worker 'baseline' after start-up:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("which is contender 'candidate''s"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace pe::e2e::workers
