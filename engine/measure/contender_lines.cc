#include "engine/measure/contender_lines.h"

#include <fmt/format.h>

namespace pe::measure {

std::vector<std::string_view> LineFields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::string QuoteLine(std::string_view line) {
  constexpr std::size_t kQuoteLimit = 120;
  std::string text(line.substr(0, kQuoteLimit));
  for (char& c : text) {
    if ((static_cast<unsigned char>(c) < ' ' && c != '\t') || c == '\x7f') c = '?';
  }
  return fmt::format("'{}'{}", text, line.size() > kQuoteLimit ? "..." : "");
}

}  // namespace pe::measure
