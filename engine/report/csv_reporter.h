// `run --csv FILE`: one row per workload and contender, for a spreadsheet or a plotting script
// (hyperfine's --export-csv, with perfengine's figures). RFC 4180: a header row, fields quoted
// when they hold a comma, quote or line break, CRLF-free (\n line ends). Plain numbers in base
// units (seconds, KiB), never formatted for reading; an undefined figure is an empty field.
// Text from the spec that a spreadsheet would take for a formula is neutralised (OWASP).
#pragma once

#include <string>

#include "engine/model/result.h"
#include "engine/report/reporter.h"

namespace pe::report {

std::string CsvReport(const model::RunResult& result);

class CsvReporter final : public Reporter {
 public:
  std::string Render(const model::RunResult& result, const RenderOptions&) const override { return CsvReport(result); }
};

}  // namespace pe::report
