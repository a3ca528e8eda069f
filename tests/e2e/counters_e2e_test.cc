// Counters a contender reports itself (docs/counters.md), end to end: the stub contender
// writes `name value unit` lines to $PERFENGINE_COUNTERS, and the run gates on them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// The stub writing `lines`, then doing `then` (more of its argv, as TOML) when given.
std::string Argv(const std::vector<std::string>& lines, const std::string& then = "") {
  std::string out = "[\"" STUB_CONTENDER "\", \"--print\", \"same\"";
  for (const auto& line : lines) out += ", \"--write-env\", \"PERFENGINE_COUNTERS\", " + nlohmann::json(line).dump();
  if (!then.empty()) out += ", " + then;
  return out + "]";
}

// Two contenders writing the given counter lines, one workload, and a counter of each kind.
fs::path WriteCountersSpec(const TempDir& dir, const std::vector<std::string>& baseline,
                           const std::vector<std::string>& candidate, const std::string& bars) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 7\nwarmup_rounds = 1\n\n"
                      << "[contenders.baseline]\nargv = " << Argv(baseline) << "\n\n"
                      << "[contenders.candidate]\nargv = " << Argv(candidate) << "\n\n"
                      << "[workloads.work]\n\n"
                      << "[counters.objects]\nunit = \"objects\"\nexact = true\n\n"
                      << "[counters.misses]\nunit = \"misses\"\nexact = false\n\n"
                      << "[thresholds.counters]\n"
                      << bars;
  return spec;
}

TEST(CountersE2E, EqualExactCountsPassAndTheResultsFileHoldsThem) {
  TempDir dir;
  const auto spec = WriteCountersSpec(dir, {"objects 1000 objects", "misses 50 misses"},
                                      {"misses 50 misses", "objects 1000 objects"}, "objects = 1.0\nmisses = 1.5\n");
  const auto json = dir.path() / "results.json";
  const Finished f = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  const auto results = nlohmann::json::parse(ReadAll(json));
  const auto& work = results["workloads"][1];
  // By name: misses, then objects.
  EXPECT_EQ(work["counters"][1]["name"], "objects");
  EXPECT_EQ(work["counters"][1]["exact"], true);
  EXPECT_EQ(work["counters"][1]["max_ratio"], 1.0);
  EXPECT_EQ(work["samples"][3]["counters"][0]["value"], 50.0);
  EXPECT_EQ(work["samples"][3]["counters"][1]["value"], 1000.0);
  EXPECT_EQ(work["comparison"]["counters"][1]["ratio"], 1.0);
  EXPECT_EQ(work["comparison"]["counters"][0]["ratio_cs"]["estimate"], 1.0);
  bool objects_checked = false;
  for (const auto& check : results["verdict"]["checks"]) {
    if (check["threshold"] == "counters.objects") objects_checked = check["passed"] == true;
  }
  EXPECT_TRUE(objects_checked) << results["verdict"].dump();
}

TEST(CountersE2E, OneMoreObjectFailsTheExactGateWithANamedLine) {
  TempDir dir;
  const auto spec = WriteCountersSpec(dir, {"objects 1000 objects", "misses 50 misses"},
                                      {"objects 1001 objects", "misses 50 misses"}, "objects = 1.0\n");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("work: objects ratio 1.001x (candidate 1001 objects, baseline 1000 objects) is above the "
                       "allowed 1.000x (over by 0.1%)"),
            std::string::npos)
      << f.out;
}

TEST(CountersE2E, AnExactCounterThatGrewFromZeroFailsItsBar) {
  TempDir dir;
  const auto spec = WriteCountersSpec(dir, {"objects 0 objects", "misses 50 misses"},
                                      {"objects 5 objects", "misses 50 misses"}, "objects = 1.0\n");
  const auto json = dir.path() / "results.json";
  const Finished f = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("work: objects ratio unbounded (grew from 0 to 5 objects, baseline to candidate) is above the "
                       "allowed 1.00x (growth from 0 fails any ratio bar)"),
            std::string::npos)
      << f.out;
  const auto results = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(results["workloads"][1]["comparison"]["counters"][1]["ratio"], "Infinity");
}

TEST(CountersE2E, ANoisyCounterThatDoubledIsShownAboveItsBar) {
  TempDir dir;
  const auto spec = WriteCountersSpec(dir, {"objects 1 objects", "misses 50 misses"},
                                      {"objects 1 objects", "misses 100 misses"}, "misses = 1.2\n");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("work: misses ratio 2.00x (95% confidence sequence 2.00x to 2.00x, 7 rounds; candidate 100 "
                       "misses, baseline 50 misses) is shown above the allowed 1.20x (over by 67%)"),
            std::string::npos)
      << f.out;
}

TEST(CountersE2E, ABadLineFailsTheRunNamingContenderWorkloadAndLine) {
  TempDir dir;
  const auto spec = WriteCountersSpec(dir, {"objects 1000 objects", "misses 50 misses"},
                                      {"objects 1000 objects", "misses 5O misses"}, "objects = 1.0\n");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE((f.out + f.err)
                .find("work: contender 'candidate' wrote a bad counters file ($PERFENGINE_COUNTERS): line "
                      "2 'misses 5O misses': '5O' is not a number"),
            std::string::npos)
      << f.out << f.err;
}

TEST(CountersE2E, AMissingCounterFailsTheRun) {
  TempDir dir;
  const auto spec =
      WriteCountersSpec(dir, {"objects 1000 objects", "misses 50 misses"}, {"objects 1000 objects"}, "objects = 1.0\n");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE((f.out + f.err)
                .find("work: contender 'candidate' wrote a bad counters file ($PERFENGINE_COUNTERS): no "
                      "line for counter 'misses' (expected 'misses VALUE misses')"),
            std::string::npos)
      << f.out << f.err;
}

