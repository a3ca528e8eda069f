// Real Bazel 4.2.3 against the reference contender: generate-hashes over a small workspace that
// Bazel really loads, one change of each kind (source content, an env dict, licenses, a macro's
// .bzl, an external repository's path, an exec bit), and the impacted set and distances that
// upstream bazel-diff's rules give, written down here by hand from those rules
// (RuleHasher, SourceFileHasher, TargetHasher, CalculateImpactedTargetsInteractor).
//
// Bazel runs with --batch and an output_user_root of the test's own, so no server is left
// behind (checked) and nothing outside the temporary directory is touched.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.h"

namespace pe::refdiff {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRealBazel = "/usr/bin/bazel";
const std::string kBaseline = REFDIFF_BASELINE;
const std::string kCandidate = REFDIFF_CANDIDATE;

void Write(const fs::path& path, const std::string& text, bool executable = false) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  if (executable) fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
}

// Through rdbuf(), which stops at a read error: a /proc/PID/cmdline whose process exited after
// the directory was listed fails with ESRCH, and istreambuf_iterator let libstdc++'s
// "basic_filebuf::underflow error reading the file: No such process" out of TearDown.
std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

// Processes whose command line names `needle` (a server of ours would).
std::vector<std::string> ProcessesNaming(const std::string& needle) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = Read(entry.path() / "cmdline");
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    if (cmdline.find(needle) != std::string::npos) found.push_back(name + ": " + cmdline);
  }
  return found;
}

class RealBazel : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kRealBazel)) << "real Bazel is missing: install bazel-bootstrap (scripts/install-deps.sh)";
    std::string pattern = (fs::temp_directory_path() / "perfengine-real-bazel-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    root_ = dir_ / "bazel-root";
    // Debian's Bazel answers `version` with "ERROR: Version information not available"; bazel-diff
    // needs a "Build label:" (upstream fails without one), so the wrapper gives the version the
    // package is. Every other call is the real Bazel, batch mode, in our output_user_root.
    Write(dir_ / "bazel",
          "#!/bin/sh\n"
          "for a in \"$@\"; do\n"
          "  case \"$a\" in -*) ;; version) echo 'Build label: 4.2.3'; exit 0;; *) break;; esac\n"
          "done\n"
          "exec " +
              std::string(kRealBazel) + " --batch --output_user_root=" + root_.string() + " --nohome_rc \"$@\"\n",
          true);
    WriteWorkspace();
  }

  void TearDown() override {
    EXPECT_EQ(ProcessesNaming(root_.string()), std::vector<std::string>{}) << "a Bazel server was left behind";
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path ws() const { return dir_ / "ws"; }

  void WriteWorkspace() {
    for (const char* ext : {"ext1", "ext2"}) {
      Write(dir_ / ext / "WORKSPACE", "workspace(name = \"ext\")\n");
      Write(dir_ / ext / "BUILD",
            "filegroup(name = \"lib\", srcs = [\"lib.txt\"], visibility = [\"//visibility:public\"])\n");
      Write(dir_ / ext / "lib.txt", "the same file in both copies\n");
    }
    SetExternalPath("ext1");
    Write(ws() / "srcpkg/BUILD",
          "cc_library(name = \"lib\", srcs = [\"lib.cc\"], hdrs = [\"lib.h\"])\n\n"
          "cc_binary(name = \"app\", srcs = [\"main.cc\"], deps = [\":lib\"])\n");
    Write(ws() / "srcpkg/lib.cc", "int lib() { return 1; }\n");
    Write(ws() / "srcpkg/lib.h", "int lib();\n");
    Write(ws() / "srcpkg/main.cc", "int main() { return 0; }\n");
    SetEnv("fast");
    Write(ws() / "envpkg/t.sh", "true\n", true);
    SetLicense("notice");
    Write(ws() / "licpkg/l.cc", "int l;\n");
    Write(ws() / "macropkg/defs.bzl",
          "def my_gen(name, **kwargs):\n"
          "    native.genrule(name = name, cmd = \"echo hi > $@\", **kwargs)\n");
    Write(ws() / "macropkg/BUILD",
          "load(\":defs.bzl\", \"my_gen\")\n\n"
          "my_gen(name = \"gen\", outs = [\"gen.out\"])\n\n"
          "filegroup(name = \"consumer\", srcs = [\":gen.out\"])\n\n"
          "filegroup(name = \"plain\", srcs = [\"plain.txt\"])\n");
    Write(ws() / "macropkg/plain.txt", "plain\n");
    Write(ws() / "extpkg/BUILD", "filegroup(name = \"fg\", srcs = [\"@ext//:lib\"])\n");
    Write(ws() / "exepkg/BUILD", "sh_binary(name = \"tool\", srcs = [\"tool.sh\"])\n");
    Write(ws() / "exepkg/tool.sh", "echo tool\n");
  }

  void SetExternalPath(const std::string& ext) {
    Write(ws() / "WORKSPACE", "workspace(name = \"difftest\")\n\nlocal_repository(name = \"ext\", path = \"" +
                                  (dir_ / ext).string() + "\")\n");
  }
  void SetEnv(const std::string& mode) {
    Write(ws() / "envpkg/BUILD", "sh_test(name = \"t\", srcs = [\"t.sh\"], env = {\"MODE\": \"" + mode + "\"})\n");
  }
  void SetLicense(const std::string& license) {
    Write(ws() / "licpkg/BUILD", "cc_library(name = \"l\", srcs = [\"l.cc\"], licenses = [\"" + license + "\"])\n");
  }

  ProcessResult Run(const std::string& program, std::vector<std::string> args) {
    args.insert(args.begin(), program);
    return RunProcess({args, {}, {}});
  }

  fs::path dir_, root_;
};

