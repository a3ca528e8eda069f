#include "engine/spec/env_expand.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace pe::spec {

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

namespace {
bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool ValidVariableName(std::string_view name) {
  if (name.empty() || !IsNameStart(name[0])) return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}
}  // namespace

std::string ExpandEnvironment(std::string_view value, const EnvLookup& lookup) {
  std::string out;
  std::size_t i = 0;
  while (i < value.size()) {
    if (value[i] != '$' || i + 1 >= value.size() || value[i + 1] != '{') {
      // `$NAME` looks like a shell variable but is not one here: taken literally, it would name
      // a folder that does not exist and fail later with a message that hides why.
      if (value[i] == '$' && i + 1 < value.size() && IsNameStart(value[i + 1])) {
        std::size_t end = i + 2;
        while (end < value.size() && IsNameChar(value[end])) ++end;
        const std::string_view name = value.substr(i + 1, end - i - 1);
        throw std::invalid_argument(fmt::format("${} is not expanded (only ${{NAME}} is): write ${{{}}}", name, name));
      }
      out += value[i++];
      continue;
    }
    const std::size_t close = value.find('}', i + 2);
    if (close == std::string_view::npos) {
      throw std::invalid_argument(fmt::format("'${{' at offset {} is not closed: write ${{NAME}}", i));
    }
    const std::string name(value.substr(i + 2, close - i - 2));
    if (!ValidVariableName(name)) {
      throw std::invalid_argument(fmt::format(
          "'${{{}}}' is not an environment variable name (letters, digits and '_', not first a digit)", name));
    }
    const std::optional<std::string> found = lookup(name);
    if (!found || found->empty()) {
      throw std::invalid_argument(
          fmt::format("${{{}}} is {}: set it to the path, e.g. {}=/path/to/checkout perfengine ...", name,
                      found ? "empty" : "not set", name));
    }
    out += *found;
    i = close + 1;
  }
  return out;
}

}  // namespace pe::spec
