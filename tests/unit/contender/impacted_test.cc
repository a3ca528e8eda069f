// get-impacted-targets on hand-made hash files and a hand-made dependency graph.
#include <gtest/gtest.h>

#include "error.h"
#include "impacted.h"

namespace pe::refdiff {
namespace {

HashEntries Sorted(HashEntries entries) {
  std::sort(entries.begin(), entries.end());
  return entries;
}

TEST(ImpactedKeys, ChangedAndNewTargetsOnly) {
  HashEntries start = Sorted({{"//a:x", "1~1"}, {"//a:y", "2~2"}, {"//gone:z", "3~3"}});
  HashEntries final_hashes = Sorted({{"//a:x", "1~1"}, {"//a:y", "9~2"}, {"//b:new", "4~4"}});
  EXPECT_EQ(ImpactedKeys(start, final_hashes), (std::vector<std::string>{"//a:y", "//b:new"}));
  EXPECT_EQ(FormatImpactedLines(ImpactedKeys(start, final_hashes)), "//a:y\n//b:new\n");
}

TEST(ImpactedKeys, TypedKeysSortSourceThenGeneratedThenRule) {
  HashEntries final_hashes = Sorted({{"Rule#//a:a", "1~1"},
                                     {"SourceFile#//z:z.cc", "2~2"},
                                     {"GeneratedFile#//m:out", "3~3"},
                                     {"Rule#//0:b", "4~4"}});
  EXPECT_EQ(ImpactedKeys({}, final_hashes),
            (std::vector<std::string>{"SourceFile#//z:z.cc", "GeneratedFile#//m:out", "Rule#//0:b", "Rule#//a:a"}));
}

TEST(PackageOf, StripsTheTargetName) {
  EXPECT_EQ(PackageOf("//pkg/sub:name"), "//pkg/sub");
  EXPECT_EQ(PackageOf("@repo//pkg:x"), "@repo//pkg");
  EXPECT_EQ(PackageOf("//pkg"), "//pkg");
  EXPECT_EQ(LabelOfKey("GeneratedFile#//a:b"), "//a:b");
  EXPECT_EQ(LabelOfKey("//a:b"), "//a:b");
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
  HashEntries start_ = Sorted({{"//a:src.cc", "t1~d1"}, {"//a:lib", "t2~d2"},   {"//b:lib", "t3~d3"},
                               {"//c:helper", "t4~d4"}, {"//c:bin", "t5~d5"},   {"//d:x", "t6~d6"},
                               {"//e:y", "t7~d7"},      {"//d:top", "t8~d8"},   {"//f:attr", "t9~d9"},
                               {"//z:same", "tz~dz"},   {"//gone:x", "tg~dg"}});
  HashEntries final_ = Sorted({{"//a:src.cc", "T1~D1"}, {"//a:lib", "T2~d2"},  {"//b:lib", "T3~d3"},
                               {"//c:helper", "T4~d4"}, {"//c:bin", "T5~d5"},  {"//d:new", "N~N"},
                               {"//d:x", "T6~d6"},      {"//e:y", "T7~d7"},    {"//d:top", "T8~d8"},
                               {"//f:attr", "T9~D9"},   {"//z:same", "tz~dz"}});
  DepEdgeMap edges_ = {{"//a:lib", {"//a:src.cc", "//z:same"}},
                       {"//b:lib", {"//a:lib"}},
                       {"//c:helper", {"//a:src.cc"}},
                       {"//c:bin", {"//b:lib", "//c:helper"}},
                       {"//d:x", {"//d:new"}},
                       {"//e:y", {"//a:src.cc"}},
                       {"//d:top", {"//e:y", "//d:x"}},
                       {"//f:attr", {"//a:lib"}},
                       {"//z:same", {}}};
};

TEST_F(Distances, ShortestPathWithFewestPackageChanges) {
  std::vector<ImpactedTarget> impacted = ImpactedWithDistances(start_, final_, edges_);
  std::string got;
  for (const auto& target : impacted) {
    got += target.key + " " + std::to_string(target.target_distance) + " " +
           std::to_string(target.package_distance) + "\n";
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

TEST_F(Distances, ImpactedTargetWithNoChangedPathIsAnError) {
  edges_.erase("//c:helper");
  edges_["//c:bin"] = {"//c:helper"};
  try {
    ImpactedWithDistances(start_, final_, edges_);
    FAIL() << "no error";
  } catch (const RefDiffError& error) {
    EXPECT_STREQ(error.what(),
                 "//c:bin is impacted, but neither its direct hash nor any of its dependencies in the "
                 "dependency-edges file changed");
  }
}

TEST_F(Distances, HashWithoutDirectPartIsAnError) {
  final_[0].second = "T2";
  EXPECT_THROW(ImpactedWithDistances(start_, final_, edges_), RefDiffError);
}

}  // namespace
}  // namespace pe::refdiff
