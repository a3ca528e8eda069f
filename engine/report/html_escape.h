// HTML escaping, the one place every page perfengine writes (the report, its charts, the
// history page) makes text from a contender, a spec or a results file inert.
#pragma once

#include <string>
#include <string_view>

namespace pe::report {

// Text made inert in HTML text and in quoted attribute values: & < > " ' become
// entities, control characters other than newline and tab become '?'.
std::string EscapeHtml(std::string_view text);

}  // namespace pe::report
