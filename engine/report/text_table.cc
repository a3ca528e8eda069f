#include "engine/report/text_table.h"

#include <algorithm>

namespace pe::report {

std::size_t DisplayWidth(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

TableRows PaddedCells(const TableRows& rows, std::string_view align) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  TableRows padded;
  padded.reserve(rows.size());
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    cells.reserve(row.size());
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool left = c < align.size() && align[c] == 'l';
      const bool last = c + 1 == widths.size();
      if (left && last) {
        cells.push_back(row[c]);
        continue;
      }
      const std::string padding(widths[c] - DisplayWidth(row[c]), ' ');
      cells.push_back(left ? row[c] + padding : padding + row[c]);
    }
    padded.push_back(std::move(cells));
  }
  return padded;
}

std::string FormatTable(const TableRows& rows, std::string_view align, std::string_view indent, std::string_view gap) {
  std::string out;
  for (const auto& row : PaddedCells(rows, align)) {
    std::string line(indent);
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += gap;
      line += row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace pe::report
