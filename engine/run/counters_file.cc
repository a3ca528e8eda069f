#include "engine/run/counters_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/measure/contender_lines.h"

namespace pe::run {

namespace {

std::optional<double> Number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string Names(const std::vector<model::Counter>& declared) {
  std::vector<std::string> names;
  for (const model::Counter& c : declared) names.push_back(c.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::filesystem::path CountersFile(const std::filesystem::path& execution_dir) { return execution_dir / "counters"; }

std::optional<std::string> ParseCounterLines(std::string_view text, const std::vector<model::Counter>& declared,
                                             std::vector<model::CounterValue>& out) {
  std::map<std::string, std::pair<double, int>, std::less<>> seen;  // name -> value, line
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    const std::vector<std::string_view> fields = measure::LineFields(line);
    if (fields.empty()) continue;
    auto bad = [&](const std::string& why) {
      return fmt::format("line {} {}: {}", number, measure::QuoteLine(line), why);
    };
    if (fields.size() != 3) return bad("expected three fields, 'name value unit'");
    const std::string_view name = fields[0], value_text = fields[1], unit = fields[2];
    const auto counter =
        std::find_if(declared.begin(), declared.end(), [&](const model::Counter& c) { return c.name == name; });
    if (counter == declared.end()) {
      return bad(fmt::format("counter '{}' is not declared (the spec declares: {})", name, Names(declared)));
    }
    if (auto earlier = seen.find(name); earlier != seen.end()) {
      return bad(fmt::format("counter '{}' is reported twice (first on line {})", name, earlier->second.second));
    }
    const std::optional<double> value = Number(value_text);
    if (!value) return bad(fmt::format("'{}' is not a number", value_text));
    if (!std::isfinite(*value) || *value < 0) {
      return bad(fmt::format("'{}' must be a finite number at least 0", value_text));
    }
    if (unit != counter->unit) {
      return bad(fmt::format("unit '{}' is not the declared unit '{}' of counter '{}'", unit, counter->unit, name));
    }
    seen.emplace(std::string(name), std::make_pair(*value, number));
  }
  std::vector<model::CounterValue> values;
  for (const model::Counter& c : declared) {
    const auto found = seen.find(c.name);
    if (found == seen.end()) {
      return fmt::format("no line for counter '{}' (expected '{} VALUE {}')", c.name, c.name, c.unit);
    }
    values.push_back({c.name, found->second.first});
  }
  out = std::move(values);
  return std::nullopt;
}

std::optional<std::string> ReadCountersFile(const std::filesystem::path& file,
                                            const std::vector<model::Counter>& declared,
                                            std::vector<model::CounterValue>& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return fmt::format("wrote no counters file (${} = {}): {}", kCountersEnv, file.string(), std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (auto error = ParseCounterLines(text.str(), declared, out)) {
    return fmt::format("wrote a bad counters file (${}): {}", kCountersEnv, *error);
  }
  return std::nullopt;
}

}  // namespace pe::run
