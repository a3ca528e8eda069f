#include "engine/spec/spec.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/spec/programs.h"

namespace pe::spec {

using model::Thresholds;
namespace {

constexpr const char* kSpec = R"(
[run]
rounds = 7
warmup_rounds = 2
max_rounds = 30
scale = 0.5
seed = 42
timeout = 30
order = "random"
baseline = "old"
candidate = "new"

[contenders.old]
argv = ["true", "--fast"]
description = "the original"
env = { THREADS = "1" }

[contenders.new]
argv = ["false"]
startup = ["false", "--help"]

[workloads.hash]
description = "hash things"
args = ["hash", "{fixture}/in", "{out}"]
output = "{out}"
parity = "json-map"
fixture = "."
timeout = 5
thresholds = { min_speedup = 1.5 }

[workloads.measure-only]
args = ["x"]
gate = false

[workloads.startup]
gate = true

[thresholds]
min_speedup = 1.0
min_win_rate = 0.8
max_rss_ratio = 1.2
)";

TEST(Spec, ParsesEveryKey) {
  const Spec spec = ParseSpecText(kSpec, "x.toml");
  EXPECT_EQ(spec.settings.rounds, 7);
  EXPECT_EQ(spec.settings.warmup_rounds, 2);
  EXPECT_EQ(spec.settings.max_rounds, 30);
  EXPECT_DOUBLE_EQ(spec.settings.scale, 0.5);
  EXPECT_EQ(spec.settings.seed, 42u);
  EXPECT_DOUBLE_EQ(spec.settings.timeout_s, 30);
  EXPECT_EQ(spec.settings.order, "random");
  EXPECT_EQ(spec.baseline, "old");
  EXPECT_EQ(spec.candidate, "new");
  ASSERT_EQ(spec.contenders.size(), 2u);
  const Contender& old = spec.contenders[0];
  EXPECT_EQ(old.description, "the original");
  EXPECT_EQ(old.env.at("THREADS"), "1");
  ASSERT_EQ(old.startup_argv.size(), 2u);
  EXPECT_EQ(old.startup_argv[0].value, "true");
  EXPECT_EQ(old.startup_argv[1].value, "--version");
  EXPECT_EQ(spec.contenders[1].startup_argv[1].value, "--help");
  EXPECT_EQ(old.argv[1].pos.line, 14);
  EXPECT_EQ(old.argv[1].pos.column, 17);

  ASSERT_EQ(spec.workloads.size(), 3u);
  EXPECT_EQ(spec.workloads[0].name, "startup");
  EXPECT_TRUE(spec.workloads[0].startup);
  EXPECT_TRUE(spec.workloads[0].gate);
  const Workload& hash = *spec.FindWorkload("hash");
  EXPECT_EQ(hash.normaliser, Normaliser::kJsonMap);
  EXPECT_EQ(hash.output, "{out}");
  EXPECT_EQ(hash.fixture.kind, Fixture::Kind::kDirectory);
  EXPECT_EQ(hash.fixture.directory, std::filesystem::path("./."));
  EXPECT_DOUBLE_EQ(*hash.timeout_s, 5);
  EXPECT_FALSE(spec.FindWorkload("measure-only")->gate);

  const Thresholds t = EffectiveThresholds(spec, hash);
  EXPECT_DOUBLE_EQ(*t.min_speedup, 1.5);  // the workload's override wins
  EXPECT_DOUBLE_EQ(*t.min_win_rate, 0.8);
  EXPECT_DOUBLE_EQ(*t.max_rss_ratio, 1.2);
  EXPECT_FALSE(t.min_logic_speedup.has_value());
}

TEST(Spec, DefaultsFollowTheDocs) {
  const Spec spec = ParseSpecText(R"(
[contenders.a]
argv = ["true"]
[contenders.b]
argv = ["true"]
[workloads.w]
)",
                                  "x.toml");
  EXPECT_EQ(spec.settings.rounds, 5);
  EXPECT_EQ(spec.settings.warmup_rounds, 1);
  EXPECT_DOUBLE_EQ(spec.settings.scale, 1);
  EXPECT_EQ(spec.settings.order, "alternate");
  EXPECT_EQ(spec.baseline, "a");  // spec order decides without explicit roles
  EXPECT_EQ(spec.candidate, "b");
  const Workload& w = *spec.FindWorkload("w");
  EXPECT_EQ(w.output, "stdout");
  EXPECT_EQ(w.normaliser, Normaliser::kExact);
  EXPECT_TRUE(w.gate);
  EXPECT_FALSE(spec.workloads[0].gate);  // startup is measured, not gated, unless asked
}

