#include "engine/run/normalise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace pe::run {

namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

nlohmann::json ParseJson(const std::string& text, const char* normaliser) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("output is not valid JSON for the '{}' normaliser: {}", normaliser, e.what()));
  }
}

std::optional<std::string> LineDifference(const std::string& a, const std::string& b, const std::string& a_name,
                                          const std::string& b_name) {
  const auto la = SplitLines(a), lb = SplitLines(b);
  const size_t n = std::max(la.size(), lb.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string* x = i < la.size() ? &la[i] : nullptr;
    const std::string* y = i < lb.size() ? &lb[i] : nullptr;
    if (x && y && *x == *y) continue;
    return fmt::format("first difference at line {} of {} vs {}:\n  {}: {}\n  {}: {}", i + 1, la.size(), lb.size(),
                       a_name, x ? Shortened(*x) : "<no line>", b_name, y ? Shortened(*y) : "<no line>");
  }
  if (a != b) return fmt::format("outputs differ only in trailing whitespace or line endings");
  return std::nullopt;
}

std::optional<std::string> MapDifference(const std::string& a, const std::string& b, const std::string& a_name,
                                         const std::string& b_name) {
  const auto ja = nlohmann::json::parse(a), jb = nlohmann::json::parse(b);
  std::vector<std::string> lines;
  constexpr size_t kShown = 5;
  size_t differing = 0;
  for (auto it = ja.begin(); it != ja.end(); ++it) {
    auto other = jb.find(it.key());
    if (other == jb.end()) {
      if (++differing <= kShown)
        lines.push_back(fmt::format("  key {} only in {}", nlohmann::json(it.key()).dump(), a_name));
    } else if (*other != it.value()) {
      if (++differing <= kShown) {
        lines.push_back(fmt::format("  key {}: {} has {}, {} has {}", nlohmann::json(it.key()).dump(), a_name,
                                    Shortened(it.value().dump()), b_name, Shortened(other->dump())));
      }
    }
  }
  for (auto it = jb.begin(); it != jb.end(); ++it) {
    if (!ja.contains(it.key()) && ++differing <= kShown) {
      lines.push_back(fmt::format("  key {} only in {}", nlohmann::json(it.key()).dump(), b_name));
    }
  }
  if (differing == 0) return std::nullopt;
  std::string out = fmt::format("{} of {} keys differ", differing, std::max(ja.size(), jb.size()));
  for (const auto& l : lines) out += "\n" + l;
  if (differing > kShown) out += fmt::format("\n  ... and {} more", differing - kShown);
  return out;
}

// Arrays in a canonical order, recursively, for outputs whose lists are sets.
void SortLists(nlohmann::json& json) {
  if (json.is_array()) {
    for (auto& element : json) SortLists(element);
    std::sort(json.begin(), json.end());
  } else if (json.is_object()) {
    for (auto& [key, value] : json.items()) SortLists(value);
  }
}

// One spelling per JSON number: 842.0, 8.42e2 and 842 are the same number (RFC 8259 has one
// number type), so a float with an integral value that an int64 holds exactly is written as
// that integer; -0.0 becomes 0.
void CanonicalNumbers(nlohmann::json& json) {
  if (json.is_array() || json.is_object()) {
    for (auto& element : json) CanonicalNumbers(element);
  } else if (json.is_number_float()) {
    const double value = json.get<double>();
    constexpr double kLimit = 9007199254740992.0;  // 2^53: every integer below is exact
    if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) <= kLimit) {
      json = static_cast<std::int64_t>(value);
    }
  } else if (json.is_number_unsigned() && json.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) {
    json = static_cast<std::int64_t>(json.get<std::uint64_t>());
  }
}

}  // namespace

std::string Normalise(const std::string& output, spec::Normaliser normaliser, bool sort_lists) {
  switch (normaliser) {
    case spec::Normaliser::kExact:
    case spec::Normaliser::kNone:
      return output;
    case spec::Normaliser::kSortedLines: {
      auto lines = SplitLines(output);
      std::sort(lines.begin(), lines.end());
      std::string out;
      for (const auto& l : lines) out += l + "\n";
      return out;
    }
    case spec::Normaliser::kJson:
      // nlohmann's default object type is ordered by key: dump() is canonical.
      {
        auto json = ParseJson(output, "json");
        CanonicalNumbers(json);
        if (sort_lists) SortLists(json);
        return json.dump(1) + "\n";
      }
    case spec::Normaliser::kJsonMap: {
      auto json = ParseJson(output, "json-map");
      if (!json.is_object())
        throw std::runtime_error("output is not a JSON object, as the 'json-map' normaliser expects");
      CanonicalNumbers(json);
      if (sort_lists) SortLists(json);
      return json.dump(1) + "\n";
    }
  }
  return output;
}

std::optional<std::string> FirstDifference(const std::string& baseline, const std::string& other,
                                           spec::Normaliser normaliser, const std::string& baseline_name,
                                           const std::string& other_name) {
  if (baseline == other) return std::nullopt;
  if (normaliser == spec::Normaliser::kJsonMap) return MapDifference(baseline, other, baseline_name, other_name);
  return LineDifference(baseline, other, baseline_name, other_name);
}

std::string Shortened(const std::string& s) {
  constexpr size_t kMax = 160;
  return s.size() <= kMax ? s : s.substr(0, kMax) + "...";
}

}  // namespace pe::run
