// The committed docs/results.schema.json is what the field tables say the writer writes.
#include "engine/model/schema.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>

#include "engine/model/json.h"
#include "tests/unit/model/full_result.h"

namespace pe::model {
namespace {

TEST(ResultsSchema, TheCommittedFileIsTheGeneratedOne) {
  std::ifstream in(PERFENGINE_RESULTS_SCHEMA);
  ASSERT_TRUE(in) << PERFENGINE_RESULTS_SCHEMA;
  const nlohmann::json committed = nlohmann::json::parse(in);
  EXPECT_EQ(committed, ResultsSchema())
      << "docs/results.schema.json is stale: build/bin/perfengine-results-schema > docs/results.schema.json";
}

TEST(ResultsSchema, NamesEveryFieldTheWriterWrites) {
  // Every key of a fully populated result appears in the schema at the same place.
  const nlohmann::json schema = ResultsSchema();
  std::function<void(const nlohmann::json&, const nlohmann::json&, const std::string&)> walk =
      [&](const nlohmann::json& value, const nlohmann::json& s, const std::string& path) {
        if (value.is_object()) {
          ASSERT_TRUE(s.contains("properties")) << path;
          for (const auto& [key, child] : value.items()) {
            ASSERT_TRUE(s["properties"].contains(key)) << "the schema lacks " << path << "/" << key;
            walk(child, s["properties"][key], path + "/" + key);
          }
        } else if (value.is_array()) {
          for (const auto& child : value) walk(child, s["items"], path + "/*");
        }
      };
  walk(ToJson(testing::FullResult()), schema, "");
  EXPECT_EQ(schema["properties"]["format"]["const"], "perfengine-results/1");
  EXPECT_EQ(schema["additionalProperties"], false);
}

TEST(ResultsSchema, TheFormatDocumentNamesEveryField) {
  std::ifstream in(PERFENGINE_RESULTS_FORMAT_DOC);
  ASSERT_TRUE(in) << PERFENGINE_RESULTS_FORMAT_DOC;
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& s,
                                                                            const std::string& path) {
    if (s.contains("items")) walk(s["items"], path + "[]");
    if (!s.contains("properties")) return;
    for (const auto& [key, child] : s["properties"].items()) {
      EXPECT_NE(doc.find("`" + key + "`"), std::string::npos)
          << "docs/results-format.md does not name `" << key << "` (" << path << "." << key << ")";
      walk(child, path + "." + key);
    }
  };
  walk(ResultsSchema(), "");
}

}  // namespace
}  // namespace pe::model
