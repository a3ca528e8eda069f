// The ```toml blocks of a Markdown page, with what the page says each one is. A block is a
// whole spec unless an HTML comment on the line just before its fence says otherwise:
//   <!-- fragment -->                  part of a spec, to be checked inside a minimal one
//   <!-- invalid: MESSAGE -->          a deliberate mistake, which must be refused with MESSAGE
//   <!-- fragment; invalid: MESSAGE --> both
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace pe::e2e {

struct TomlBlock {
  std::string page;  // as given, e.g. "docs/spec.md"
  int line = 0;      // of the opening fence, 1-based
  std::string text;  // the block's lines, each ending in '\n'
  bool fragment = false;
  bool invalid = false;
  std::string message;  // with invalid: the error validate must print
};

inline std::string Trim(std::string s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// Reads "<!-- fragment; invalid: MESSAGE -->" into `block`; false when `line` is no marker.
inline bool ReadMarker(const std::string& line, TomlBlock* block) {
  const std::string t = Trim(line);
  constexpr std::string_view kOpen = "<!--", kClose = "-->";
  if (t.rfind(kOpen, 0) != 0 || t.size() < kOpen.size() + kClose.size() ||
      t.compare(t.size() - kClose.size(), kClose.size(), kClose) != 0) {
    return false;
  }
  std::string inside = Trim(t.substr(kOpen.size(), t.size() - kOpen.size() - kClose.size()));
  if (inside.rfind("fragment", 0) == 0) {
    block->fragment = true;
    inside = Trim(inside.substr(std::string_view("fragment").size()));
    if (!inside.empty() && inside[0] == ';') inside = Trim(inside.substr(1));
  }
  if (inside.rfind("invalid:", 0) == 0) {
    block->invalid = true;
    block->message = Trim(inside.substr(std::string_view("invalid:").size()));
    inside.clear();
  }
  return inside.empty() && (block->fragment || block->invalid);
}

inline std::vector<TomlBlock> TomlBlocks(const std::string& page, const std::string& markdown) {
  std::vector<TomlBlock> blocks;
  std::istringstream in(markdown);
  std::string line, previous;
  int number = 0;
  bool in_other = false;  // inside another language's block, where a ```toml line is text
  while (std::getline(in, line)) {
    ++number;
    const std::string t = Trim(line);
    if (in_other) {
      in_other = t != "```";
    } else if (t == "```toml") {
      TomlBlock block;
      block.page = page;
      block.line = number;
      ReadMarker(previous, &block);
      while (std::getline(in, line) && Trim(line) != "```") {
        ++number;
        block.text += line + "\n";
      }
      ++number;
      blocks.push_back(block);
    } else if (t.rfind("```", 0) == 0) {
      in_other = true;
    }
    previous = line;
  }
  return blocks;
}

}  // namespace pe::e2e