TEST_F(RealBazel, EachKindOfChangeImpactsWhatUpstreamWouldFind) {
  const std::string start = (dir_ / "start.json").string(), final_hashes = (dir_ / "final.json").string();
  const std::string edges = (dir_ / "edges.json").string(), bazel = (dir_ / "bazel").string();
  ProcessResult before =
      Run(kBaseline, {"generate-hashes", "-w", ws().string(), "-b", bazel, "--includeTargetType", start});
  ASSERT_EQ(before.exit_code, 0) << before.stderr_text;
  const nlohmann::json hashes = nlohmann::json::parse(Read(start));
  // What real Bazel reports, as upstream hashes it: //external repositories (WORKSPACE mode),
  // implicit outputs, source files with their type on the value.
  EXPECT_EQ(hashes.value("//external:ext", "").rfind("Rule#", 0), 0u);
  EXPECT_EQ(hashes.value("//srcpkg:app.stripped", "").rfind("GeneratedFile#", 0), 0u);
  EXPECT_EQ(hashes.value("//srcpkg:lib.cc", "").rfind("SourceFile#", 0), 0u);
  EXPECT_FALSE(hashes.contains("//macropkg:defs.bzl")) << "a loaded .bzl is not a target";

  // One change of each kind, each in its own package.
  Write(ws() / "srcpkg/lib.cc", "int lib() { return 2; }\n");                              // source content
  SetEnv("slow");                                                                          // env dict
  SetLicense("restricted");                                                                // licenses
  std::ofstream(ws() / "macropkg/defs.bzl", std::ios::app) << "# the macro changed\n";     // a macro's .bzl
  SetExternalPath("ext2");                                                                 // external repo
  fs::permissions(ws() / "exepkg/tool.sh", fs::perms::owner_exec, fs::perm_options::add);  // exec bit

  ProcessResult after = Run(kCandidate, {"generate-hashes", "-w", ws().string(), "-b", bazel, "--includeTargetType",
                                         "-d", edges, final_hashes});
  ASSERT_EQ(after.exit_code, 0) << after.stderr_text;

  ProcessResult impacted =
      Run(kBaseline, {"get-impacted-targets", "-w", ws().string(), "-b", bazel, "-sh", start, "-fh", final_hashes});
  ASSERT_EQ(impacted.exit_code, 0) << impacted.stderr_text;
  // Upstream's rules, change by change:
  //   lib.cc        the file (SourceFile), //srcpkg:lib (lists it: direct), //srcpkg:app (depends on
  //                 lib) and app's implicit outputs app.dwp and app.stripped (GeneratedFiles);
  //   env, licenses the rule whose attribute changed and its package's BUILD file;
  //   defs.bzl      the rule the macro instantiated (its stack names the .bzl), its output, and the
  //                 filegroup using that output; not //macropkg:plain, not the BUILD file;
  //   ext path      //external:ext (its path attribute) and //extpkg:fg, whose input @ext//:lib links
  //                 it to //external:ext; not //external:WORKSPACE, which upstream looks for at
  //                 <workspace>/external/WORKSPACE, finds missing, and hashes by its name alone;
  //   exec bit      tool.sh and the sh_binary listing it.
  // In upstream's order: SourceFile, GeneratedFile, Rule, each by label.
  EXPECT_EQ(Lines(impacted.stdout_text),
            (std::vector<std::string>{"//envpkg:BUILD", "//exepkg:tool.sh", "//licpkg:BUILD", "//srcpkg:lib.cc",
                                      "//macropkg:gen.out", "//srcpkg:app.dwp", "//srcpkg:app.stripped", "//envpkg:t",
                                      "//exepkg:tool", "//external:ext", "//extpkg:fg", "//licpkg:l",
                                      "//macropkg:consumer", "//macropkg:gen", "//srcpkg:app", "//srcpkg:lib"}));

  // Told not to exclude //external:*, it asks Bazel only `info output_base`, as upstream's hasher
  // module does (Modules.kt:66-82), and not `mod graph` (one JVM start less).
  ProcessResult distances =
      Run(kBaseline, {"get-impacted-targets", "-w", ws().string(), "-b", bazel, "--no-excludeExternalTargets", "-sh",
                      start, "-fh", final_hashes, "-d", edges});
  ASSERT_EQ(distances.exit_code, 0) << distances.stderr_text;
  std::map<std::string, std::pair<int, int>> got;
  for (const auto& entry : nlohmann::json::parse(distances.stdout_text)) {
    got[entry["label"]] = {entry["targetDistance"], entry["packageDistance"]};
  }
  // Direct changes are 0; //srcpkg:app depends on lib (1), its outputs on app (2); //extpkg:fg
  // reaches //external:ext across a package (1, 1); the consumer uses gen.out, whose direct hash
  // is gen's and changed (1, 0).
  const std::map<std::string, std::pair<int, int>> expected = {
      {"//envpkg:BUILD", {0, 0}},        {"//exepkg:tool.sh", {0, 0}},   {"//licpkg:BUILD", {0, 0}},
      {"//srcpkg:lib.cc", {0, 0}},       {"//macropkg:gen.out", {0, 0}}, {"//srcpkg:app.dwp", {2, 0}},
      {"//srcpkg:app.stripped", {2, 0}}, {"//envpkg:t", {0, 0}},         {"//exepkg:tool", {0, 0}},
      {"//external:ext", {0, 0}},        {"//extpkg:fg", {1, 1}},        {"//licpkg:l", {0, 0}},
      {"//macropkg:consumer", {1, 0}},   {"//macropkg:gen", {0, 0}},     {"//srcpkg:app", {1, 0}},
      {"//srcpkg:lib", {0, 0}}};
  EXPECT_EQ(got, expected);
}

