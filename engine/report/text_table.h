// Plain-text tables: columns padded to their widest cell. The one formatter behind the terminal
// report's workload table, the sweep tables and explain's and compare's tables.
//
// Widths are display columns counted as UTF-8 code points (every character the reports print
// is one column wide), so a cell such as "12 µs" lines up with ASCII ones.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pe::report {

using TableRows = std::vector<std::vector<std::string>>;

// A cell with no value, and the space between two columns.
inline constexpr std::string_view kNothing = "-";
inline constexpr std::string_view kColumnGap = "  ";

// The display width of `text`: its UTF-8 code points (continuation bytes not counted).
std::size_t DisplayWidth(std::string_view text);

// Each cell padded with spaces to its column's width, left- or right-aligned by `align`: one
// letter per column, 'l' or 'r', a missing letter meaning 'r'. A left-aligned last column is not
// padded (nothing follows it). Rows may have fewer cells than others; cells must be one line.
TableRows PaddedCells(const TableRows& rows, std::string_view align);

// The rows of PaddedCells, each line `indent` then its cells joined by `gap`, trailing spaces
// dropped, ending in "\n". `rows[0]` is usually the heading; it is not treated specially.
std::string FormatTable(const TableRows& rows, std::string_view align, std::string_view indent = "",
                        std::string_view gap = kColumnGap);

}  // namespace pe::report
