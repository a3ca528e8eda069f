// get-impacted-targets on hand-made hash files and a hand-made dependency graph.
#include "impacted.h"

#include <gtest/gtest.h>

#include "error.h"

namespace pe::refdiff {
namespace {

HashEntries Sorted(HashEntries entries) {
  std::sort(entries.begin(), entries.end());
  return entries;
}

TEST(ImpactedLabels, ChangedAndNewTargetsOnly) {
  HashEntries start = Sorted({{"//a:x", "1~1"}, {"//a:y", "2~2"}, {"//gone:z", "3~3"}});
  HashEntries final_hashes = Sorted({{"//a:x", "1~1"}, {"//a:y", "9~2"}, {"//b:new", "4~4"}});
  EXPECT_EQ(ImpactedLabels(start, final_hashes), (std::vector<std::string>{"//a:y", "//b:new"}));
  EXPECT_EQ(FormatImpactedLines(ImpactedLabels(start, final_hashes)), "//a:y\n//b:new\n");
}

// --includeTargetType puts the type on the value; the answer is plain labels in upstream's
// order: SourceFile, GeneratedFile, Rule, each by label.
TEST(ImpactedLabels, TypedValuesSortSourceThenGeneratedThenRule) {
  HashEntries final_hashes = Sorted(
      {{"//a:a", "Rule#1~1"}, {"//z:z.cc", "SourceFile#2~2"}, {"//m:out", "GeneratedFile#3~3"}, {"//0:b", "Rule#4~4"}});
  EXPECT_EQ(ImpactedLabels({}, final_hashes), (std::vector<std::string>{"//z:z.cc", "//m:out", "//0:b", "//a:a"}));
}

// Upstream compares "type#hash~direct": a target that only changed type is impacted.
TEST(ImpactedLabels, ATypeChangeIsAChange) {
  HashEntries start = Sorted({{"//a:x", "SourceFile#1~1"}});
  HashEntries final_hashes = Sorted({{"//a:x", "GeneratedFile#1~1"}});
  EXPECT_EQ(ImpactedLabels(start, final_hashes), (std::vector<std::string>{"//a:x"}));
}

TEST(ImpactedLabels, FiltersByTypeAndExternal) {
  HashEntries final_hashes =
      Sorted({{"//a:a", "Rule#1~1"}, {"//a:a.cc", "SourceFile#2~2"}, {"//external:zlib", "Rule#3~3"}});
  ImpactedOptions rules;
  rules.target_types.emplace();
  rules.target_types->insert("Rule");
  EXPECT_EQ(ImpactedLabels({}, final_hashes, rules), (std::vector<std::string>{"//a:a", "//external:zlib"}));
  rules.exclude_external_targets = true;
  EXPECT_EQ(ImpactedLabels({}, final_hashes, rules), (std::vector<std::string>{"//a:a"}));

  HashEntries untyped = Sorted({{"//a:a", "1~1"}});
  try {
    ImpactedLabels({}, untyped, rules);
    FAIL() << "no error";
  } catch (const RefDiffError& error) {
    EXPECT_STREQ(error.what(),
                 "No target type info found, please re-generate the target hashes JSON with --includeTargetType!");
  }
}

TEST(PackageOf, EverythingBeforeTheFirstColon) {
  EXPECT_EQ(PackageOf("//pkg/sub:name"), "//pkg/sub");
  EXPECT_EQ(PackageOf("@repo//pkg:x"), "@repo//pkg");
  EXPECT_EQ(PackageOf("//pkg"), "//pkg");
  EXPECT_EQ(PackageOf("//external:zlib"), "//external");
}

TEST(HashValues, TypeAndDirectParts) {
  EXPECT_EQ(TypeOfHash("Rule#t~d"), "Rule");
  EXPECT_EQ(TypeOfHash("t~d"), "");
  EXPECT_EQ(DirectOfHash("Rule#t~d"), "d");
}

// //a:src.cc changed itself. Paths of impacted targets towards it:
//   //a:lib -> //a:src.cc                         (1 step, same package)
//   //b:lib -> //a:lib -> //a:src.cc              (2 steps, one package change)
//   //c:bin -> //c:helper -> //a:src.cc           (shorter than through //b:lib)
//   //d:top -> //d:x -> //d:new (new target)      (ties with //d:top -> //e:y -> //a:src.cc,
//                                                 which crosses two packages: the fewest wins)
//   //f:attr changed its own attributes           (0, though its dependency changed too)
class Distances : public ::testing::Test {
 protected:
  HashEntries start_ = Sorted({{"//a:src.cc", "t1~d1"},
                               {"//a:lib", "t2~d2"},
                               {"//b:lib", "t3~d3"},
                               {"//c:helper", "t4~d4"},
                               {"//c:bin", "t5~d5"},
                               {"//d:x", "t6~d6"},
                               {"//e:y", "t7~d7"},
                               {"//d:top", "t8~d8"},
                               {"//f:attr", "t9~d9"},
                               {"//z:same", "tz~dz"},
                               {"//gone:x", "tg~dg"}});
  HashEntries final_ = Sorted({{"//a:src.cc", "T1~D1"},
                               {"//a:lib", "T2~d2"},
                               {"//b:lib", "T3~d3"},
                               {"//c:helper", "T4~d4"},
                               {"//c:bin", "T5~d5"},
                               {"//d:new", "N~N"},
                               {"//d:x", "T6~d6"},
                               {"//e:y", "T7~d7"},
                               {"//d:top", "T8~d8"},
                               {"//f:attr", "T9~D9"},
                               {"//z:same", "tz~dz"}});
  DepEdgeMap edges_ = {
      {"//a:lib", {"//a:src.cc", "//z:same"}}, {"//b:lib", {"//a:lib"}},  {"//c:helper", {"//a:src.cc"}},
      {"//c:bin", {"//b:lib", "//c:helper"}},  {"//d:x", {"//d:new"}},    {"//e:y", {"//a:src.cc"}},
      {"//d:top", {"//e:y", "//d:x"}},         {"//f:attr", {"//a:lib"}}, {"//z:same", {}}};
};

// Worked out by hand with upstream's calculateDistance: targetDistance = 1 + least over impacted
// deps, packageDistance = least over impacted deps of (theirs + a package crossing).
TEST_F(Distances, AsUpstreamComputesThem) {
  std::vector<ImpactedTarget> impacted = ImpactedWithDistances(start_, final_, edges_);
  std::string got;
  for (const auto& target : impacted) {
    got += target.label + " " + std::to_string(target.target_distance) + " " + std::to_string(target.package_distance) +
           "\n";
  }
  EXPECT_EQ(got,
            "//a:lib 1 0\n"
            "//a:src.cc 0 0\n"
            "//b:lib 2 1\n"
            "//c:bin 2 1\n"
            "//c:helper 1 1\n"
            "//d:new 0 0\n"
            "//d:top 2 0\n"
            "//d:x 1 0\n"
            "//e:y 1 1\n"
            "//f:attr 0 0\n");
}

TEST_F(Distances, FormatsAJsonArray) {
  HashEntries start = Sorted({{"//a:x", "1~1"}, {"//a:y", "2~2"}});
  HashEntries final_hashes = Sorted({{"//a:x", "5~5"}, {"//a:y", "6~2"}});
  std::string json = FormatImpactedJson(ImpactedWithDistances(start, final_hashes, {{"//a:y", {"//a:x"}}}));
  EXPECT_EQ(json,
            "[\n"
            "  {\"label\": \"//a:x\", \"targetDistance\": 0, \"packageDistance\": 0},\n"
            "  {\"label\": \"//a:y\", \"targetDistance\": 1, \"packageDistance\": 0}\n"
            "]\n");
}

// //p:t is one step from //q:near (another package) and three steps from //p:src (same package
// all the way): upstream minimises the two distances separately, so 1 and 0, although no single
// path has both.
TEST(DistancesMinimisedSeparately, TargetAndPackageDistance) {
  HashEntries start =
      Sorted({{"//q:near", "a~a"}, {"//p:src", "b~b"}, {"//p:mid", "c~c"}, {"//p:far", "d~d"}, {"//p:t", "e~e"}});
  HashEntries final_hashes =
      Sorted({{"//q:near", "A~A"}, {"//p:src", "B~B"}, {"//p:mid", "C~c"}, {"//p:far", "D~d"}, {"//p:t", "E~e"}});
  DepEdgeMap edges = {{"//p:mid", {"//p:src"}}, {"//p:far", {"//p:mid"}}, {"//p:t", {"//q:near", "//p:far"}}};
  std::vector<ImpactedTarget> impacted = ImpactedWithDistances(start, final_hashes, edges);
  ASSERT_EQ(impacted.size(), 5u);
  EXPECT_EQ(impacted[3].label, "//p:t");
  EXPECT_EQ(impacted[3].target_distance, 1);
  EXPECT_EQ(impacted[3].package_distance, 0);
}

// Upstream issue #268: an indirectly impacted target with no edges, or no impacted deps, is 0
// and 0 with a warning, not an error.
TEST_F(Distances, IndirectWithoutImpactedDepsIsZeroWithAWarning) {
  edges_.erase("//c:helper");
  edges_["//d:x"] = {"//z:same"};
  std::vector<std::string> warnings;
  std::vector<ImpactedTarget> impacted = ImpactedWithDistances(start_, final_, edges_, {}, &warnings);
  std::string got;
  for (const auto& target : impacted) {
    got += target.label + " " + std::to_string(target.target_distance) + " " + std::to_string(target.package_distance) +
           "\n";
  }
  EXPECT_EQ(got,
            "//a:lib 1 0\n"
            "//a:src.cc 0 0\n"
            "//b:lib 2 1\n"
            "//c:bin 1 0\n"
            "//c:helper 0 0\n"
            "//d:new 0 0\n"
            "//d:top 1 0\n"
            "//d:x 0 0\n"
            "//e:y 1 1\n"
            "//f:attr 0 0\n");
  EXPECT_EQ(warnings,
            (std::vector<std::string>{
                "//c:helper was indirectly impacted, but has no dependencies in the dep-edges file; distance 0",
                "//d:x was indirectly impacted, but none of its 1 deps in the dep-edges file are impacted; "
                "distance 0"}));
}

TEST(DistancesCycle, ACycleNothingFeedsIsAnError) {
  HashEntries start = Sorted({{"//a:x", "1~x"}, {"//a:y", "2~y"}});
  HashEntries final_hashes = Sorted({{"//a:x", "3~x"}, {"//a:y", "4~y"}});
  DepEdgeMap edges = {{"//a:x", {"//a:y"}}, {"//a:y", {"//a:x"}}};
  try {
    ImpactedWithDistances(start, final_hashes, edges);
    FAIL() << "no error";
  } catch (const RefDiffError& error) {
    EXPECT_STREQ(error.what(),
                 "//a:x is impacted only through a dependency cycle of impacted targets that no changed target feeds");
  }
}

TEST(HashesFile, ReadsBothShapesAndRefusesMalformedHashes) {
  HashesFile legacy = ParseHashFile(R"({"//a:b": "t~d"})", "legacy.json");
  EXPECT_EQ(legacy.hashes, (HashEntries{{"//a:b", "t~d"}}));
  EXPECT_FALSE(legacy.module_graph_json);
  HashesFile bzlmod = ParseHashFile(
      R"({"hashes": {"//a:b": "Rule#t~d"}, "metadata": {"moduleGraphJson": "{\"key\": \"<root>\"}"}})", "bzlmod.json");
  EXPECT_EQ(bzlmod.hashes, (HashEntries{{"//a:b", "Rule#t~d"}}));
  EXPECT_EQ(bzlmod.module_graph_json, "{\"key\": \"<root>\"}");
  try {
    ParseHashFile(R"({"//a:b": "T2"})", "bad.json");
    FAIL() << "no error";
  } catch (const RefDiffError& error) {
    EXPECT_STREQ(error.what(),
                 "bad.json: the hash of //a:b is 'T2', not '[Type#]<hash>~<direct hash>' as "
                 "generate-hashes writes it");
  }
}

}  // namespace
}  // namespace pe::refdiff
