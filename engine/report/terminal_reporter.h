// The report printed at the end of `perfengine run`: a table of workloads, the failures
// with their stderr tails, the failing-gate lines and a one-line summary.
#pragma once

#include <ostream>

#include "engine/model/result.h"
#include "engine/report/reporter.h"

namespace pe::report {

// `color` adds ANSI colours; callers decide it from isatty() and NO_COLOR.
void WriteTerminalReport(const model::RunResult& result, std::ostream& out, bool color);

class TerminalReporter final : public Reporter {
 public:
  std::string Render(const model::RunResult& result, const RenderOptions& options) const override;
};

}  // namespace pe::report
