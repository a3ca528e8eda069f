// The isolation check's rules (engine/run/shared_objects.h) over recorded maps: files under
// another contender's folders, one name from two paths, and what stays allowed.
#include "engine/run/shared_objects.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace pe::run {
namespace {

namespace fs = std::filesystem;
using runner::MappedFile;

const std::vector<ObjectOwner> kOwners = {{"baseline", {"/w/base"}}, {"candidate", {"/w/cand"}}, {"system", {}}};

TEST(IsolationProblems, OwnBuildAndSystemLibrariesAreFine) {
  const std::vector<MappedFile> mapped = {{10, "/usr/bin/ruby3.1"},
                                          {10, "/usr/lib/x86_64-linux-gnu/libc.so.6"},
                                          {10, "/w/base/ext/json/parser.so"},
                                          {11, "/w/base/ext/json/parser.so"}};
  EXPECT_TRUE(IsolationProblems(mapped, "baseline", kOwners).empty());
}

TEST(IsolationProblems, AnotherContendersObjectIsNamedWithItsOwner) {
  const std::vector<MappedFile> mapped = {{10, "/w/base/parser.so"}, {11, "/w/cand/generator.so"}};
  EXPECT_EQ(
      IsolationProblems(mapped, "baseline", kOwners),
      std::vector<std::string>{"process 11 mapped /w/cand/generator.so, which is contender 'candidate''s (/w/cand)"});
  // The same maps are the candidate's problem the other way round.
  EXPECT_EQ(IsolationProblems(mapped, "candidate", kOwners),
            std::vector<std::string>{"process 10 mapped /w/base/parser.so, which is contender 'baseline''s (/w/base)"});
}

TEST(IsolationProblems, TheTrapBothBuildsExtensionInOneWorker) {
  // The baseline's worker mapped the candidate's parser.so first, then its own.
  const std::vector<MappedFile> mapped = {{12, "/w/cand/json/ext/parser.so"}, {12, "/w/base/json/ext/parser.so"}};
  EXPECT_EQ(
      IsolationProblems(mapped, "baseline", kOwners),
      (std::vector<std::string>{
          "process 12 mapped /w/cand/json/ext/parser.so, which is contender 'candidate''s (/w/cand)",
          "process 12 mapped two copies of parser.so: /w/cand/json/ext/parser.so and /w/base/json/ext/parser.so"}));
}

TEST(IsolationProblems, TwoCopiesOutsideEveryBuildAreStillTwoCopies) {
  const std::vector<MappedFile> mapped = {{5, "/opt/a/libx.so.1"}, {5, "/opt/b/libx.so.1"}, {6, "/opt/a/libx.so.1"}};
  EXPECT_EQ(
      IsolationProblems(mapped, "baseline", kOwners),
      std::vector<std::string>{"process 5 mapped two copies of libx.so.1: /opt/a/libx.so.1 and /opt/b/libx.so.1"});
}

TEST(IsolationProblems, OneFileUnderTwoNamesIsOneCopy) {
  char pattern[] = "/tmp/pe-isolation-XXXXXX";
  const fs::path dir = ::mkdtemp(pattern);
  fs::create_directories(dir / "real");
  std::ofstream(dir / "real" / "libx.so") << "x";
  fs::create_directory_symlink(dir / "real", dir / "link");
  const std::vector<MappedFile> mapped = {{5, (dir / "real/libx.so").string()}, {5, (dir / "link/libx.so").string()}};
  EXPECT_TRUE(IsolationProblems(mapped, "baseline", kOwners).empty());
  fs::remove_all(dir);
}

TEST(IsolationProblems, AFolderInsideAnothersBelongsToTheNearerOwner) {
  // The candidate's build sits inside the baseline's folder: its own objects stay its own.
  const std::vector<ObjectOwner> nested = {{"baseline", {"/w"}}, {"candidate", {"/w/cand"}}};
  const std::vector<MappedFile> mapped = {{7, "/w/cand/libx.so"}};
  EXPECT_TRUE(IsolationProblems(mapped, "candidate", nested).empty());
  // A removed file still counts, under its own name; a prefix of a name is not a folder.
  const std::vector<MappedFile> removed = {{7, "/w/cand/libx.so (deleted)"}, {7, "/w/candy/liby.so"}};
  EXPECT_EQ(IsolationProblems(removed, "baseline", kOwners),
            std::vector<std::string>{"process 7 mapped /w/cand/libx.so, which is contender 'candidate''s (/w/cand)"});
}

TEST(IsolationMessage, SaysWhatAndShowsTheFirstFew) {
  EXPECT_EQ(IsolationMessage({"a", "b"}),
            "is not isolated (isolated = true): a; b. Each contender must load only its own build's shared objects, or "
            "its figures are partly another build's");
  EXPECT_TRUE(IsolationMessage({"a", "b", "c", "d", "e", "f"})
                  .starts_with("is not isolated (isolated = true): a; b; c; d; and 2 more. Each"));
}

}  // namespace
}  // namespace pe::run
