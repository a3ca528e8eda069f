// Lines a contender writes for the engine to read (counters, profiles: docs/counters.md):
// split into fields and quoted in an error, the same way for every such file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pe::measure {

// The line's whitespace-separated fields (spaces, tabs, a stray CR).
std::vector<std::string_view> LineFields(std::string_view line);

// The line as an error quotes it: cut at 120 bytes, so a contender that wrote a megabyte on one
// line gets a readable error, with control characters (and DEL) shown as '?'.
std::string QuoteLine(std::string_view line);

}  // namespace pe::measure
