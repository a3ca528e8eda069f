#include "generators/params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/base/suggest.h"

namespace pe::gen {
namespace {

const char* TypeName(const ParamValue& value) {
  switch (value.index()) {
    case 0:
      return "an integer";
    case 1:
      return "a float";
    case 2:
      return "a boolean";
    case 3:
      return "a string";
    default:
      return "an array";
  }
}

}  // namespace

const ParamValue* ParamReader::Find(std::string_view key) {
  known_.emplace(key);
  auto it = params_.find(std::string(key));
  return it == params_.end() ? nullptr : &it->second;
}

std::int64_t ParamReader::Int(std::string_view key, std::int64_t def, std::int64_t min, std::int64_t max) {
  const ParamValue* value = Find(key);
  if (value == nullptr) return def;
  const auto* number = std::get_if<std::int64_t>(value);
  if (number == nullptr) {
    throw ParamError(std::string(key), fmt::format("'{}' must be an integer, not {}", key, TypeName(*value)));
  }
  if (*number < min || *number > max) {
    throw ParamError(std::string(key), fmt::format("'{}' must be in [{}, {}], got {}", key, min, max, *number));
  }
  return *number;
}

double ParamReader::Double(std::string_view key, double def, double min, double max) {
  const ParamValue* value = Find(key);
  if (value == nullptr) return def;
  double number = 0;
  if (const auto* d = std::get_if<double>(value)) {
    number = *d;
  } else if (const auto* i = std::get_if<std::int64_t>(value)) {
    number = static_cast<double>(*i);
  } else {
    throw ParamError(std::string(key), fmt::format("'{}' must be a number, not {}", key, TypeName(*value)));
  }
  if (!(number >= min && number <= max)) {  // also rejects NaN
    throw ParamError(std::string(key), fmt::format("'{}' must be in [{}, {}], got {}", key, min, max, number));
  }
  return number;
}

bool ParamReader::Bool(std::string_view key, bool def) {
  const ParamValue* value = Find(key);
  if (value == nullptr) return def;
  const auto* flag = std::get_if<bool>(value);
  if (flag == nullptr) {
    throw ParamError(std::string(key), fmt::format("'{}' must be true or false, not {}", key, TypeName(*value)));
  }
  return *flag;
}

std::string ParamReader::String(std::string_view key, std::string def) {
  const ParamValue* value = Find(key);
  if (value == nullptr) return def;
  const auto* text = std::get_if<std::string>(value);
  if (text == nullptr) {
    throw ParamError(std::string(key), fmt::format("'{}' must be a string, not {}", key, TypeName(*value)));
  }
  return *text;
}

void ParamReader::Finish() const {
  for (const auto& [key, value] : params_) {
    if (known_.count(key) != 0) continue;
    throw ParamError(key, fmt::format("unknown parameter '{}' for generator '{}'{}", key, generator_,
                                      base::DidYouMean(key, std::vector<std::string>(known_.begin(), known_.end()))));
  }
}

std::int64_t Scaled(std::int64_t count, double scale) {
  return std::max<std::int64_t>(0, std::llround(static_cast<double>(count) * scale));
}

}  // namespace pe::gen
