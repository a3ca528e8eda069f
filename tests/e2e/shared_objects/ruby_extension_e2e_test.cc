// The ruby/json path without the network (issue 22, CI): the test makes a git repository with a
// tiny Ruby C extension (extconf.rb and strs.c, whose build_strings allocates strings), a Ruby
// wrapper (lib/strs.rb, Strs.build) and a benchmark script; `main` is the base, `planted` adds an
// rb_str_dup per string in build_strings, `planted-ruby` an extra `transform_keys` in the Ruby
// wrapper. perfengine builds both revisions from git, runs `ruby --disable-gems -Iext -Ilib`
// on each build (so exactly that build's strs.so loads, isolated = true checks it), reads the
// Ruby objects the script counts with GC.stat(:total_allocated_objects) through
// PERFENGINE_COUNTERS as an exact counter, fails the gate on it and profiles both versions: with
// callgrind (the C plant is named by the extension's function, inclusive) and with the method
// calls the script counts itself under PERFENGINE_PROFILE (the Ruby plant is named by its
// method). No assertion reads a time.
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

// The Ruby wrapper; {RUBY_EXTRA} is where the planted Ruby-level regression goes.
constexpr const char* kWrapper = R"RB(require "strs/strs"
module Strs
  def self.build(count, opts = nil)
{RUBY_EXTRA}    build_strings(count)
  end
end
)RB";