// Four more kinds of change, each in its own package, for the audit's table of twelve (the six
// above, the two below and these): a rule added, a rule removed, a dependency added, and an
// attribute changed under a dependent in another package. Upstream's rules: a rule's digest is
// its class, name and attributes (BazelRule.digest; its location is not hashed) and its inputs'
// digests (RuleHasher.digest), so a rule whose BUILD file changed around it is not impacted; the
// BUILD file is a source file whose content changed; get-impacted-targets reports the final
// hashes that differ from the start's or are new (CalculateImpactedTargetsInteractor), so a
// removed rule is never reported.
TEST_F(RealBazel, AddedRemovedRewiredAndReconfiguredRulesImpactWhatUpstreamWouldFind) {
  Write(ws() / "addpkg/BUILD", "filegroup(name = \"a\", srcs = [\"a.txt\"])\n");
  Write(ws() / "addpkg/a.txt", "a\n");
  Write(ws() / "rmpkg/BUILD",
        "filegroup(name = \"x\", srcs = [\"x.txt\"])\n\nfilegroup(name = \"y\", srcs = [\"x.txt\"])\n");
  Write(ws() / "rmpkg/x.txt", "x\n");
  Write(ws() / "deppkg/BUILD",
        "filegroup(name = \"base\", srcs = [\"base.txt\"])\n\nfilegroup(name = \"top\", srcs = [\"top.txt\"])\n");
  Write(ws() / "deppkg/base.txt", "base\n");
  Write(ws() / "deppkg/top.txt", "top\n");
  Write(
      ws() / "attrpkg/BUILD",
      "cc_library(name = \"core\", srcs = [\"core.cc\"], copts = [\"-O1\"], visibility = [\"//visibility:public\"])\n");
  Write(ws() / "attrpkg/core.cc", "int core() { return 1; }\n");
  Write(ws() / "userpkg/BUILD", "cc_library(name = \"user\", srcs = [\"user.cc\"], deps = [\"//attrpkg:core\"])\n");
  Write(ws() / "userpkg/user.cc", "int user() { return 1; }\n");
  const std::string bazel = (dir_ / "bazel").string();
  const std::string start = (dir_ / "start.json").string(), final_hashes = (dir_ / "final.json").string();
  const std::string edges = (dir_ / "edges.json").string();
  ProcessResult before = Run(kBaseline, {"generate-hashes", "-w", ws().string(), "-b", bazel, start});
  ASSERT_EQ(before.exit_code, 0) << before.stderr_text;
  ASSERT_TRUE(nlohmann::json::parse(Read(start)).contains("//rmpkg:y"));

  std::ofstream(ws() / "addpkg/BUILD", std::ios::app) << "\nfilegroup(name = \"b\", srcs = [\"a.txt\"])\n";  // added
  Write(ws() / "rmpkg/BUILD", "filegroup(name = \"x\", srcs = [\"x.txt\"])\n");                              // removed
  Write(ws() / "deppkg/BUILD",                                                                               // rewired
        "filegroup(name = \"base\", srcs = [\"base.txt\"])\n\nfilegroup(name = \"top\", srcs = [\"top.txt\", "
        "\":base\"])\n");
  Write(
      ws() / "attrpkg/BUILD",  // reconfigured
      "cc_library(name = \"core\", srcs = [\"core.cc\"], copts = [\"-O2\"], visibility = [\"//visibility:public\"])\n");
  ProcessResult after =
      Run(kCandidate, {"generate-hashes", "-w", ws().string(), "-b", bazel, "-d", edges, final_hashes});
  ASSERT_EQ(after.exit_code, 0) << after.stderr_text;
  ASSERT_FALSE(nlohmann::json::parse(Read(final_hashes)).contains("//rmpkg:y"));

  ProcessResult distances = Run(kBaseline, {"get-impacted-targets", "-w", ws().string(), "-b", bazel, "-sh", start,
                                            "-fh", final_hashes, "-d", edges});
  ASSERT_EQ(distances.exit_code, 0) << distances.stderr_text;
  std::map<std::string, std::pair<int, int>> got;
  for (const auto& entry : nlohmann::json::parse(distances.stdout_text)) {
    got[entry["label"]] = {entry["targetDistance"], entry["packageDistance"]};
  }
  //   added       the BUILD file and the new rule (new: distance 0); not //addpkg:a;
  //   removed     the BUILD file only; //rmpkg:x is as it was and //rmpkg:y is gone;
  //   rewired     the BUILD file and //deppkg:top (its srcs changed); not //deppkg:base;
  //   reconfigured the BUILD file, //attrpkg:core (its copts), and //userpkg:user, which depends on
  //               it from another package (1, 1).
  const std::map<std::string, std::pair<int, int>> expected = {
      {"//addpkg:BUILD", {0, 0}}, {"//addpkg:b", {0, 0}},      {"//rmpkg:BUILD", {0, 0}},  {"//deppkg:BUILD", {0, 0}},
      {"//deppkg:top", {0, 0}},   {"//attrpkg:BUILD", {0, 0}}, {"//attrpkg:core", {0, 0}}, {"//userpkg:user", {1, 1}}};
  EXPECT_EQ(got, expected);
}

