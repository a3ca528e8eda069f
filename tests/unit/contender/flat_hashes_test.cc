// The candidate's flat reader of hashes files against the judge it must agree with: ParseHashFile,
// the baseline's reader. Same entries, same module graph, same error text, for the shapes
// generate-hashes writes and for everything else a JSON file may hold.
#include "flat_hashes.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "hash_json.h"
#include "impacted.h"

namespace pe::refdiff {
namespace {

// What a reader made of a text: its entries and module graph, or its error.
struct Reading {
  HashEntries hashes;
  std::optional<std::string> module_graph_json;
  std::string error;

  bool operator==(const Reading&) const = default;
};

void PrintTo(const Reading& reading, std::ostream* out) {
  *out << ::testing::PrintToString(reading.hashes) << " graph " << ::testing::PrintToString(reading.module_graph_json)
       << " error '" << reading.error << "'";
}

Reading ReadWithDom(const std::string& text) {
  try {
    HashesFile file = ParseHashFile(text, "h.json");
    return {file.hashes, file.module_graph_json, ""};
  } catch (const RefDiffError& error) {
    return {{}, std::nullopt, error.what()};
  }
}

Reading ReadFlat(const std::string& text) {
  try {
    // Moved twice, as the CLI moves it: the views must still point at live bytes.
    std::optional<FlatHashesFile> held;
    held = ParseFlatHashFile(text, "h.json");
    FlatHashesFile file = std::move(*held);
    held.reset();
    HashEntries hashes(file.hashes.begin(), file.hashes.end());
    return {hashes, file.module_graph_json, ""};
  } catch (const RefDiffError& error) {
    return {{}, std::nullopt, error.what()};
  }
}

TEST(FlatHashFile, ReadsEveryTextAsParseHashFileReadsIt) {
  const std::vector<std::string> texts = {
      // What generate-hashes writes, both shapes, with and without types.
      "{}",
      "{\n}\n",
      "{\n  \"//a:b\": \"t1~d1\",\n  \"//a:c\": \"t2~d2\"\n}\n",
      "{\n  \"//a:b\": \"Rule#t1~d1\",\n  \"//a:c.cc\": \"SourceFile#t2~d2\"\n}\n",
      "{\n  \"hashes\": {\n    \"//a:b\": \"t~d\"\n  },\n  \"metadata\": {\"moduleGraphJson\": "
      "\"{\\\"key\\\": \\\"<root>\\\", \\\"dependencies\\\": [{\\\"key\\\": \\\"a@1\\\"}]}\"}\n}\n",
      "{\"hashes\": {}, \"metadata\": {}}",
      "{\"hashes\": {\"//a:b\": \"t~d\"}, \"metadata\": null}",
      "{\"hashes\": {\"//a:b\": \"t~d\"}, \"metadata\": {\"moduleGraphJson\": null, \"x\": [1, {\"y\": \"]}\"}]}}",
      // Valid JSON in shapes the scan leaves to ParseHashFile.
      "\t{ \"//b:x\" : \"1~1\" ,\r\n\"//a:y\":\"2~2\" }  ",            // unsorted, odd whitespace
      "{\"//b:x\": \"1~1\", \"//a:y\": \"2~2\", \"//b:x\": \"3~3\"}",  // a repeated label: the last wins
      "{\"//a:b\": \"no hash\", \"//a:b\": \"1~1\"}",                  // ... so its bad first value is no error
      "{\"//a:\\\"q\\\"\": \"t~d\", \"//a:\\u0041\": \"t\\u007ed\"}",  // escapes
      "{\"//a:\xc3\xa9\": \"t~d\"}",                                   // UTF-8
      "\xef\xbb\xbf{\"//a:b\": \"t~d\"}",                              // a byte-order mark
      "{\"metadata\": {\"moduleGraphJson\": \"g\"}, \"hashes\": {\"//a:b\": \"t~d\"}}",  // metadata first
      "{\"hashes\": \"t~d\"}",                        // plain shape, one label that happens to be "hashes"
      "{\"metadata\": \"t~d\", \"//a:b\": \"t~d\"}",  // ... or "metadata"
      // Errors: each must read the same, word for word.
      "",
      "[1, 2]",
      "{\"//a:b\": \"1~1\",",
      "{\"//a:b\": \"1~1\"} x",
      "{\"//a:b\": \"T2\"}",
      "{\"//a:b\": \"t~d\", \"//a:c\": \"x#y#t~d\"}",
      "{\"//a:b\": \"t~d~e\"}",
      "{\"//a:b\": 3}",
      "{\"//a:b\": \"t~d\", \"//a:c\": {\"x\": \"y\"}}",
      "{\"//a:\xff\": \"t~d\"}",   // not UTF-8
      "{\"//a:b\": \"t\x01~d\"}",  // a raw control character
      "{\"hashes\": {\"//a:b\": \"t~d\"}, \"metadata\": 3}",
      "{\"hashes\": [], \"metadata\": {}}",
      "{\"hashes\": {\"//a:b\": \"bad\"}, \"metadata\": {}}",
      "{\"hashes\": {}, \"metadata\": {\"moduleGraphJson\": 7}}",
      "{\"hashes\": {}, \"metadata\": {\"moduleGraphJson\": tru}}",
      "{\"hashes\": {}, \"metadata\": {\"moduleGraphJson\": \"g\\\"}}",
      "{\"hashes\": {}, \"metadata\": {}, \"extra\": 1}",
  };
  for (const std::string& text : texts) {
    EXPECT_EQ(ReadFlat(text), ReadWithDom(text)) << "text: " << text;
  }
  // The judge does tell these apart (so the comparisons above can fail).
  EXPECT_EQ(ReadWithDom("{\"//a:b\": \"T2\"}").error,
            "h.json: the hash of //a:b is 'T2', not '[Type#]<hash>~<direct hash>' as generate-hashes writes it");
  EXPECT_EQ(ReadWithDom("{\"//b:x\": \"1~1\", \"//a:y\": \"2~2\", \"//b:x\": \"3~3\"}").hashes,
            (HashEntries{{"//a:y", "2~2"}, {"//b:x", "3~3"}}));
}

TEST(FlatHashFile, ImpactedTargetsAreTheSameFromEitherReader) {
  std::string start =
      "{\"//a:x\": \"Rule#1~1\", \"//a:y\": \"Rule#2~2\", \"//gone:z\": \"Rule#3~3\", "
      "\"//s:f.cc\": \"SourceFile#4~4\"}";
  std::string final_text =
      "{\"//a:x\": \"Rule#1~1\", \"//a:y\": \"Rule#9~2\", \"//b:new\": \"Rule#5~5\", "
      "\"//s:f.cc\": \"SourceFile#8~8\"}";
  FlatHashesFile flat_start = ParseFlatHashFile(start, "s"), flat_final = ParseFlatHashFile(final_text, "f");
  HashEntries dom_start = ParseHashesJson(start, "s"), dom_final = ParseHashesJson(final_text, "f");
  std::vector<std::string> expected = {"//s:f.cc", "//a:y", "//b:new"};
  EXPECT_EQ(ImpactedLabels(dom_start, dom_final), expected);
  EXPECT_EQ(ImpactedLabels(flat_start.hashes, flat_final.hashes), expected);

  DepEdgeMap edges = {{"//a:y", {"//b:new"}}};
  std::vector<std::string> dom_warnings, flat_warnings;
  auto dom = ImpactedWithDistances(dom_start, dom_final, edges, {}, &dom_warnings);
  auto flat = ImpactedWithDistances(flat_start.hashes, flat_final.hashes, edges, {}, &flat_warnings);
  ASSERT_EQ(flat.size(), dom.size());
  for (std::size_t i = 0; i < dom.size(); ++i) {
    EXPECT_EQ(flat[i].label, dom[i].label);
    EXPECT_EQ(flat[i].target_distance, dom[i].target_distance);
    EXPECT_EQ(flat[i].package_distance, dom[i].package_distance);
  }
  EXPECT_EQ(dom[1].target_distance, 1);  // //a:y: only its transitive hash changed, via //b:new
  EXPECT_EQ(flat_warnings, dom_warnings);
}

}  // namespace
}  // namespace pe::refdiff
