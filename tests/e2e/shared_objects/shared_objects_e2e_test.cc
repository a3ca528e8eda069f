// The isolation check end to end (isolated = true, docs/spec.md): the trap a ruby/json gate
// once fell into, rebuilt small. One C library is built twice, into base/ and cand/; a loader
// forks a worker that dlopens the libraries it is given, calls them and prints the answer.
// A baseline whose worker loads the candidate's copy before its own is caught, naming both
// files; contenders that each load their own copy pass.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"
#include "tests/e2e/shared_objects/run_argv.h"

namespace pe::e2e {
namespace {

constexpr const char* kLibrary = "int ext_answer(void) { return 42; }\n";

// loader LIB...: a forked worker dlopens each LIB (RTLD_LOCAL, so both copies load), prints
// the sum of their answers; the parent waits for it, as a benchmark harness waits for workers.
constexpr const char* kLoader = R"C(
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char** argv) {
  pid_t worker = fork();
  if (worker == 0) {
    int sum = 0;
    for (int i = 1; i < argc; ++i) {
      void* lib = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
      if (lib == NULL) { fprintf(stderr, "%s\n", dlerror()); _exit(3); }
      int (*answer)(void) = (int (*)(void))dlsym(lib, "ext_answer");
      sum += answer();
    }
    printf("%d\n", sum > 0 ? 42 : 0);
    _exit(0);
  }
  int status = 0;
  waitpid(worker, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
)C";

class SharedObjectsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path log = dir_.path() / "build.log";
    std::ofstream(dir_.path() / "ext.c") << kLibrary;
    std::ofstream(dir_.path() / "loader.c") << kLoader;
    for (const char* build : {"base", "cand"}) {
      fs::create_directories(dir_.path() / build);
      ASSERT_TRUE(
          RunArgv({"cc", "-shared", "-fPIC", "-o", std::string(build) + "/libext.so", "ext.c"}, dir_.path(), log))
          << ReadAll(log);
    }
    ASSERT_TRUE(RunArgv({"cc", "-o", "loader", "loader.c", "-ldl"}, dir_.path(), log)) << ReadAll(log);
  }

  // `baseline_libs` is what the baseline's worker loads; the candidate loads its own copy.
  Finished Run(const std::string& baseline_libs) {
    const fs::path spec = dir_.path() / "spec.toml";
    std::ofstream(spec) << "[run]\nrounds = 2\nwarmup_rounds = 0\n"
                        << "[contenders.baseline]\nargv = [\"./loader\", " << baseline_libs << "]\n"
                        << "startup = [\"./loader\"]\nworkdir = \".\"\nisolated = true\nown_objects = [\"base\"]\n"
                        << "[contenders.candidate]\nargv = [\"./loader\", \"cand/libext.so\"]\n"
                        << "startup = [\"./loader\"]\nworkdir = \".\"\nisolated = true\nown_objects = [\"cand\"]\n"
                        << "[workloads.load]\ngate = false\n";
    return RunPerfengine({"run", spec.string(), "--cache-dir", (dir_.path() / "cache").string(), "--json",
                          (dir_.path() / "results.json").string()},
                         dir_.path());
  }

  TempDir dir_;
};

TEST_F(SharedObjectsE2E, AWorkerThatLoadsTheOtherBuildsCopyFirstFailsTheRunNamingBothFiles) {
  const Finished f = Run("\"cand/libext.so\", \"base/libext.so\"");
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  const std::string base = (fs::canonical(dir_.path()) / "base/libext.so").string();
  const std::string cand = (fs::canonical(dir_.path()) / "cand/libext.so").string();
  EXPECT_NE(f.out.find("is not isolated (isolated = true)"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find(" mapped " + cand + ", which is contender 'candidate''s"), std::string::npos) << f.out;
  // In address order, which need not be the order they were loaded in.
  EXPECT_TRUE(f.out.find(" mapped two copies of libext.so: " + cand + " and " + base) != std::string::npos ||
              f.out.find(" mapped two copies of libext.so: " + base + " and " + cand) != std::string::npos)
      << f.out;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(dir_.path() / "results.json"));
  bool found = false;
  for (const auto& w : results["workloads"]) {
    for (const auto& failure : w["failures"]) {
      if (failure["kind"] != "isolation") continue;
      found = true;
      EXPECT_EQ(w["name"], "load");
      EXPECT_EQ(failure["contender"], "baseline");
      // The worker, not the loader that started it, is the process that mapped them.
      EXPECT_NE(failure["detail"].get<std::string>().find("two copies of libext.so"), std::string::npos);
    }
  }
  EXPECT_TRUE(found) << results["workloads"].dump(1);
  // Timing never started over a run that mixed builds.
  for (const auto& w : results["workloads"]) EXPECT_TRUE(w["samples"].empty()) << w["name"];
}

TEST_F(SharedObjectsE2E, ContendersThatEachLoadTheirOwnCopyPass) {
  const Finished f = Run("\"base/libext.so\"");
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_EQ(f.out.find("is not isolated"), std::string::npos) << f.out;
}

TEST_F(SharedObjectsE2E, TheOtherBuildsCopyAloneIsCaughtToo) {
  const Finished f = Run("\"cand/libext.so\"");
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("which is contender 'candidate''s"), std::string::npos) << f.out;
  EXPECT_EQ(f.out.find("two copies"), std::string::npos) << f.out;
}

}  // namespace
}  // namespace pe::e2e
