// The orchestration over a fake process runner: parity, rounds, order, failures, verdict.
#include "engine/run/experiment.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "engine/spec/spec.h"
#include "tests/support/fake_process_runner.h"

namespace pe::run {

using model::ExitCode;
using model::Failure;
using model::RunResult;
using model::Sample;
using model::SweepResult;
using model::WorkloadResult;
using runner::Command;
using runner::Outcome;
namespace {

namespace fs = std::filesystem;
using testing::FakeProcessRunner;
using testing::WriteText;

constexpr const char* kExperimentSpec = R"(
[run]
rounds = 7
warmup_rounds = 1
confidence = 0.9  # the whole verdict's: each of the two checks at 95%, resolvable in 7 rounds

[contenders.baseline]
argv = ["true"]
env = { WHO = "baseline" }

[contenders.candidate]
argv = ["true"]
env = { WHO = "candidate" }

[workloads.work]
args = ["work"]

[thresholds]
min_speedup = 1.0
min_win_rate = 0.5
)";

struct ExperimentScript {
  double baseline_s = 0.200, candidate_s = 0.100, startup_s = 0.010;
  std::string baseline_out = "answer\n", candidate_out = "answer\n";
  Outcome::Status candidate_status = Outcome::Status::kExited;
  int candidate_exit = 0;
  std::string candidate_stderr;
  // Runs after the contender "ran", for contenders that tamper with their outputs.
  std::function<void(const Command&, const std::string& who)> then;

  Outcome operator()(const Command& cmd) const {
    const std::string who = cmd.env.at("WHO");
    const bool startup = cmd.argv.back() == "--version";
    Outcome o;
    o.wall_s = startup ? startup_s : (who == "baseline" ? baseline_s : candidate_s);
    o.user_s = o.wall_s * 0.9;
    o.max_rss_kib = who == "baseline" ? 1000 : 1100;
    WriteText(cmd.stdout_path, startup ? who + " 1.0\n" : (who == "baseline" ? baseline_out : candidate_out));
    WriteText(cmd.stderr_path, who == "candidate" ? candidate_stderr : "");
    if (who == "candidate" && !startup) {
      o.status = candidate_status;
      o.exit_code = candidate_exit;
      if (candidate_status == Outcome::Status::kSignalled) o.signal = 11;
    }
    if (then && !startup) then(cmd, who);
    return o;
  }
};

RunResult RunWith(const ExperimentScript& script, FakeProcessRunner* runner_out = nullptr,
                  const char* text = kExperimentSpec) {
  const spec::Spec spec = spec::ParseSpecText(text, "x.toml");
  FakeProcessRunner runner(script);
  RunResult r = RunExperiment(spec, Options{}, runner);
  if (runner_out) runner_out->calls = runner.calls;
  return r;
}

const WorkloadResult& Work(const RunResult& r) { return r.workloads.at(1); }

TEST(Experiment, FasterCandidatePasses) {
  const RunResult r = RunWith(ExperimentScript{});
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.verdict.exit, ExitCode::kPass) << (r.verdict.lines.empty() ? "" : r.verdict.lines[0]);
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].name, "startup");
  // (1 warm-up + 4 rounds) x 2 contenders per workload.
  EXPECT_EQ(Work(r).samples.size(), 16u);
  ASSERT_TRUE(Work(r).comparison.has_value());
  EXPECT_DOUBLE_EQ(Work(r).comparison->speedup, 2.0);
  EXPECT_EQ(Work(r).comparison->wins, 7);
  EXPECT_EQ(Work(r).comparison->rounds, 7);
  EXPECT_NEAR(*Work(r).comparison->logic_speedup, 0.19 / 0.09, 1e-12);
  EXPECT_NEAR(*Work(r).comparison->rss_ratio, 1.1, 1e-12);
}

// Issue 27: every run records where its wall time went, from the engine's own clock around
// each phase. Durations are not asserted (a loaded machine stretches them); their accounting is:
// every phase was timed, none is negative, they fit inside the whole, and a run that stops at
// parity never reaches measuring.
TEST(Experiment, RecordsItsWallTimeSplitIntoPhases) {
  const RunResult r = RunWith(ExperimentScript{});
  ASSERT_TRUE(r.phases.has_value());
  const model::PhaseTimes& p = *r.phases;
  for (double phase : {p.build_s, p.fixtures_s, p.parity_s, p.measuring_s, p.analysis_s}) EXPECT_GE(phase, 0);
  EXPECT_GT(p.measuring_s, 0);
  EXPECT_GT(p.analysis_s, 0);
  EXPECT_GE(p.total_s, p.build_s + p.fixtures_s + p.parity_s + p.measuring_s + p.analysis_s);
  ExperimentScript mismatch;
  mismatch.candidate_out = "different\n";
  const RunResult failed = RunWith(mismatch);
  ASSERT_EQ(failed.verdict.exit, ExitCode::kRunFailed);
  ASSERT_TRUE(failed.phases.has_value());
  EXPECT_EQ(failed.phases->measuring_s, 0);
  EXPECT_GT(failed.phases->parity_s, 0);
}

