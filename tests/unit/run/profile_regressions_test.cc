// CountsCollector::ProfileRegressions over the fake process runner: a failed instruction check
// has both contenders profiled, callgrind's files (written here in callgrind's own format) name
// the contender's own function by inclusive cost, and what each contender wrote to
// $PERFENGINE_PROFILE names the functions whose calls grew; a bad profile line fails the run.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>

#include "engine/run/counts_collector.h"
#include "engine/run/progress.h"
#include "tests/unit/run/collaborator_harness.h"

namespace pe::run::internal {
namespace {

namespace fs = std::filesystem;
using runner::Command;
using runner::Outcome;
using testing::WriteText;

constexpr const char* kProfileRegressionsSpec = R"(
[run]
rounds = 3

[contenders.baseline]
argv = ["true"]
env = { WHO = "baseline" }

[contenders.candidate]
argv = ["true"]
env = { WHO = "candidate" }

[workloads.work]
args = ["work"]
)";

// parse (own) -> build_string (own) -> rb_utf8_str_new (libruby); the candidate's build_string
// also calls rb_str_dup, whose callee newobj_of does most of the extra work.
std::string Callgrind(bool candidate) {
  std::string text = "version: 1\npositions: line\nevents: Ir\n";
  text += candidate ? "summary: 1400\n" : "summary: 1000\n";
  text += "ob=(1) /build/parser.so\nfl=(1) parser.c\nfn=(1) parse\n1 100\n";
  text += "cfn=(2) build_string\ncalls=10 2\n";
  text += candidate ? "2 1300\n" : "2 900\n";
  text += "fn=(2)\n3 400\ncob=(2) /usr/lib/libruby.so.3.1\ncfi=(2) ???\ncfn=(3) rb_utf8_str_new\ncalls=10 0\n4 500\n";
  if (candidate) text += "cob=(2)\ncfi=(2)\ncfn=(4) rb_str_dup\ncalls=10 0\n5 400\n";
  text += "ob=(2)\nfl=(2)\nfn=(3)\n0 500\n";
  if (candidate) text += "fn=(4)\n0 100\ncfn=(5) newobj_of\ncalls=10 0\n0 300\nfn=(5)\n0 300\n";
  return text;
}

struct ProfileRegressionsScript {
  std::string candidate_profile = "Strs.build 5\nHash#transform_keys 5\n";
  Outcome operator()(const Command& c) const {
    const std::string program = fs::path(c.argv[0]).filename().string();
    if (program == "valgrind") {
      for (const std::string& arg : c.argv) {
        if (!arg.starts_with("--callgrind-out-file=")) continue;
        std::string path = arg.substr(std::string("--callgrind-out-file=").size());
        path.replace(path.find("%p"), 2, "1");
        WriteText(path, Callgrind(c.env.at("WHO") == "candidate"));
      }
    } else if (program == "callgrind_annotate") {
      WriteText(c.stdout_path, "Ir  file:function\n100 (10.0%)  parser.c:parse [/build/parser.so]\n");
    } else if (c.env.contains("PERFENGINE_PROFILE")) {
      WriteText(c.env.at("PERFENGINE_PROFILE"),
                Who(c) == "baseline" ? std::string("Strs.build 5\n") : candidate_profile);
    }
    return Outcome{};
  }
};

void FailInstructions(Harness& h) {
  model::Check failed;
  failed.workload = "work";
  failed.threshold = "max_instructions_ratio";
  failed.passed = false;
  failed.state = model::Check::State::kFail;
  h.result_.verdict.checks.push_back(failed);
}

TEST(ProfileRegressionsTest, NamesTheOwnFunctionInclusiveAndTheCallsTheContenderCounted) {
  Harness h(kProfileRegressionsSpec, ProfileRegressionsScript{});
  FailInstructions(h);
  Executor ex = h.MakeExecutor();
  ASSERT_TRUE(CountsCollector(ex, h.workloads_).ProfileRegressions());
  const auto& profile = h.R("work").profile;
  ASSERT_GE(profile.size(), 2u);
  // build_string: +400 inclusive, all of it through rb_str_dup (100 of its own, 300 of newobj_of).
  EXPECT_EQ(profile[0].basis, "inclusive");
  EXPECT_EQ(profile[0].function, "build_string");
  EXPECT_EQ(profile[0].object, "parser.so");
  EXPECT_EQ(profile[0].baseline_cost, 900u);
  EXPECT_EQ(profile[0].candidate_cost, 1300u);
  EXPECT_EQ(profile[0].detail, "of which rb_str_dup (libruby.so.3.1) +400 (called at parser.c:5)");
  // Nothing else holds growth of its own: parse's grew only through build_string.
  EXPECT_EQ(profile[1].basis, "calls");
  EXPECT_EQ(profile[1].function, "Hash#transform_keys");
  EXPECT_EQ(profile[1].baseline_cost, 0u);
  EXPECT_EQ(profile[1].candidate_cost, 5u);
  EXPECT_EQ(profile.size(), 2u);  // Strs.build did not grow; annotate's self table did not change
  EXPECT_NE(h.R("work").profile_note.find("calls the contenders counted ($PERFENGINE_PROFILE)"), std::string::npos)
      << h.R("work").profile_note;
  EXPECT_TRUE(h.R("work").failures.empty());
}

TEST(ProfileRegressionsTest, ABadProfileLineIsAFailureNamingTheContenderAndTheLine) {
  ProfileRegressionsScript script;
  script.candidate_profile = "Strs.build 5\nHash#transform_keys many\n";
  Harness h(kProfileRegressionsSpec, script);
  FailInstructions(h);
  Executor ex = h.MakeExecutor();
  EXPECT_FALSE(CountsCollector(ex, h.workloads_).ProfileRegressions());
  const auto& failures = h.R("work").failures;
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].contender, "candidate");
  EXPECT_EQ(failures[0].kind, model::Failure::Kind::kCounters);
  EXPECT_EQ(failures[0].message,
            "wrote a bad profile file ($PERFENGINE_PROFILE): line 2 'Hash#transform_keys many': 'many' is not a whole "
            "number of calls");
  for (const Command& c : h.runner_.calls) EXPECT_NE(fs::path(c.argv[0]).filename().string(), "valgrind");
}