// [run] final_look (docs/statistics.md, "A final look"): absent and "none" leave it off.
TEST(Spec, FinalLookIsOffUnlessASignedRankLookIsAskedFor) {
  const std::string base =
      "[contenders.a]\nargv = [\"true\"]\n[contenders.b]\nargv = [\"true\"]\n"
      "[workloads.w]\nargs = [\"x\"]\n";
  EXPECT_FALSE(ParseSpecText(base, "x.toml").settings.final_look);
  EXPECT_FALSE(ParseSpecText("[run]\nfinal_look = \"none\"\n" + base, "x.toml").settings.final_look);
  EXPECT_EQ(ParseSpecText("[run]\nfinal_look = \"signed-rank\"\n" + base, "x.toml").settings.final_look, "signed-rank");
}

TEST(Spec, ContendersNamedAfterRolesTakeThem) {
  const Spec spec = ParseSpecText(R"(
[contenders.candidate]
argv = ["true"]
[contenders.baseline]
argv = ["true"]
[workloads.w]
)",
                                  "x.toml");
  EXPECT_EQ(spec.baseline, "baseline");
  EXPECT_EQ(spec.candidate, "candidate");
}

TEST(Spec, ContenderOverrideReplacesProgramAndDefaultStartup) {
  Spec spec = ParseSpecText(kSpec, "x.toml");
  ApplyContenderOverride(spec, "old=/bin/sh");
  EXPECT_EQ(spec.contenders[0].argv[0].value, "/bin/sh");
  EXPECT_EQ(spec.contenders[0].argv[1].value, "--fast");
  EXPECT_EQ(spec.contenders[0].startup_argv[0].value, "/bin/sh");
  ApplyContenderOverride(spec, "new=/bin/sh");
  EXPECT_EQ(spec.contenders[1].startup_argv[0].value, "false");  // explicit startup stays
}

TEST(Spec, ContenderOverrideErrors) {
  Spec spec = ParseSpecText(kSpec, "x.toml");
  try {
    ApplyContenderOverride(spec, "olde=/bin/sh");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--contender: 'olde' is not a contender of x.toml (did you mean 'old'?)");
  }
  try {
    ApplyContenderOverride(spec, "old");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--contender expects NAME=PROGRAM or NAME=git:REVISION, got 'old'");
  }
  try {
    ApplyContenderOverride(spec, "old=/no/such/program");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--contender old: program '/no/such/program' not found (looked for /no/such/program)");
  }
}

constexpr const char* kGitSpec = R"(
[contenders.baseline]
git = "main"
repo = "repo"
build = ["make"]
argv = ["./tool", "--fast"]

[contenders.candidate]
git = "HEAD"
repo = "repo"
build = ["make"]
argv = ["./tool"]

[contenders.installed]
argv = ["true"]

[workloads.w]
)";

TEST(Spec, ContenderOverrideGitReplacesOnlyTheRevision) {
  Spec spec = ParseSpecText(kGitSpec, "x.toml");
  ApplyContenderOverride(spec, "candidate=git:main");
  const Contender& c = spec.contenders[1];
  EXPECT_EQ(c.git, "main");
  EXPECT_EQ(c.git_pos.file, "--contender candidate=git:main");
  EXPECT_STREQ(SpecError(c.git_pos, "contender 'candidate': git revision 'main' does not exist in repo").what(),
               "--contender candidate=git:main: contender 'candidate': git revision 'main' does not exist in repo");
  EXPECT_EQ(c.repo, spec.contenders[0].repo);
  EXPECT_EQ(c.build, std::vector<std::string>{"make"});
  EXPECT_EQ(c.argv[0].value, "./tool");
  EXPECT_EQ(spec.contenders[0].git, "main");
  ApplyContenderOverride(spec, "baseline=git:v1.2~3");  // anything git takes for a revision
  EXPECT_EQ(spec.contenders[0].git, "v1.2~3");
  EXPECT_EQ(spec.contenders[0].argv[0].value, "./tool");
}