TEST(Experiment, SlowerCandidateMissesTheGate) {
  ExperimentScript s;
  s.candidate_s = 0.25;
  const RunResult r = RunWith(s);
  EXPECT_EQ(r.verdict.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(r.verdict.lines.size(), 2u);
  EXPECT_EQ(r.verdict.lines[0],
            "work: median speedup 0.80x (95% confidence sequence 0.80x to 0.80x, 7 rounds) is shown below the "
            "required 1.00x (short by 20%)");
  EXPECT_EQ(r.verdict.lines[1],
            "work: win rate 0% (95% confidence sequence 0% to 48%, 7 rounds; 0 of 7 rounds, sign test p = 0.0156) is "
            "shown below the required 50% (short by 50 points)");
}

TEST(Experiment, ParityRunsFirstThenRoundsAlternateWhoGoesFirst) {
  FakeProcessRunner runner(ExperimentScript{});
  RunWith(ExperimentScript{}, &runner);
  // Parity: startup then work, baseline first each time; then rounds.
  std::vector<std::string> who;
  for (const auto& c : runner.calls) who.push_back(c.env.at("WHO") + (c.argv.back() == "--version" ? "/s" : "/w"));
  const std::vector<std::string> expected_start = {
      "baseline/s",  "candidate/s", "baseline/w",  "candidate/w",  // parity
      "baseline/s",  "candidate/s", "baseline/w",  "candidate/w",  // round 0 (warm-up)
      "candidate/s", "baseline/s",  "candidate/w", "baseline/w",   // round 1
  };
  ASSERT_GE(who.size(), expected_start.size());
  EXPECT_EQ(std::vector<std::string>(who.begin(), who.begin() + 12), expected_start);
  const RunResult r = RunWith(ExperimentScript{});
  for (const Sample& s : Work(r).samples) {
    const bool baseline_first = s.round % 2 == 0;
    EXPECT_EQ(s.position, (s.contender == "baseline") == baseline_first ? 0 : 1) << s.round;
    EXPECT_EQ(s.warmup, s.round == 0);
  }
}

TEST(Experiment, ParityMismatchIsARunFailureWithTheDifference) {
  ExperimentScript s;
  s.baseline_out = "a\nb\nc\n";
  s.candidate_out = "a\nB\nc\n";
  const RunResult r = RunWith(s);
  EXPECT_EQ(r.verdict.exit, ExitCode::kRunFailed);
  EXPECT_FALSE(r.complete);
  ASSERT_EQ(Work(r).failures.size(), 1u);
  const Failure& f = Work(r).failures[0];
  EXPECT_EQ(f.kind, Failure::Kind::kParity);
  EXPECT_EQ(f.contender, "candidate");
  EXPECT_EQ(f.detail, "first difference at line 2 of 3 vs 3:\n  baseline: b\n  candidate: B");
  EXPECT_TRUE(Work(r).samples.empty());  // no timing over different work
  EXPECT_FALSE(Work(r).comparison.has_value());
}

// The three ways parity used to pass on different answers (issue 14).
std::string SpecWithOutput(const std::string& output) {
  std::string text = kExperimentSpec;
  const std::string args = "args = [\"work\"]";
  text.replace(text.find(args), args.size(), "args = [\"work\", \"{out}\"]\noutput = \"" + output + "\"");
  return text;
}

Failure OnlyFailure(const RunResult& r) {
  EXPECT_EQ(r.verdict.exit, ExitCode::kRunFailed);
  EXPECT_EQ(Work(r).failures.size(), 1u);
  return Work(r).failures.empty() ? Failure{} : Work(r).failures.at(0);
}

TEST(Experiment, ParityFailsWhenAContenderDeletesItsStdoutCapture) {
  ExperimentScript s;
  s.baseline_out = "";
  s.candidate_out = "a different answer\n";
  fs::path deleted;
  s.then = [&](const Command& cmd, const std::string& who) {
    if (who == "candidate") {
      deleted = cmd.stdout_path;
      fs::remove(cmd.stdout_path);
    }
  };
  const Failure f = OnlyFailure(RunWith(s));
  EXPECT_EQ(f.kind, Failure::Kind::kParity);
  EXPECT_EQ(f.contender, "candidate");
  EXPECT_EQ(f.message, "removed or replaced its stdout capture " + deleted.string() + " (it is not a regular file)");
}

TEST(Experiment, ParityFailsWhenTheOutputIsADirectory) {
  ExperimentScript s;
  fs::path out;
  s.then = [&](const Command& cmd, const std::string& who) {
    out = cmd.argv.back();
    fs::create_directories(fs::path(out) / who);  // different contents, both read as "" before
  };
  const std::string text = SpecWithOutput("{out}");
  const Failure f = OnlyFailure(RunWith(s, nullptr, text.c_str()));
  EXPECT_EQ(f.kind, Failure::Kind::kParity);
  EXPECT_EQ(f.contender, "baseline");
  EXPECT_EQ(f.message, "left something other than a regular file at its output " + out.string());
}

TEST(Experiment, FixedOutputPathIsNotReadBackFromThePreviousContender) {
  const fs::path dir = fs::temp_directory_path() / ("pe-fixed-output-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path fixed = dir / "answer.json";
  ExperimentScript s;
  s.then = [&](const Command&, const std::string& who) {
    if (who == "baseline") WriteText(fixed, "{\"answer\": 42}\n");  // the candidate writes nothing
  };
  const std::string text = SpecWithOutput(fixed.string());
  const Failure f = OnlyFailure(RunWith(s, nullptr, text.c_str()));
  EXPECT_EQ(f.kind, Failure::Kind::kParity);
  EXPECT_EQ(f.contender, "candidate");
  EXPECT_EQ(f.message, "did not write its output file " + fixed.string());

  // A file the run did not write is never removed: unchanged, it is not this run's output.
  WriteText(fixed, "{\"answer\": 42}\n");
  ExperimentScript nobody;
  const Failure g = OnlyFailure(RunWith(nobody, nullptr, text.c_str()));
  EXPECT_EQ(g.contender, "baseline");
  EXPECT_EQ(g.message, "did not write its output file " + fixed.string() + " (it is unchanged since before it ran)");
  EXPECT_TRUE(fs::exists(fixed));

  // Both writing the same answer, quickly one after the other, is parity.
  ExperimentScript both;
  both.then = [&](const Command&, const std::string&) { WriteText(fixed, "{\"answer\": 42.0}\n"); };
  const RunResult ok = RunWith(both, nullptr, text.c_str());
  EXPECT_TRUE(Work(ok).failures.empty()) << Work(ok).failures.at(0).message;
  fs::remove_all(dir);
}

// The run's scratch directory, from a path inside it.
fs::path ScratchRoot(fs::path inside) {
  while (inside.has_parent_path() && inside.filename().string().rfind("perfengine-", 0) != 0) {
    inside = inside.parent_path();
  }
  return inside;
}

// While a contender runs parity, nothing another contender wrote is on disk (issue 26, M4):
// not its capture, its {out}, a copy kept for showing a difference, nor what a normalise
// command made of it. So the scratch holds one output at a time (minor 4).
TEST(Experiment, NoOtherContendersOutputIsOnDiskWhileAContenderRunsParity) {
  ExperimentScript s;
  s.baseline_out = s.candidate_out = "the baseline's answer\n";
  std::vector<std::string> seen;
  std::uintmax_t others_bytes = 0;
  bool looked = false;
  s.then = [&](const Command& cmd, const std::string& who) {
    if (who == "baseline") WriteText(cmd.argv.back(), "the baseline's file\n");  // its {out}
    if (who != "candidate" || looked) return;  // the candidate's parity run: its first
    looked = true;
    const fs::path own = cmd.stdout_path.parent_path();
    for (const auto& entry : fs::recursive_directory_iterator(ScratchRoot(own))) {
      if (!entry.is_regular_file() || entry.path().parent_path() == own || entry.path().filename() == ".lock" ||
          entry.path().filename() == ".perfengine-scratch")  // the engine's own lock and marker
        continue;
      others_bytes += entry.file_size();
      seen.push_back(entry.path().string());
    }
  };
  std::string text = SpecWithOutput("{out}");
  text.replace(text.find("output = \"{out}\""), 16, "normalise = [\"cat\", \"{output}\"]");
  // The normalise command (no WHO in its environment) copies its input.
  FakeProcessRunner runner([&](const Command& cmd) {
    if (cmd.env.count("WHO") == 0) {
      fs::copy_file(cmd.argv.at(1), cmd.stdout_path, fs::copy_options::overwrite_existing);
      return Outcome{};
    }
    return s(cmd);
  });
  const RunResult r = RunExperiment(spec::ParseSpecText(text, "x.toml"), Options{}, runner);
  EXPECT_TRUE(Work(r).failures.empty()) << Work(r).failures.at(0).message;
  EXPECT_EQ(seen, std::vector<std::string>{});
  EXPECT_EQ(others_bytes, 0u);
}

// Not only in parity: while any contender runs (timed rounds, rss runs), no byte another
// contender's execution wrote is left in the scratch, neither its stdout capture nor its {out}.
// A 1 GiB output once needed 2 GiB of scratch, each contender's directory keeping its last
// output until its next execution (issue 45). The sizes are read inside each execution.
TEST(Experiment, NoOtherContendersOutputTakesScratchSpaceWhileAnyExecutionRuns) {
  ExperimentScript s;
  s.baseline_out = s.candidate_out = std::string(4096, 'o') + "\n";
  std::uintmax_t others_bytes = 0;
  std::vector<std::string> seen;
  int executions = 0;
  s.then = [&](const Command& cmd, const std::string&) {
    WriteText(cmd.argv.back(), std::string(4096, 'f'));  // its {out}
    ++executions;
    const fs::path own = cmd.stdout_path.parent_path();
    for (const auto& entry : fs::recursive_directory_iterator(ScratchRoot(own))) {
      if (!entry.is_regular_file() || entry.path().parent_path() == own || entry.path().filename() == ".lock" ||
          entry.path().filename() == ".perfengine-scratch" || entry.file_size() == 0)
        continue;
      others_bytes += entry.file_size();
      if (seen.size() < 4) seen.push_back(entry.path().string());
    }
  };
  std::string text = SpecWithOutput("{out}");
  text.replace(text.find("[thresholds]"), 12, "[thresholds]\nrss_runs = 1");
  FakeProcessRunner runner(s);
  const RunResult r = RunExperiment(spec::ParseSpecText(text, "x.toml"), Options{}, runner);
  EXPECT_TRUE(Work(r).failures.empty()) << Work(r).failures.at(0).message;
  EXPECT_GT(executions, 6);
  EXPECT_EQ(seen, std::vector<std::string>{});
  EXPECT_EQ(others_bytes, 0u);
}

TEST(Experiment, CrashNamesContenderWorkloadAndStderrTail) {
  ExperimentScript s;
  s.candidate_status = Outcome::Status::kSignalled;
  s.candidate_stderr = "line 1\nSegmentation fault in parse()\n";
  const RunResult r = RunWith(s);
  EXPECT_EQ(r.verdict.exit, ExitCode::kRunFailed);
  ASSERT_EQ(r.verdict.lines.size(), 1u);
  EXPECT_EQ(r.verdict.lines[0], "work: contender 'candidate' was killed by signal 11 (Segmentation fault)");
  EXPECT_EQ(Work(r).failures[0].detail, "line 1\nSegmentation fault in parse()");
}

TEST(Experiment, NonZeroExitAndTimeout) {
  ExperimentScript s;
  s.candidate_exit = 3;
  EXPECT_EQ(RunWith(s).verdict.lines.at(0), "work: contender 'candidate' exited with status 3");
  s.candidate_exit = 0;
  s.candidate_status = Outcome::Status::kTimedOut;
  const std::string with_timeout =
      std::string(kExperimentSpec)
          .replace(std::string(kExperimentSpec).find("rounds = 7"), 10, "rounds = 7\ntimeout = 2.5");
  EXPECT_EQ(RunWith(s, nullptr, with_timeout.c_str()).verdict.lines.at(0),
            "work: contender 'candidate' timed out after 2.5 s; its process group was killed");
}

TEST(Experiment, StartupBoundWorkloadGetsNoLogicRatio) {
  ExperimentScript s;
  s.baseline_s = 0.0102;
  s.candidate_s = 0.0101;
  const RunResult r = RunWith(s);
  ASSERT_TRUE(Work(r).comparison.has_value());
  EXPECT_FALSE(Work(r).comparison->logic_speedup.has_value());
  EXPECT_EQ(Work(r).comparison->logic_note.rfind("startup-bound: baseline's time after start-up", 0), 0u)
      << Work(r).comparison->logic_note;
}

TEST(Experiment, RandomOrderIsSeeded) {
  const std::string text = std::string(kExperimentSpec)
                               .replace(std::string(kExperimentSpec).find("warmup_rounds = 1"), 17,
                                        "warmup_rounds = 1\norder = \"random\"\nseed = 7");
  auto positions = [&] {
    std::vector<int> p;
    for (const Sample& s : Work(RunWith(ExperimentScript{}, nullptr, text.c_str())).samples) p.push_back(s.position);
    return p;
  };
  EXPECT_EQ(positions(), positions());
}

TEST(Experiment, UnknownWorkloadSuggestsTheNearName) {
  const spec::Spec spec = spec::ParseSpecText(kExperimentSpec, "x.toml");
  Options o;
  o.workloads = {"wrok"};
  try {
    SelectWorkloads(spec, o);
    FAIL();
  } catch (const spec::UsageError& e) {
    EXPECT_STREQ(e.what(), "--workload: 'wrok' is not a workload of x.toml (did you mean 'work'?)");
  }
}

}  // namespace
}  // namespace pe::run