// The issue 42 case: the input the contender reads is made by the workload's `prepare`, and an
// exact counter that grew has both contenders profiled. Each profiling run (the contender's own,
// $PERFENGINE_PROFILE, and callgrind's) has the hooks around it as a timed execution does; it
// had none, and the profile read "contender 'baseline' did not finish its profiling run: exited
// with status 1" where the calls each contender counted belonged.
TEST(CountersE2E, AProfilingRunRunsTheWorkloadsPrepareThatMakesItsInput) {
  TempDir dir;
  // It reads the input it is given, then writes its counter and, when asked, its profile.
  const std::string contender =
      R"(["/bin/sh", "-c", 'cat "$1" > /dev/null || exit 1; )"
      R"([ -z "$PERFENGINE_COUNTERS" ] || echo objects $OBJECTS objects >> "$PERFENGINE_COUNTERS"; )"
      R"([ -z "$PERFENGINE_PROFILE" ] || echo build_index $CALLS > "$PERFENGINE_PROFILE"; )"
      R"(echo same', "contender"])";
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 3\nwarmup_rounds = 0\n\n"
                      << "[contenders.baseline]\nargv = " << contender
                      << "\nstartup = [\"/bin/true\"]\nenv = { OBJECTS = \"0\", CALLS = \"1\" }\n\n"
                      << "[contenders.candidate]\nargv = " << contender
                      << "\nstartup = [\"/bin/true\"]\nenv = { OBJECTS = \"5\", CALLS = \"6\" }\n\n"
                      << "[workloads.work]\nargs = [\"{workdir}/input\"]\n"
                      << "prepare = [\"/bin/sh\", \"-c\", \"echo records > {workdir}/input\"]\n\n"
                      << "[counters.objects]\nunit = \"objects\"\nexact = true\n\n"
                      << "[thresholds.counters]\nobjects = 1.0\n";
  const auto json = dir.path() / "results.json";
  const Finished f = RunPerfengine({"run", spec.string(), "--json", json.string()}, dir.path());
  EXPECT_EQ(f.exit, 1) << f.out << f.err;
  const auto results = nlohmann::json::parse(ReadAll(json));
  const auto& work = results["workloads"][1];
  const std::string note = work["profile_note"].get<std::string>();
  EXPECT_EQ(note.find("did not finish its profiling run"), std::string::npos) << note;
  EXPECT_EQ(note.find("not profiled: exited with status"), std::string::npos) << note;
  EXPECT_NE(note.find("calls the contenders counted ($PERFENGINE_PROFILE)"), std::string::npos) << note;
  bool counted = false;
  for (const auto& p : work["profile"]) {
    if (p["function"] == "build_index" && p["basis"] == "calls") {
      counted = p["baseline_cost"] == 1 && p["candidate_cost"] == 6;
    }
  }
  EXPECT_TRUE(counted) << work["profile"].dump(1);
}

// The run, given at most a minute to end (it ends in seconds; the old reader never did, reading
// /dev/zero until memory ran out or a FIFO forever); killed and reported when it does not.
Finished RunWithin60s(const std::vector<std::string>& args, const fs::path& dir) {
  Running run(args, dir);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  siginfo_t info{};
  while (std::chrono::steady_clock::now() < until) {
    info.si_pid = 0;
    if (::waitid(P_PID, run.pid(), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == run.pid()) {
      return run.Wait();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(run.pid(), SIGKILL);
  Finished f = run.Wait();
  ADD_FAILURE() << "perfengine did not end within 60 s";
  return f;
}

// A counters file the candidate replaced, after writing it, by something that is not a file.
fs::path WriteReplacedCountersSpec(const TempDir& dir, const std::string& replace) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 3\nwarmup_rounds = 0\n\n"
                      << "[contenders.baseline]\nargv = " << Argv({"objects 5 objects"}) << "\n\n"
                      << "[contenders.candidate]\nargv = " << Argv({"objects 5 objects"}, replace) << "\n\n"
                      << "[workloads.work]\n\n"
                      << "[counters.objects]\nunit = \"objects\"\nexact = true\n\n"
                      << "[thresholds.counters]\nobjects = 1.0\n";
  return spec;
}

TEST(CountersE2E, ACountersFileThatIsALinkToDevZeroFailsTheRunAtOnce) {
  TempDir dir;
  const auto spec = WriteReplacedCountersSpec(dir, "\"--symlink-env\", \"PERFENGINE_COUNTERS\", \"/dev/zero\"");
  const Finished f = RunWithin60s({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE((f.out + f.err)
                .find("work: contender 'candidate' left a counters file that is a symbolic link, not a regular file "
                      "($PERFENGINE_COUNTERS = "),
            std::string::npos)
      << f.out << f.err;
}

TEST(CountersE2E, ACountersFileThatIsAFifoFailsTheRunAtOnce) {
  TempDir dir;
  const auto spec = WriteReplacedCountersSpec(dir, "\"--mkfifo-env\", \"PERFENGINE_COUNTERS\"");
  const Finished f = RunWithin60s({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE((f.out + f.err)
                .find("work: contender 'candidate' left a counters file that is a FIFO, not a regular file "
                      "($PERFENGINE_COUNTERS = "),
            std::string::npos)
      << f.out << f.err;
}

}  // namespace
}  // namespace pe::e2e