TEST(Spec, ContenderOverrideGitErrors) {
  Spec spec = ParseSpecText(kGitSpec, "x.toml");
  const auto error = [&](const std::string& assignment) {
    try {
      ApplyContenderOverride(spec, assignment);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("installed=git:main"),
            "--contender installed=git:main: contender 'installed' of x.toml is not built from git (it has no 'git' "
            "key): no revision to replace; installed=PROGRAM replaces its program");
  EXPECT_EQ(error("candidat=git:main"),
            "--contender: 'candidat' is not a contender of x.toml (did you mean 'candidate'?)");
  EXPECT_EQ(error("candidate=git:"), "--contender candidate: 'git:' names no revision, e.g. candidate=git:main");
  EXPECT_EQ(spec.contenders[1].git, "HEAD");
  EXPECT_TRUE(spec.contenders[2].git.empty());
}

TEST(Programs, ErrorsShowWhereARelativeProgramResolvedTo) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("pe-programs-" + std::to_string(::getpid()));
  fs::create_directories(dir / "tools");
  std::ofstream(dir / "tools" / "plain") << "not a program\n";
  const std::string text =
      "[contenders.a]\nargv = [\"./tools/missing\"]\nstartup = [\"true\"]\n"
      "[contenders.b]\nargv = [\"tools/plain\"]\nstartup = [\"true\"]\n[workloads.w]\n";
  Spec spec = ParseSpecText(text, dir / "spec.toml");
  try {
    CheckPrograms(spec);
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "spec.toml").string() +
                                         ":2:9: contender 'a': program './tools/missing' not found (looked for " +
                                         (dir / "tools" / "missing").string() + ")\n" + (dir / "spec.toml").string() +
                                         ":5:9: contender 'b': program 'tools/plain' is not an executable file (" +
                                         (dir / "tools" / "plain").string() + ")");
  }
  fs::remove_all(dir);
}

TEST(Spec, AUnitNamesWhatElementsCountInEverySweepPoint) {
  const Spec spec = ParseSpecText(
      "[contenders.a]\nargv = [\"true\"]\n[contenders.b]\nargv = [\"true\"]\n"
      "[workloads.zip]\nargs = [\"{threads}\"]\nelements = 1048576\nunit = \"B\"\n"
      "[workloads.zip.sweep]\nthreads = [1, 2]\n",
      "x.toml");
  ASSERT_EQ(spec.workloads.size(), 3u);  // startup and two points
  EXPECT_EQ(spec.workloads[1].unit, "B");
  EXPECT_EQ(spec.workloads[2].unit, "B");
  EXPECT_EQ(spec.workloads[0].unit, "");
}

}  // namespace
}  // namespace pe::spec

namespace pe::spec {
namespace {

TEST(Spec, SweepExpandsToOnePointPerCombination) {
  const Spec spec = ParseSpecText(R"(
[contenders.a]
argv = ["true"]
[contenders.b]
argv = ["true"]
[workloads.dense]
args = ["--threads", "{threads}"]
elements = 1000
[workloads.dense.sweep]
threads = [1, 2]
allocator = ["system", "arena1", "mimalloc"]
[workloads.dense.sweep.env.allocator]
arena1 = { MALLOC_ARENA_MAX = "1" }
[workloads.grow]
args = ["--mode", "{mode}"]
[workloads.grow.sweep]
mode = ["fast"]
scale = [0.5, 2]
)",
                                  "x.toml");
  std::vector<std::string> names = spec.WorkloadNames();
  EXPECT_EQ(names, (std::vector<std::string>{"startup", "dense[threads=1,allocator=system]",
                                             "dense[threads=1,allocator=arena1]", "dense[threads=1,allocator=mimalloc]",
                                             "dense[threads=2,allocator=system]", "dense[threads=2,allocator=arena1]",
                                             "dense[threads=2,allocator=mimalloc]", "grow[mode=fast,scale=0.5]",
                                             "grow[mode=fast,scale=2]"}));
  const Workload& p = *spec.FindWorkload("dense[threads=2,allocator=arena1]");
  EXPECT_EQ(p.sweep, "dense");
  EXPECT_EQ(p.point, (std::vector<std::pair<std::string, std::string>>{{"threads", "2"}, {"allocator", "arena1"}}));
  EXPECT_EQ(p.env.at("MALLOC_ARENA_MAX"), "1");
  EXPECT_EQ(spec.FindWorkload("dense[threads=1,allocator=mimalloc]")->env.at("LD_PRELOAD"), "libmimalloc.so.2");
  EXPECT_TRUE(spec.FindWorkload("dense[threads=1,allocator=system]")->env.empty());
  const Workload& g = *spec.FindWorkload("grow[mode=fast,scale=0.5]");
  EXPECT_DOUBLE_EQ(g.scale_factor, 0.5);
  EXPECT_DOUBLE_EQ(p.elements, 1000);
  ASSERT_EQ(spec.sweeps.size(), 2u);
  EXPECT_EQ(spec.sweeps[0].axes, (std::vector<std::string>{"threads", "allocator"}));
  EXPECT_EQ(spec.sweeps[1].axes, (std::vector<std::string>{"mode", "scale"}));
}

}  // namespace
}  // namespace pe::spec
