// The ruby/json path without the network (issue 22, CI): the test makes a git repository with a
// tiny Ruby C extension (extconf.rb and strs.c, whose build_strings allocates strings) and a
// benchmark script; `main` is the base, `planted` adds an rb_str_dup per string in
// build_strings. perfengine builds both revisions from git, runs `ruby --disable-gems -Iext`
// on each build (so exactly that build's strs.so loads, isolated = true checks it), reads the
// Ruby objects the script counts with GC.stat(:total_allocated_objects) through
// PERFENGINE_COUNTERS as an exact counter, fails the gate on it and profiles both versions with
// callgrind. No assertion reads a time.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"
#include "tests/e2e/shared_objects/run_argv.h"

namespace pe::e2e {
namespace {

constexpr int kCalls = 10;
constexpr int kStrings = 5000;

constexpr const char* kExtconf = "require \"mkmf\"\ncreate_makefile(\"strs/strs\")\n";

// {EXTRA} is where the planted regression goes.
constexpr const char* kExtension = R"C(#include <ruby.h>

/* Builds `count` short strings into an array. */
static VALUE build_strings(VALUE self, VALUE count) {
  long n = NUM2LONG(count);
  VALUE out = rb_ary_new_capa(n);
  for (long i = 0; i < n; ++i) {
    VALUE s = rb_str_new_cstr("perfengine");
{EXTRA}    rb_ary_push(out, s);
  }
  return out;
}

void Init_strs(void) {
  VALUE mod = rb_define_module("Strs");
  rb_define_module_function(mod, "build_strings", build_strings, 1);
}
)C";

// Counts the Ruby objects the benchmark allocates, writes them where the engine said, and
// prints the answer parity compares; says which strs.so it loaded, for the test to check.
constexpr const char* kBench = R"RB(require "strs/strs"
before = GC.stat(:total_allocated_objects)
total = 0
CALLS.times { total += Strs.build_strings(STRINGS).size }
allocated = GC.stat(:total_allocated_objects) - before
File.open(ENV.fetch("PERFENGINE_COUNTERS"), "a") { |f| f.puts "ruby_objects #{allocated} objects" }
$stderr.puts $LOADED_FEATURES.grep(/strs\.so/)
puts total
)RB";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

class RubyExtensionE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = dir_.path() / "repo";
    fs::create_directories(repo_ / "ext" / "strs");
    std::ofstream(repo_ / "ext" / "strs" / "extconf.rb") << kExtconf;
    std::string bench = Replace(kBench, "CALLS", std::to_string(kCalls));
    std::ofstream(repo_ / "bench.rb") << Replace(bench, "STRINGS", std::to_string(kStrings));
    Git({"init", "-q", "-b", "main"});
    Commit("", "base: build_strings");
    Git({"checkout", "-q", "-b", "planted"});
    Commit("    s = rb_str_dup(s);\n", "planted: an extra rb_str_dup in build_strings");
    Git({"checkout", "-q", "main"});
  }

  void Git(std::vector<std::string> args) {
    std::vector<std::string> argv = {
        "git", "-c", "user.name=perfengine", "-c", "user.email=test@perfengine", "-c", "commit.gpgsign=false"};
    argv.insert(argv.end(), args.begin(), args.end());
    ASSERT_TRUE(RunArgv(argv, repo_, dir_.path() / "git.log")) << ReadAll(dir_.path() / "git.log");
  }

  void Commit(const std::string& extra, const std::string& message) {
    std::ofstream(repo_ / "ext" / "strs" / "strs.c") << Replace(kExtension, "{EXTRA}", extra);
    Git({"add", "-A"});
    Git({"commit", "-q", "-m", message});
  }

  Finished Run(const std::string& candidate_revision) {
    const fs::path spec = dir_.path() / "spec.toml";
    std::ofstream out(spec);
    out << "[run]\nrounds = 3\nwarmup_rounds = 0\n"
        << "[counters.ruby_objects]\nunit = \"objects\"\nexact = true\n";
    for (const auto& [name, revision] :
         {std::pair<std::string, std::string>{"baseline", "main"}, {"candidate", candidate_revision}}) {
      out << "[contenders." << name << "]\ngit = \"" << revision << "\"\nrepo = \"repo\"\n"
          << "build = [\"sh\", \"-c\", \"cd ext/strs && ruby extconf.rb && make\"]\n"
          << "argv = [\"ruby\", \"--disable-gems\", \"-Iext\", \"bench.rb\"]\n"
          << "startup = [\"ruby\", \"--disable-gems\", \"-Iext\", \"-e\", \"require 'strs/strs'\"]\n"
          << "isolated = true\n";
    }
    out << "[workloads.strings]\n[thresholds.counters]\nruby_objects = 1.0\n";
    out.close();
    return RunPerfengine({"run", spec.string(), "--cache-dir", (dir_.path() / "cache").string(), "--json",
                          (dir_.path() / "results.json").string()},
                         dir_.path());
  }

  const nlohmann::json& Workload(const nlohmann::json& results, const std::string& name) {
    for (const auto& w : results["workloads"]) {
      if (w["name"] == name) return w;
    }
    static const nlohmann::json none;
    ADD_FAILURE() << "no workload " << name;
    return none;
  }

  TempDir dir_;
  fs::path repo_;
};

TEST_F(RubyExtensionE2E, AnExtraRbStrDupFailsOnRubyObjectsAndIsProfiled) {
  const Finished f = Run("planted");
  ASSERT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("strings: ruby_objects ratio "), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("is above the allowed 1.00x"), std::string::npos) << f.out;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(dir_.path() / "results.json"));
  const nlohmann::json& w = Workload(results, "strings");
  // The same whole number of extra objects for every string built (Ruby 3.1's rb_str_dup of a
  // fresh string allocates two): the count is exact, not a timing.
  const nlohmann::json& counter = w["comparison"]["counters"][0];
  EXPECT_EQ(counter["name"], "ruby_objects");
  const double extra = counter["candidate"].get<double>() - counter["baseline"].get<double>();
  const double per_string = extra / (double{kCalls} * kStrings);
  EXPECT_GE(per_string, 1.0) << counter.dump();
  EXPECT_EQ(per_string, std::floor(per_string)) << counter.dump();
  // Both revisions were built from git by perfengine.
  EXPECT_EQ(results["contenders"][0]["git"], "main");
  EXPECT_EQ(results["contenders"][1]["git"], "planted");
  // Both versions were profiled: the report names the C function the planted line calls
  // (libruby is stripped of its static functions, which show as addresses).
  ASSERT_FALSE(w["profile"].empty()) << w.dump(1);
  bool names_it = false;
  for (const auto& p : w["profile"]) names_it |= p["function"] == "rb_str_dup";
  EXPECT_TRUE(names_it) << w["profile"].dump(1);
  EXPECT_NE(f.out.find("where the extra time went"), std::string::npos) << f.out;
}

TEST_F(RubyExtensionE2E, MainAgainstItselfPassesTheCounterAndIsIsolated) {
  const Finished f = Run("main");
  EXPECT_NE(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.exit, 1) << f.out << f.err;
  EXPECT_EQ(f.out.find("is not isolated"), std::string::npos) << f.out;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(dir_.path() / "results.json"));
  const nlohmann::json& counter = Workload(results, "strings")["comparison"]["counters"][0];
  EXPECT_EQ(counter["candidate"].get<double>(), counter["baseline"].get<double>()) << counter.dump();
  EXPECT_GE(counter["baseline"].get<double>(), double{kCalls} * kStrings) << counter.dump();
}

}  // namespace
}  // namespace pe::e2e