namespace pe::run {
namespace {

TEST(Experiment, SweepPointsCarryTheirValuesEnvironmentAndScale) {
  const spec::Spec spec = spec::ParseSpecText(R"(
[run]
rounds = 3
warmup_rounds = 0
[contenders.baseline]
argv = ["true"]
env = { WHO = "baseline" }
[contenders.candidate]
argv = ["true"]
env = { WHO = "candidate" }
[workloads.work]
args = ["--threads", "{threads}", "--scale", "{scale}"]
elements = 100
[workloads.work.sweep]
threads = [1, 2]
allocator = ["system", "mimalloc"]
[workloads.grow]
args = ["{scale}"]
[workloads.grow.sweep]
scale = [1, 2, 4]
[workloads.grow.sweep.thresholds]
max_cost_exponent = 1.5
)",
                                              "x.toml");
  // Time proportional to threads (no parallel gain) and, for grow, to scale squared.
  FakeProcessRunner runner([](const Command& cmd) {
    Outcome o;
    const bool startup = cmd.argv.back() == "--version";
    double t = 0.01;
    if (!startup && cmd.argv.size() == 5) t = 0.01 * std::stod(cmd.argv[2]);
    if (!startup && cmd.argv.size() == 2) t = 0.01 * std::stod(cmd.argv[1]) * std::stod(cmd.argv[1]);
    o.wall_s = cmd.env.at("WHO") == "candidate" ? t * 1.01 : t;
    WriteText(cmd.stdout_path, "x\n");
    return o;
  });
  const RunResult r = RunExperiment(spec, Options{}, runner);
  ASSERT_TRUE(r.complete);
  bool saw_mimalloc = false;
  for (const Command& c : runner.calls) {
    if (c.argv.size() == 5) {
      EXPECT_EQ(c.argv[4], "1");  // {scale} is the run's scale without a scale axis
      saw_mimalloc |= c.env.count("LD_PRELOAD") > 0;
    }
  }
  EXPECT_TRUE(saw_mimalloc);
  const WorkloadResult& point = r.workloads.at(3);
  EXPECT_EQ(point.name, "work[threads=2,allocator=system]");
  EXPECT_EQ(point.sweep, "work");
  ASSERT_EQ(point.point.size(), 2u);
  EXPECT_EQ(point.point[1].value, "system");
  EXPECT_DOUBLE_EQ(point.elements, 100);
  ASSERT_EQ(r.sweeps.size(), 2u);
  const SweepResult& work = r.sweeps[0];
  EXPECT_EQ(work.name, "work");
  ASSERT_EQ(work.efficiencies.size(), 8u);                   // 2 contenders x 2 allocators x 2 thread counts
  EXPECT_NEAR(work.efficiencies[0].efficiency, 1.0, 1e-9);   // 1 thread against itself
  EXPECT_NEAR(work.efficiencies[1].efficiency, 0.25, 1e-9);  // twice the time at twice the threads
  const SweepResult& grow = r.sweeps[1];
  ASSERT_EQ(grow.fits.size(), 2u);
  EXPECT_NEAR(grow.fits[1].exponent, 2.0, 1e-6);
  EXPECT_EQ(r.verdict.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(r.verdict.lines.size(), 1u);
  EXPECT_EQ(r.verdict.lines[0].rfind("grow: cost exponent of candidate 2.00", 0), 0u) << r.verdict.lines[0];
}

}  // namespace
}  // namespace pe::run
