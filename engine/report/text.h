// Making text that came from a contender or a spec safe to print.
#pragma once

#include <string>
#include <string_view>

namespace pe::report {

// Replaces control characters other than newline and tab with '?', and "\r\n" with "\n",
// so a contender's stderr cannot move the cursor or recolour the terminal; so too C1 controls
// and the Unicode bidirectional controls (U+202E reverses the text after it).
std::string Printable(std::string_view text);

// Printable, with newlines and tabs turned into spaces too: for one table cell or line.
std::string OneLine(std::string_view text);

// Each line of `text` prefixed with `indent`; a trailing newline does not make an empty line.
std::string Indented(std::string_view text, std::string_view indent);

}  // namespace pe::report
