// The callgrind out-file reader and "where the growth went" by inclusive cost, on small files
// written by hand in callgrind's own format (valgrind's docs/callgrind-format: name compression,
// `calls=` followed by the call's inclusive cost line, `positions:` and `events:` headers).
#include "engine/measure/call_graph.h"

#include <gtest/gtest.h>

#include <fstream>

namespace pe::measure {
namespace {

// A Ruby process parsing JSON: ruby's main (a system program) runs the VM (libruby), which calls
// the extension's parse (parser.so, the contender's own build), which builds strings through
// libruby's rb_utf8_str_new. json_parse_any recurses (nested documents).
constexpr const char* kBase = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  /usr/bin/ruby bench.rb
part: 1

desc: I1 cache:
desc: Timerange: Basic block 0 - 5000
desc: Trigger: Program termination

positions: line
events: Ir
summary: 10000

ob=(1) /usr/bin/ruby
fl=(1) ???
fn=(1) main
0 100
cob=(2) /usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2
cfi=(1)
cfn=(2) vm_exec_core
calls=1 0
0 9900

ob=(2)
fn=(2)
0 2000
cob=(3) /work/wt/base/pe-lib/json/ext/parser.so
cfi=(2) parser.c
cfn=(3) parser_parse
calls=10 0
0 7900

ob=(3)
fl=(2)
fn=(3)
120 400
cfn=(4) json_parse_any
calls=10 130
131 7500

fn=(4)
200 1500
cfn=(4)
calls=20 210
210 3000
cfn=(5) build_string
calls=100 220
221 6000

fn=(5)
300 1000
cob=(2)
cfi=(1)
cfn=(6) rb_utf8_str_new
calls=100 301
301 5000

ob=(2)
fl=(1)
fn=(6)
0 5000
totals: 10000
)";

// The same with an extra rb_str_dup in build_string: 100 more calls, 3,000 more instructions in
// rb_str_dup and its callee newobj_of.
constexpr const char* kCand = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4243
cmd:  /usr/bin/ruby bench.rb
part: 1

positions: line
events: Ir
summary: 13000

ob=(1) /usr/bin/ruby
fl=(1) ???
fn=(1) main
0 100
cob=(2) /usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2
cfi=(1)
cfn=(2) vm_exec_core
calls=1 0
0 12900

ob=(2)
fn=(2)
0 2000
cob=(3) /work/wt/cand/pe-lib/json/ext/parser.so
cfi=(2) parser.c
cfn=(3) parser_parse
calls=10 0
0 10900

ob=(3)
fl=(2)
fn=(3)
120 400
cfn=(4) json_parse_any
calls=10 130
131 10500

fn=(4)
200 1500
cfn=(4)
calls=20 210
210 4200
cfn=(5) build_string
calls=100 220
221 9000

fn=(5)
300 1020
cob=(2)
cfi=(1)
cfn=(6) rb_utf8_str_new
calls=100 301
301 5000
cob=(2)
cfi=(1)
cfn=(7) rb_str_dup
calls=100 302
302 2980

ob=(2)
fl=(1)
fn=(6)
0 5000
fn=(7)
0 980
cfn=(8) newobj_of
calls=100 0
0 2000
fn=(8)
0 2000
totals: 13000
)";

CallGraph Parsed(const char* text, const std::vector<std::filesystem::path>& own = {}) {
  CallGraph graph;
  const std::optional<std::string> error = ParseCallgrindOut(text, graph);
  EXPECT_FALSE(error) << *error;
  MarkOwnObjects(graph, own);
  return graph;
}

const FunctionKey kBuildString{"build_string", "parser.so"};
const FunctionKey kRbStrDup{"rb_str_dup", "libruby-3.1.so.3.1.2"};

TEST(CallGraph, ReadsSelfCostsAndCallEdgesWithCompressedNames) {
  const CallGraph g = Parsed(kCand);
  EXPECT_EQ(g.total, 13000u);
  // The cost line after calls= is the call's, not the caller's own.
  EXPECT_EQ(g.nodes.at(kBuildString).self, 1020u);
  EXPECT_EQ(g.nodes.at(FunctionKey{"newobj_of", "libruby-3.1.so.3.1.2"}).self, 2000u);
  // "(5)" alone reused the name defined earlier; cob= named the callee's object.
  const CallEdge& edge = g.edges.at({kBuildString, kRbStrDup});
  EXPECT_EQ(edge.calls, 100u);
  EXPECT_EQ(edge.cost, 2980u);
  EXPECT_EQ(g.nodes.at(kBuildString).object_path, "/work/wt/cand/pe-lib/json/ext/parser.so");
  // Inclusive: self plus calls, as callgrind_annotate --inclusive=yes.
  EXPECT_EQ(g.Inclusive(kBuildString), 1020u + 5000u + 2980u);
  // A call to itself is not counted again.
  EXPECT_EQ(g.Inclusive(FunctionKey{"json_parse_any", "parser.so"}), 1500u + 9000u);
}

TEST(CallGraph, TheBuildIsOwnTheSystemIsNot) {
  const CallGraph g = Parsed(kCand, {"/work/wt/cand"});
  EXPECT_TRUE(g.nodes.at(kBuildString).own);
  EXPECT_FALSE(g.nodes.at(kRbStrDup).own);
  EXPECT_FALSE(g.nodes.at(FunctionKey{"main", "ruby"}).own);
  // Without own folders, what lies outside /usr, /lib... is the contender's.
  const CallGraph h = Parsed(kCand);
  EXPECT_TRUE(h.nodes.at(kBuildString).own);
  EXPECT_FALSE(h.nodes.at(kRbStrDup).own);
}