TEST(ProfileRegressionsTest, AContenderThatWritesNoProfileHasOnlyCallgrinds) {
  Harness h(kProfileRegressionsSpec, [](const Command& c) {
    ProfileRegressionsScript plain;
    Command without = c;
    without.env.erase("PERFENGINE_PROFILE");  // the contender ignores the variable
    return plain(without);
  });
  FailInstructions(h);
  Executor ex = h.MakeExecutor();
  ASSERT_TRUE(CountsCollector(ex, h.workloads_).ProfileRegressions());
  const auto& profile = h.R("work").profile;
  ASSERT_FALSE(profile.empty());
  for (const auto& p : profile) EXPECT_NE(p.basis, "calls") << p.function;
  EXPECT_EQ(h.R("work").profile_note.find("PERFENGINE_PROFILE"), std::string::npos) << h.R("work").profile_note;
}

// Profiling after a regression is announced and each of its runs is a progress step (every line
// shown: interval 0), the contender's own profile first, then callgrind's. A command takes 10 s.
TEST(ProfileRegressionsTest, ProfilingIsAnnouncedAndEachRunIsAProgressStep) {
  double now = 0;
  int commands = 0;
  Harness h(kProfileRegressionsSpec, [&](const Command& c) {
    now += 10;
    ++commands;
    return ProfileRegressionsScript{}(c);
  });
  FailInstructions(h);
  std::ostringstream out;
  Progress progress(
      out, ProgressStyle::kLines, [&] { return now; }, 0);
  Executor ex = h.MakeExecutor(&progress);
  ASSERT_TRUE(CountsCollector(ex, h.workloads_).ProfileRegressions());
  // Each callgrind profile is valgrind and callgrind_annotate: two commands.
  ASSERT_EQ(commands, 6);
  EXPECT_EQ(out.str(),
            "perfengine: profiling: where the extra time went in work (4 runs; a callgrind run takes many times a "
            "timed one)\n"
            "perfengine: profiling 1/4: work, baseline's own profile, elapsed 0s\n"
            "perfengine: profiling 2/4: work, candidate's own profile, elapsed 10s, ETA 30s\n"
            "perfengine: profiling 3/4: work, callgrind profile of baseline, elapsed 20s, ETA 20s\n"
            "perfengine: profiling 4/4: work, callgrind profile of candidate, elapsed 40s, ETA 13s\n");
}

// A profiling run that failed says why: the runner's reason and the last line of the contender's
// stderr, as a failed timed execution or hook does (issue 42: it said only "exited with status 1").
TEST(ProfileRegressionsTest, AFailedProfilingRunSaysWhyWithTheLastLineOfItsStderr) {
  Harness h(kProfileRegressionsSpec, [](const Command& c) {
    if (c.env.contains("PERFENGINE_PROFILE") && Who(c) == "candidate") {
      WriteText(c.stderr_path, "reading input\ncat: in.txt: No such file or directory\n");
      Outcome failed;
      failed.status = Outcome::Status::kExited;
      failed.exit_code = 1;
      failed.error = "exited with status 1";
      return failed;
    }
    return ProfileRegressionsScript{}(c);
  });
  FailInstructions(h);
  Executor ex = h.MakeExecutor();
  ASSERT_TRUE(CountsCollector(ex, h.workloads_).ProfileRegressions());
  EXPECT_NE(h.R("work").profile_note.find("contender 'candidate' did not finish its profiling run: exited with "
                                          "status 1 (cat: in.txt: No such file or directory)"),
            std::string::npos)
      << h.R("work").profile_note;
}

// The spec above with an instruction bar: the counts run each contender under callgrind.
std::string CountedSpec() {
  return std::string(kProfileRegressionsSpec) + "\n[thresholds]\nmax_instructions_ratio = 1.01\n";
}

