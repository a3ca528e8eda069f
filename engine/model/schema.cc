#include "engine/model/schema.h"

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "engine/model/fields.h"

namespace pe::model {
namespace {

using json = nlohmann::json;
using fields::Tag;

using fields::IsOptional;
using fields::IsVector;
using fields::kUnsupported;

template <typename T>
json SchemaOf();

template <typename Struct>
json ObjectSchema() {
  json properties = json::object();
  json required = json::array();
  std::apply(
      [&](const auto&... field) {
        auto add = [&](const auto& f) {
          using Member = std::decay_t<decltype(std::declval<Struct>().*(f.member))>;
          if constexpr (IsOptional<Member>::value) {
            properties[std::string(f.name)] = SchemaOf<typename Member::value_type>();
          } else {
            properties[std::string(f.name)] = SchemaOf<Member>();
            // A field added later may be missing from older files; the writer always writes it.
            if (f.required) required.push_back(std::string(f.name));
          }
        };
        (add(field), ...);
      },
      fields::FieldsOf(Tag<Struct>{}));
  return {{"type", "object"}, {"properties", properties}, {"required", required}, {"additionalProperties", false}};
}

template <typename T>
json SchemaOf() {
  if constexpr (std::is_same_v<T, std::string>) {
    return {{"type", "string"}};
  } else if constexpr (std::is_same_v<T, bool>) {
    return {{"type", "boolean"}};
  } else if constexpr (std::is_floating_point_v<T>) {
    // Non-finite values are written as strings (JSON has no NaN).
    return {{"anyOf", json::array({{{"type", "number"}}, {{"enum", {"NaN", "Infinity", "-Infinity"}}}})}};
  } else if constexpr (std::is_integral_v<T>) {
    json s = {{"type", "integer"}};
    if constexpr (std::is_unsigned_v<T>) s["minimum"] = 0;
    return s;
  } else if constexpr (fields::NamedEnum<T>) {
    json names = json::array();
    for (const auto& entry : fields::NamesOf(Tag<T>{})) names.push_back(std::string(entry.name));
    return {{"enum", names}};
  } else if constexpr (IsVector<T>::value) {
    return {{"type", "array"}, {"items", SchemaOf<typename T::value_type>()}};
  } else if constexpr (fields::Described<T>) {
    return ObjectSchema<T>();
  } else {
    static_assert(kUnsupported<T>, "add this type to SchemaOf() in schema.cc");
  }
}

}  // namespace

nlohmann::json ResultsSchema() {
  json schema = ObjectSchema<RunResult>();
  schema["properties"][std::string(fields::kFormatKey)] = {{"const", std::string(fields::kFormat)}};
  schema["required"].push_back(std::string(fields::kFormatKey));
  json out = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"$id", "https://perfengine.invalid/results.schema.json"},
              {"title", "perfengine results file (perfengine-results/1)"},
              {"description",
               "Written by perfengine run --json and merge --json; docs/results-format.md describes each field."}};
  out.update(schema);
  return out;
}

}  // namespace pe::model