// Counts the Ruby objects the benchmark allocates, writes them where the engine said, and
// prints the answer parity compares; says which strs.so it loaded, for the test to check. When
// the engine asks for a profile (PERFENGINE_PROFILE), counts the loop's method calls with
// TracePoint, as specs/ruby-json/bench.rb does.
constexpr const char* kBench = R"RB(require "strs"
calls = Hash.new(0)
tracer = ENV["PERFENGINE_PROFILE"] && TracePoint.new(:call, :c_call) { |tp| calls["#{tp.defined_class}##{tp.method_id}"] += 1 }
before = GC.stat(:total_allocated_objects)
total = 0
tracer&.enable
CALLS.times { total += Strs.build(STRINGS).size }
tracer&.disable
allocated = GC.stat(:total_allocated_objects) - before
File.write(ENV["PERFENGINE_PROFILE"], calls.map { |name, n| "#{name} #{n}\n" }.join) if tracer
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
    fs::create_directories(repo_ / "lib");
    std::ofstream(repo_ / "ext" / "strs" / "extconf.rb") << kExtconf;
    std::string bench = Replace(kBench, "CALLS", std::to_string(kCalls));
    std::ofstream(repo_ / "bench.rb") << Replace(bench, "STRINGS", std::to_string(kStrings));
    Git({"init", "-q", "-b", "main"});
    Commit("", "", "base: build_strings");
    Git({"checkout", "-q", "-b", "planted"});
    Commit("    s = rb_str_dup(s);\n", "", "planted: an extra rb_str_dup in build_strings");
    Git({"checkout", "-q", "main"});
    Git({"checkout", "-q", "-b", "planted-ruby"});
    Commit("", "    (opts || {}).transform_keys(&:to_sym)\n", "planted: an extra transform_keys in Strs.build");
    Git({"checkout", "-q", "main"});
  }

  void Git(std::vector<std::string> args) {
    std::vector<std::string> argv = {
        "git", "-c", "user.name=perfengine", "-c", "user.email=test@perfengine", "-c", "commit.gpgsign=false"};
    argv.insert(argv.end(), args.begin(), args.end());
    ASSERT_TRUE(RunArgv(argv, repo_, dir_.path() / "git.log")) << ReadAll(dir_.path() / "git.log");
  }

  void Commit(const std::string& extra, const std::string& ruby_extra, const std::string& message) {
    std::ofstream(repo_ / "ext" / "strs" / "strs.c") << Replace(kExtension, "{EXTRA}", extra);
    std::ofstream(repo_ / "lib" / "strs.rb") << Replace(kWrapper, "{RUBY_EXTRA}", ruby_extra);
    Git({"add", "-A"});
    Git({"commit", "-q", "-m", message});
  }

  // `run_extra`: more [run] keys, e.g. measure = ["instructions"].
  Finished Run(const std::string& candidate_revision, const std::string& run_extra = "") {
    const fs::path spec = dir_.path() / "spec.toml";
    std::ofstream out(spec);
    out << "[run]\nrounds = 3\nwarmup_rounds = 0\n"
        << run_extra << "[counters.ruby_objects]\nunit = \"objects\"\nexact = true\n";
    for (const auto& [name, revision] :
         {std::pair<std::string, std::string>{"baseline", "main"}, {"candidate", candidate_revision}}) {
      out << "[contenders." << name << "]\ngit = \"" << revision << "\"\nrepo = \"repo\"\n"
          << "build = [\"sh\", \"-c\", \"cd ext/strs && ruby extconf.rb && make\"]\n"
          << "argv = [\"ruby\", \"--disable-gems\", \"-Iext\", \"-Ilib\", \"bench.rb\"]\n"
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
  // Instructions are counted too: where they were counted under callgrind, the profile is read
  // from the count's own files (no callgrind run of its own) and must still name build_strings
  // through rb_str_dup, as the profile of a run of its own did (the assertions below, unchanged).
  const Finished f = Run("planted", "measure = [\"instructions\"]\n");
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
  // Both versions were profiled. The call graph names the extension's function the planted line
  // is in (inclusive), and the library callee the growth came through; the self-cost table
  // beside it still lists the C functions whose own instructions grew.
  ASSERT_FALSE(w["profile"].empty()) << w.dump(1);
  const nlohmann::json& first = w["profile"][0];
  EXPECT_EQ(first["basis"], "inclusive") << w["profile"].dump(1);
  EXPECT_EQ(first["function"], "build_strings") << w["profile"].dump(1);
  EXPECT_EQ(first["object"], "strs.so") << w["profile"].dump(1);
  EXPECT_NE(first["detail"].get<std::string>().find("rb_str_dup ("), std::string::npos) << first.dump();
  EXPECT_GT(first["candidate_cost"].get<double>(), first["baseline_cost"].get<double>()) << first.dump();
  bool self_rows = false;
  for (const auto& p : w["profile"]) self_rows |= p["basis"] == "self";
  EXPECT_TRUE(self_rows) << w["profile"].dump(1);
  EXPECT_NE(f.out.find("where the extra time went"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("  build_strings (strs.so): +"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("instructions inclusive"), std::string::npos) << f.out;
  // Where the profile's callgrind files came from: the instruction counts' (the machine has no
  // perf counters), else runs of its own.
  ASSERT_EQ(w["summaries"].size(), 2u) << w["summaries"].dump(1);
  const bool callgrind_counts = w["summaries"][0]["instructions_source"] == "valgrind callgrind" &&
                                w["summaries"][1]["instructions_source"] == "valgrind callgrind";
  const std::string note = w["profile_note"].get<std::string>();
  EXPECT_EQ(note.find("callgrind files of the instruction counts, not run again (baseline: ") != std::string::npos,
            callgrind_counts)
      << note << "\n"
      << w["summaries"].dump(1);
}

TEST_F(RubyExtensionE2E, AnExtraRubyCallIsNamedByTheMethodTheContenderCounted) {
  const Finished f = Run("planted-ruby");
  ASSERT_EQ(f.exit, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("strings: ruby_objects ratio "), std::string::npos) << f.out;
  const nlohmann::json results = nlohmann::json::parse(ReadAll(dir_.path() / "results.json"));
  const nlohmann::json& w = Workload(results, "strings");
  // The script counted its method calls (TracePoint) in both versions: one more
  // Hash#transform_keys per Strs.build call, none before.
  const nlohmann::json* named = nullptr;
  for (const auto& p : w["profile"]) {
    if (p["basis"] == "calls" && p["function"] == "Hash#transform_keys") named = &p;
  }
  ASSERT_NE(named, nullptr) << w["profile"].dump(1);
  EXPECT_EQ((*named)["baseline_cost"], 0) << named->dump();
  EXPECT_EQ((*named)["candidate_cost"], kCalls) << named->dump();
  EXPECT_NE(f.out.find("  Hash#transform_keys: 0 -> " + std::to_string(kCalls) + " calls (counted by the contender)"),
            std::string::npos)
      << f.out;
  // Nothing else the script counted grew: the same Strs.build and build_strings calls.
  std::vector<std::string> grew;
  for (const auto& p : w["profile"]) {
    if (p["basis"] == "calls") grew.push_back(p["function"].get<std::string>());
  }
  EXPECT_EQ(grew, std::vector<std::string>{"Hash#transform_keys"}) << w["profile"].dump(1);
}

TEST_F(RubyExtensionE2E, ABadProfileLineFailsTheRunNamingTheContender) {
  // The candidate's script writes a line without a count when asked for a profile.
  Git({"checkout", "-q", "-b", "bad-profile", "planted-ruby"});
  std::ofstream(repo_ / "bench.rb", std::ios::app)
      << "File.write(ENV[\"PERFENGINE_PROFILE\"], \"Hash#transform_keys\\n\") if ENV[\"PERFENGINE_PROFILE\"]\n";
  Git({"commit", "-q", "-am", "a bad profile line"});
  Git({"checkout", "-q", "main"});
  const Finished f = Run("bad-profile");
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE((f.out + f.err)
                .find("strings: contender 'candidate' wrote a bad profile file ($PERFENGINE_PROFILE): line 1 "
                      "'Hash#transform_keys': expected 'function calls' or 'function calls cost'"),
            std::string::npos)
      << f.out << f.err;
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
