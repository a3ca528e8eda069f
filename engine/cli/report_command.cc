// `perfengine report RESULTS.json`: a saved run rendered again, through the reporters `run`
// uses (engine/report/reporter.h), so a results file kept from CI can become a Markdown comment,
// an HTML page or a CSV afterwards. A results file is data: the figures and the verdict shown
// are the samples' (explain::Rejudged, as explain and compare judge), never the file's claims.
#include <fmt/format.h>

#include <iostream>
#include <vector>

#include "engine/cli/cli_options.h"
#include "engine/cli/commands.h"
#include "engine/cli/output_paths.h"
#include "engine/cli/subcommands.h"
#include "engine/explain/rejudge.h"
#include "engine/model/atomic_file.h"
#include "engine/model/json.h"
#include "engine/report/reporter.h"
#include "engine/spec/spec_error.h"

namespace pe::cli {

using model::ExitCode;
using model::RunResult;

namespace {

constexpr std::string_view kStdout = "-";

// What goes to standard output: the formats given "-", and the terminal table when asked for
// or when nothing else was. More than one would interleave; that is refused.
std::vector<const report::Format*> StdoutFormats(const ReportFlags& flags) {
  std::vector<const report::Format*> out;
  std::vector<std::string> named;
  bool any_file = false;
  for (const report::Format& f : report::Formats()) {
    if (f.destination == report::Destination::kStdout) continue;
    const std::string path = PathFor(flags.reports, f.name);
    if (path == kStdout) {
      out.push_back(&f);
      named.push_back(fmt::format("{} -", f.flag));
    }
    any_file = any_file || !path.empty();
  }
  if (flags.terminal || !any_file) {
    for (const report::Format& f : report::Formats()) {
      if (f.destination == report::Destination::kStdout) out.push_back(&f);
    }
    if (flags.terminal) named.push_back("--terminal");
  }
  if (named.size() > 1) {
    throw spec::UsageError(
        fmt::format("{} and {} both write to standard output; give one of them a file path", named[0], named[1]));
  }
  return out;
}

}  // namespace

ExitCode ReportCommand(const ReportFlags& flags, bool color) {
  const std::vector<const report::Format*> to_stdout = StdoutFormats(flags);
  std::vector<OutputPath> files;
  for (OutputPath& o : ReportOutputs(flags.reports)) {
    if (o.path != kStdout) files.push_back(std::move(o));
  }
  CheckOutputPaths(flags.results, files, "the results file");
  const RunResult result = explain::Rejudged(model::ReadResultsFile(flags.results));
  for (const report::Format& f : report::Formats()) {
    if (f.destination != report::Destination::kFile) continue;
    const std::string path = PathFor(flags.reports, f.name);
    if (!path.empty() && path != kStdout) model::WriteFileAtomically(path, f.reporter->Render(result, {}));
  }
  for (const report::Format* f : to_stdout) std::cout << f->reporter->Render(result, {color});
  return ExitCode::kPass;
}

Subcommand AddReport(CLI::App& app) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* report = app.add_subcommand(
      "report", "Render a saved results file as run would: Markdown, HTML, CSV, JSON or the terminal table");
  report->add_option("results", flags->results, "A results file written by run --json or merge --json")->required();
  AddReportOptions(report, flags->reports);
  report->add_flag("--terminal", flags->terminal,
                   "Print the terminal table (the default when no file is asked for); FILE '-' is standard output");
  return {report, [=] { return static_cast<int>(ReportCommand(*flags, UseColor())); }};
}

}  // namespace pe::cli
