// Plain-text tables for explain and compare: columns padded to their widest cell.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pe::explain {

// `rows[0]` is the heading. `align` has one letter per column, 'l' or 'r'; a missing letter
// means 'r'. Each line starts with `indent`; trailing spaces are dropped, so a left-aligned
// last column is never padded. Cells must be one line (the caller makes them so).
std::string FormatTable(const std::vector<std::vector<std::string>>& rows, std::string_view align,
                        std::string_view indent = "  ");

}  // namespace pe::explain
