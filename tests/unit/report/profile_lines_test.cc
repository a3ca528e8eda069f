// "Where the extra time went": how each kind of profile entry reads (engine/report/details.h).
#include <gtest/gtest.h>

#include "engine/model/result.h"
#include "engine/report/details.h"

namespace pe::report {
namespace {

TEST(ProfileLines, NamesTheOwnFunctionThenTheCountedCallsThenTheSelfTable) {
  model::RunResult result;
  model::WorkloadResult w;
  w.name = "parse_api_1k";
  w.profile_note = "callgrind";
  w.profile.push_back({"json_parse_any", 9000, 12000, 0.3, 0.35, "inclusive", "parser.so",
                       "of which rb_str_dup (libruby.so.3.1) +2,980 (called at parser.c:892)"});
  w.profile.push_back({"Hash#transform_keys", 0, 2200, 0, 0, "calls", "", ""});
  w.profile.push_back({"rb_str_dup", 0, 980, 0, 0.01});
  result.workloads.push_back(w);
  const std::vector<std::string> lines = ProfileLines(result);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "parse_api_1k: where the extra time went (callgrind):");
  EXPECT_EQ(lines[1],
            "  json_parse_any (parser.so): +3000 instructions inclusive (9000 -> 12000), of which rb_str_dup "
            "(libruby.so.3.1) +2,980 (called at parser.c:892)");
  EXPECT_EQ(lines[2], "  Hash#transform_keys: 0 -> 2200 calls (counted by the contender)");
  EXPECT_EQ(lines[3].substr(0, 38), "  rb_str_dup: 0 -> 980 instructions (+");
}

}  // namespace
}  // namespace pe::report
