#include "engine/report/reporter.h"

#include <array>
#include <stdexcept>

#include "engine/model/atomic_file.h"
#include "engine/report/csv_reporter.h"
#include "engine/report/html_reporter.h"
#include "engine/report/json_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "engine/report/terminal_reporter.h"

namespace pe::report {

namespace {

// One instance of each reporter (each in its own *_reporter.cc, as google/benchmark's).
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

std::string Render(std::string_view name, const model::RunResult& result, const RenderOptions& options) {
  const Format* format = FindFormat(name);
  if (format == nullptr) throw std::logic_error("no report format '" + std::string(name) + "'");
  return format->reporter->Render(result, options);
}

void WriteReport(std::string_view name, const model::RunResult& result, const std::filesystem::path& path) {
  model::WriteFileAtomically(path, Render(name, result));
}

}  // namespace pe::report
