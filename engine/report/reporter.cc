#include "engine/report/reporter.h"

#include <array>
#include <sstream>

#include "engine/model/json.h"
#include "engine/report/csv_reporter.h"
#include "engine/report/html_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "engine/report/terminal_reporter.h"

namespace pe::report {

using model::RunResult;

namespace {

// The results file: the model written out, so explain, compare, merge and report read it back.
class JsonReporter final : public Reporter {
 public:
  std::string Render(const RunResult& result, const RenderOptions&) const override { return model::ToJsonText(result); }
};

class HtmlReporter final : public Reporter {
 public:
  std::string Render(const RunResult& result, const RenderOptions&) const override { return HtmlReport(result); }
};

class CsvReporter final : public Reporter {
 public:
  std::string Render(const RunResult& result, const RenderOptions&) const override { return CsvReport(result); }
};

class MarkdownReporter final : public Reporter {
 public:
  std::string Render(const RunResult& result, const RenderOptions&) const override { return MarkdownReport(result); }
};

class TerminalReporter final : public Reporter {
 public:
  std::string Render(const RunResult& result, const RenderOptions& options) const override {
    std::ostringstream out;
    WriteTerminalReport(result, out, options.color);
    return out.str();
  }
};

const JsonReporter kJson;
const HtmlReporter kHtml;
const CsvReporter kCsv;
const MarkdownReporter kMarkdown;
const TerminalReporter kTerminal;

// The one list, in --help's order. Help texts are `run --help`'s.
const std::array<Format, 5> kFormats = {{
    {"json", "--json", ".json", "Write the full results file here (atomically)", Destination::kFile, false, &kJson},
    {"markdown", "--markdown", ".md", "Write a Markdown report here, for a pull-request comment", Destination::kFile,
     true, &kMarkdown},
    {"html", "--html", ".html", "Write a self-contained HTML report with charts here", Destination::kFile, false,
     &kHtml},
    {"csv", "--csv", ".csv", "Write the figures as CSV here: one row per workload and contender", Destination::kFile,
     false, &kCsv},
    {"terminal", "", "", "", Destination::kStdout, false, &kTerminal},
}};

}  // namespace

std::span<const Format> Formats() { return kFormats; }

const Format* FindFormat(std::string_view name) {
  for (const Format& f : kFormats) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace pe::report
