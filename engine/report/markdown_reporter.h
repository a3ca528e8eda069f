// The report as GitHub Markdown, ready for a pull-request comment: the workload table,
// the failing lines, the failures with their stderr in code blocks, and a collapsed
// details section. Every piece of text from a contender or the spec is escaped.
#pragma once

#include <string>

#include "engine/model/result.h"
#include "engine/report/reporter.h"

namespace pe::report {

std::string MarkdownReport(const model::RunResult& result);

class MarkdownReporter final : public Reporter {
 public:
  std::string Render(const model::RunResult& result, const RenderOptions&) const override {
    return MarkdownReport(result);
  }
};

}  // namespace pe::report