int Valgrinds(const testing::FakeProcessRunner& runner) {
  int n = 0;
  for (const Command& c : runner.calls) n += fs::path(c.argv[0]).filename() == "valgrind";
  return n;
}

TEST(ProfileRegressionsTest, TheCountsCallgrindFilesGiveTheSameProfileWithoutRunningAgain) {
  // A fresh profile: no counts were taken, so each contender runs under callgrind for it.
  Harness fresh(CountedSpec(), ProfileRegressionsScript{});
  FailInstructions(fresh);
  Executor fresh_ex = fresh.MakeExecutor();
  ASSERT_TRUE(CountsCollector(fresh_ex, fresh.workloads_).ProfileRegressions());
  EXPECT_EQ(Valgrinds(fresh.runner_), 2);
  EXPECT_EQ(fresh.R("work").profile_note.find("not run again"), std::string::npos) << fresh.R("work").profile_note;

  Harness h(CountedSpec(), ProfileRegressionsScript{});
  // Where the kernel allows perf counters, refuse them: the counts fall back to callgrind.
  h.runner_.held_script = [](const Command&, const std::function<bool(int)>& attach) {
    attach(-1);  // perf_event_open refuses pid -1 with cpu -1
    return Outcome{};
  };
  Executor ex = h.MakeExecutor();
  CountsCollector counts(ex, h.workloads_);
  ASSERT_TRUE(counts.Collect());
  ASSERT_EQ(Valgrinds(h.runner_), 2);  // one count per contender
  ASSERT_EQ(h.R("work").summaries.size(), 2u);
  EXPECT_EQ(h.R("work").summaries[0].instructions.value_or(0), 1000u);
  EXPECT_EQ(h.R("work").summaries[1].instructions.value_or(0), 1400u);
  EXPECT_EQ(h.R("work").summaries[1].instructions_source, "valgrind callgrind");
  FailInstructions(h);
  ASSERT_TRUE(counts.ProfileRegressions());
  EXPECT_EQ(Valgrinds(h.runner_), 2) << "the profile ran callgrind again";

  // The same profile, entry by entry, as the fresh one: build_string first, through rb_str_dup.
  const auto& reused = h.R("work").profile;
  const auto& expected = fresh.R("work").profile;
  ASSERT_EQ(reused.size(), expected.size());
  ASSERT_FALSE(reused.empty());
  EXPECT_EQ(reused[0].function, "build_string");
  EXPECT_EQ(reused[0].detail, "of which rb_str_dup (libruby.so.3.1) +400 (called at parser.c:5)");
  for (std::size_t i = 0; i < reused.size(); ++i) {
    EXPECT_EQ(reused[i].function, expected[i].function) << i;
    EXPECT_EQ(reused[i].basis, expected[i].basis) << i;
    EXPECT_EQ(reused[i].object, expected[i].object) << i;
    EXPECT_EQ(reused[i].baseline_cost, expected[i].baseline_cost) << i;
    EXPECT_EQ(reused[i].candidate_cost, expected[i].candidate_cost) << i;
    EXPECT_EQ(reused[i].baseline_share, expected[i].baseline_share) << i;
    EXPECT_EQ(reused[i].candidate_share, expected[i].candidate_share) << i;
    EXPECT_EQ(reused[i].detail, expected[i].detail) << i;
  }
  EXPECT_NE(h.R("work").profile_note.find(
                "callgrind files of the instruction counts, not run again (baseline: 1 file, candidate: 1 file)"),
            std::string::npos)
      << h.R("work").profile_note;
}

TEST(ProfileRegressionsTest, AFailedCountingRunSaysWhyWithTheLastLineOfItsStderr) {
  Harness h(CountedSpec(), [](const Command& c) {
    if (fs::path(c.argv[0]).filename() == "valgrind" && c.env.at("WHO") == "candidate") {
      WriteText(c.stderr_path, "cat: in.txt: No such file or directory\n");
      Outcome failed;
      failed.status = Outcome::Status::kExited;
      failed.exit_code = 1;
      failed.error = "exited with status 1";
      return failed;
    }
    return ProfileRegressionsScript{}(c);
  });
  h.runner_.held_script = [](const Command&, const std::function<bool(int)>& attach) {
    attach(-1);  // perf counters refused: the count runs under callgrind
    return Outcome{};
  };
  Executor ex = h.MakeExecutor();
  ASSERT_TRUE(CountsCollector(ex, h.workloads_).Collect());
  ASSERT_EQ(h.R("work").summaries.size(), 2u);
  EXPECT_FALSE(h.R("work").summaries[1].instructions.has_value());
  const std::string note = h.R("work").summaries[1].measure_note;
  EXPECT_NE(note.find("not measured: exited with status 1 (cat: in.txt: No such file or directory)"), std::string::npos)
      << note;
}

}  // namespace
}  // namespace pe::run::internal
