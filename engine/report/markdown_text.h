// Putting untrusted text (names, descriptions, messages, stderr) into GitHub Markdown
// without letting it add markup of its own.
#pragma once

#include <string>
#include <string_view>

namespace pe::report {

// One line of inert text: every character Markdown, GFM tables, HTML or math could read
// as markup is backslash-escaped (CommonMark lets any ASCII punctuation be escaped), and
// control characters, newlines and tabs become '?' or spaces, so the text can sit in a
// table cell or a list item.
std::string EscapeMarkdown(std::string_view text);

// `text` as a fenced code block: the fence is one backtick longer than the longest run of
// backticks inside (at least three), so nothing inside can close it. Ends with a newline.
std::string FencedBlock(std::string_view text);

}  // namespace pe::report