// The same workspace in two directories has two output bases, and Bazel 4.2.3 writes the
// instantiation-stack frames of //external:* rules (macros of @bazel_tools) as absolute paths
// under the output base. Upstream resolves such a frame under the workspace, finds nothing and
// hashes nothing for it (RuleHasher.kt:40-60, SourceFileHasher.kt:130-145), so the two copies
// hash alike: 0 impacted targets. (Hashing the frame's path text, as the reference once did,
// gave 29 spurious targets on such a pair, 27 of them //external:*: issue 28's audit.)
TEST_F(RealBazel, OneWorkspaceHashedFromTwoDirectoriesImpactsNothing) {
  const fs::path copy = dir_ / "elsewhere" / "ws";
  fs::create_directories(copy.parent_path());
  fs::copy(ws(), copy, fs::copy_options::recursive);
  const std::string bazel = (dir_ / "bazel").string();
  const std::string here = (dir_ / "here.json").string(), there = (dir_ / "there.json").string();
  ProcessResult first = Run(kBaseline, {"generate-hashes", "-w", ws().string(), "-b", bazel, here});
  ASSERT_EQ(first.exit_code, 0) << first.stderr_text;
  ProcessResult second = Run(kCandidate, {"generate-hashes", "-w", copy.string(), "-b", bazel, there});
  ASSERT_EQ(second.exit_code, 0) << second.stderr_text;
  ProcessResult impacted = Run(kBaseline, {"get-impacted-targets", "-w", copy.string(), "-b", bazel,
                                           "--no-excludeExternalTargets", "-sh", here, "-fh", there});
  ASSERT_EQ(impacted.exit_code, 0) << impacted.stderr_text;
  EXPECT_EQ(Lines(impacted.stdout_text), std::vector<std::string>{});
  EXPECT_GT(nlohmann::json::parse(Read(here)).size(), 20u);
}