TEST(CallGraph, NamesTheOwnFunctionWhoseCalleesGrewNotTheLibraryCallee) {
  const CallGraph base = Parsed(kBase, {"/work/wt/base"});
  const CallGraph cand = Parsed(kCand, {"/work/wt/cand"});
  const std::vector<InclusiveFinding> found = WhereTheGrowthWent(base, cand, 3);
  ASSERT_FALSE(found.empty());
  // build_string, not rb_str_dup (a library callee) nor json_parse_any (recursive: its inclusive
  // cost grew by 4,200, more than the 3,000 the run grew, because nested calls count again).
  EXPECT_EQ(found[0].function, kBuildString);
  EXPECT_EQ(found[0].attributed, 3000);  // 20 of its own, 2,980 through rb_str_dup
  EXPECT_EQ(found[0].base_inclusive, 6000u);
  EXPECT_EQ(found[0].cand_inclusive, 9000u);
  EXPECT_EQ(found.size(), 1u) << found[1].function.function;
  // The call site is the line of the calls= cost line, in the caller's file.
  EXPECT_EQ(FormatThrough(found[0]),
            "of which rb_str_dup (libruby-3.1.so.3.1.2) +2,980 (called at parser.c:302), its own code +20");
}

TEST(CallGraph, GrowthOnlyInTheInterpreterNamesNoOwnFunction) {
  // A Ruby-level change: the VM does more, the extension does the same.
  std::string cand = kBase;
  cand.replace(cand.find("fn=(2)\n0 2000"), 13, "fn=(2)\n0 2600");
  cand.replace(cand.find("0 9900"), 6, "0 10500");
  const std::vector<InclusiveFinding> found =
      WhereTheGrowthWent(Parsed(kBase, {"/work/wt/base"}), Parsed(cand.c_str(), {"/work/wt/base"}), 3);
  EXPECT_TRUE(found.empty()) << found[0].function.function;
}

TEST(CallGraph, ReadsPositionsAndEventsAsDeclared) {
  const char* text = R"(version: 1
positions: instr line
events: Dr Ir
ob=/tmp/build/prog
fl=work.c
fn=work
0x401000 3 7 11
+4 +4 1 5
cfn=helper
calls=3 0x401100 9
+2 +2 0 30
fn=helper
0x401100 9 2 30
)";
  CallGraph g;
  ASSERT_FALSE(ParseCallgrindOut(text, g));
  EXPECT_EQ(g.nodes.at(FunctionKey{"work", "prog"}).self, 16u);
  const CallEdge& call = g.edges.at({FunctionKey{"work", "prog"}, FunctionKey{"helper", "prog"}});
  EXPECT_EQ(call.cost, 30u);
  // Lines relative to the previous position: 3, then +4 (7), then +2 (9).
  EXPECT_EQ(call.sites, (std::map<std::string, std::uint64_t>{{"work.c:9", 30}}));
  EXPECT_EQ(g.total, 46u);  // no totals: line: the self costs summed
}

TEST(CallGraph, ABadLineIsNamed) {
  CallGraph g;
  const std::optional<std::string> error = ParseCallgrindOut("events: Ir\nfn=(1) f\n12 4x\n", g);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "line 3 '12 4x': '4x' is not a cost");
  const std::optional<std::string> unknown = ParseCallgrindOut("events: Ir\nfn=(7)\n", g);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(*unknown, "line 2 'fn=(7)': name id (7) used before it was defined");
}

TEST(CallGraph, MergesProcesses) {
  CallGraph a = Parsed(kBase);
  const CallGraph b = Parsed(kBase);
  MergeCallGraph(a, b);
  EXPECT_EQ(a.total, 20000u);
  EXPECT_EQ(a.nodes.at(kBuildString).self, 2000u);
  EXPECT_EQ(a.edges.at({FunctionKey{"parser_parse", "parser.so"}, FunctionKey{"json_parse_any", "parser.so"}}).calls,
            20u);
}

// Own-code instructions: the self cost of the build's functions, not the runtime's.
TEST(CallGraph, OwnInstructionsAreTheSelfCostOfOwnFunctionsOnly) {
  // parser_parse 400 + json_parse_any 1500 + build_string 1000; libruby's 5000 and ruby's 100 are not.
  EXPECT_EQ(OwnInstructions(Parsed(kBase, {"/work/wt/base"})), 2900u);
  // The extra rb_str_dup: 3,000 more in all (1.30x), 20 more in own code (build_string's call).
  EXPECT_EQ(OwnInstructions(Parsed(kCand, {"/work/wt/cand"})), 2920u);
  // Another contender's build is not own.
  EXPECT_EQ(OwnInstructions(Parsed(kCand, {"/work/wt/base"})), 0u);
}

TEST(CallGraph, OwnInstructionsOfFilesSumTheirProcessesAndNameABadFile) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "own-instructions";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const char* text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  const std::filesystem::path a = write("cg.1", kBase), b = write("cg.2", kBase);
  std::string error;
  const std::optional<std::uint64_t> own = OwnInstructionsOf({a, b}, {"/work/wt/base"}, error);
  ASSERT_TRUE(own) << error;
  EXPECT_EQ(*own, 2u * 2900u);
  const std::filesystem::path bad = write("cg.3", "events: Ir\nfn=(1) f\n12 4x\n");
  EXPECT_FALSE(OwnInstructionsOf({a, bad}, {"/work/wt/base"}, error));
  EXPECT_NE(error.find("cg.3"), std::string::npos) << error;
  EXPECT_FALSE(OwnInstructionsOf({dir / "missing"}, {}, error));
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pe::measure
