#include "engine/spec/placeholders.h"

#include <stdexcept>

namespace pe::spec {

const std::vector<std::string>& PlaceholderNames() {
  static const std::vector<std::string> names = {
      "fixture",    // the workload's fixture directory
      "out",        // a fresh output file path for this run
      "workdir",    // a fresh, empty scratch directory for this run
      "scale",      // the run's scale factor
      "seed",       // the run's seed
      "contender",  // the contender's name
      "spec_dir",   // the directory holding the spec file
  };
  return names;
}

namespace {

// Calls on_literal for literal text and on_name for each placeholder; returns "" or an error.
template <typename Literal, typename Name>
std::string Scan(std::string_view text, Literal on_literal, Name on_name) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      on_literal(c);
      ++i;
    } else if (c == '{') {
      const size_t close = text.find('}', i);
      if (close == std::string_view::npos) {
        return "unclosed '{' in '" + std::string(text) + "' (write '{{' for a literal brace)";
      }
      on_name(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '}') {
      return "unmatched '}' in '" + std::string(text) + "' (write '}}' for a literal brace)";
    } else {
      on_literal(c);
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> PlaceholdersIn(std::string_view text, std::string* error) {
  std::vector<std::string> names;
  *error = Scan(
      text, [](char) {}, [&](std::string_view name) { names.emplace_back(name); });
  return names;
}

std::string Expand(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  const std::string error = Scan(
      text, [&](char c) { out += c; },
      [&](std::string_view name) {
        auto it = values.find(std::string(name));
        if (it == values.end()) throw std::logic_error("placeholder {" + std::string(name) + "} has no value");
        out += it->second;
      });
  if (!error.empty()) throw std::logic_error(error);
  return out;
}

}  // namespace pe::spec
