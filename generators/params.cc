#include "generators/params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

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
    std::string message = fmt::format("unknown parameter '{}' for generator '{}'", key, generator_);
    if (std::string guess = ClosestMatch(key, known_); !guess.empty()) {
      message += fmt::format(" (did you mean '{}'?)", guess);
    }
    throw ParamError(key, message);
  }
}

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string ClosestMatch(std::string_view word, const std::set<std::string, std::less<>>& candidates) {
  // ninja's rule of thumb: a suggestion is plausible within about a third of the word's length.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::int64_t Scaled(std::int64_t count, double scale) {
  return std::max<std::int64_t>(0, std::llround(static_cast<double>(count) * scale));
}

}  // namespace pe::gen
