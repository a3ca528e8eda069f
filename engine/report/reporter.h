// One interface for every output format, and the one table the command line reads them from
// (google/benchmark's BenchmarkReporter, hyperfine's Exporter). A format is one class that
// renders a RunResult to text plus one row of Formats(): `run`, `merge` and `report` take
// their flags, help, write order and destination from that row; nothing else names a format.
//
// The sweep tables are not a format of their own: they are a section of the terminal and
// Markdown reports (sweep_report.h) and of the HTML page.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/model/result.h"

namespace pe::report {

struct RenderOptions {
  bool color = false;  // ANSI colours; only the terminal format uses them
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  // The whole output for `result`, deterministic: the same result, the same bytes.
  virtual std::string Render(const model::RunResult& result, const RenderOptions& options) const = 0;
};

enum class Destination {
  kStdout,  // always printed to standard output (the terminal table); has no flag
  kFile,    // written atomically to the path its flag names
};

struct Format {
  std::string_view name;       // "markdown"
  std::string_view flag;       // "--markdown"; "" for kStdout formats
  std::string_view extension;  // ".md"; "" for kStdout formats
  std::string_view help;       // the flag's --help text
  Destination destination = Destination::kFile;
  // Written after every other file, from the result with the files that could not be written
  // added to its verdict lines, so the report says what is missing (the Markdown comment).
  bool names_unwritten_files = false;
  const Reporter* reporter = nullptr;
};

// Every format, in --help's order. Files are written in this order, those that name unwritten
// files after the others; the stdout formats are printed last.
std::span<const Format> Formats();

// The format called `name`, or nullptr.
const Format* FindFormat(std::string_view name);

// What the format called `name` renders for `result`, for a caller that wants one format by
// name (bisect's step results and terminal table); throws std::logic_error for a name that is
// no row of Formats().
std::string Render(std::string_view name, const model::RunResult& result, const RenderOptions& options = {});

// Render written atomically to `path` (model::WriteFileAtomically): throws std::runtime_error
// naming the path when it cannot be written, and an existing file is then left as it was.
void WriteReport(std::string_view name, const model::RunResult& result, const std::filesystem::path& path);

}  // namespace pe::report