// A macro of another repository: Bazel 4.2.3 writes its frame as an absolute output-base path
// (<output base>/external/ext/macros.bzl:...), which upstream resolves under the workspace,
// does not find and skips (RuleHasher.kt:40-60, SourceFileHasher.kt:130-145). Editing that
// macro in a way that leaves the rule's attributes as they were impacts nothing upstream; the
// reference once read the file and reported the rule and its output.
TEST_F(RealBazel, AnExternalMacroEditImpactsWhatUpstreamFinds) {
  Write(dir_ / "ext1" / "macros.bzl",
        "def ext_macro(name):\n"
        "    native.genrule(name = name, outs = [name + \".out\"], cmd = \"echo ext > $@\")\n");
  Write(ws() / "extmacro/BUILD", "load(\"@ext//:macros.bzl\", \"ext_macro\")\n\next_macro(name = \"made\")\n");
  const std::string bazel = (dir_ / "bazel").string();
  const std::string start = (dir_ / "start.json").string(), final_hashes = (dir_ / "final.json").string();
  ProcessResult before = Run(kBaseline, {"generate-hashes", "-w", ws().string(), "-b", bazel, start});
  ASSERT_EQ(before.exit_code, 0) << before.stderr_text;
  ASSERT_TRUE(nlohmann::json::parse(Read(start)).contains("//extmacro:made"));
  std::ofstream(dir_ / "ext1" / "macros.bzl", std::ios::app) << "# the macro changed\n";
  ProcessResult after = Run(kCandidate, {"generate-hashes", "-w", ws().string(), "-b", bazel, final_hashes});
  ASSERT_EQ(after.exit_code, 0) << after.stderr_text;
  ProcessResult impacted = Run(kBaseline, {"get-impacted-targets", "-w", ws().string(), "-b", bazel,
                                           "--no-excludeExternalTargets", "-sh", start, "-fh", final_hashes});
  ASSERT_EQ(impacted.exit_code, 0) << impacted.stderr_text;
  EXPECT_EQ(Lines(impacted.stdout_text), std::vector<std::string>{});
}

}  // namespace
}  // namespace pe::refdiff
