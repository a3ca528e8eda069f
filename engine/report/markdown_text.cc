#include "engine/report/markdown_text.h"

#include <algorithm>

#include "engine/report/text.h"

namespace pe::report {
namespace {

// Emphasis, code, links and images (their '[' is enough: "(" and "!" mean nothing
// without it), HTML and entities, headings, tables, strikethrough, math, and the escape
// character itself. '.', '-', '+' and digits only mean something at the start of a line,
// which escaped text never is.
constexpr std::string_view kMarkup = "\\`*_[]<>#|~$&";

}  // namespace

std::string EscapeMarkdown(std::string_view text) {
  std::string line = OneLine(text);
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    if (kMarkup.find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string FencedBlock(std::string_view text) {
  std::string body = Printable(text);
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  if (!body.empty() && body.back() != '\n') body.push_back('\n');
  return fence + "\n" + body + fence + "\n";
}

}  // namespace pe::report
