// The format registry (engine/report/reporter.h): every format renders every saved results file
// in tests/data/results, and the table itself is consistent (unique names, flags and extensions).
#include "engine/report/reporter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/model/json.h"
#include "engine/report/csv_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "engine/report/shards.h"

namespace pe::report {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> SavedResults() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(PE_RESULTS_DATA_DIR)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ReporterRegistry, EveryFormatRendersEverySavedResultsFile) {
  const auto files = SavedResults();
  ASSERT_GE(files.size(), 5u);  // pass, missed, failed, improved, regressed, ...
  for (const fs::path& file : files) {
    const model::RunResult result = model::ReadResultsFile(file.string());
    for (const Format& f : Formats()) {
      SCOPED_TRACE(file.filename().string() + " as " + std::string(f.name));
      ASSERT_NE(f.reporter, nullptr);
      std::string text;
      ASSERT_NO_THROW(text = f.reporter->Render(result, {}));
      EXPECT_FALSE(text.empty());
      // Deterministic: the same result, the same bytes.
      EXPECT_EQ(text, f.reporter->Render(result, {}));
    }
  }
}

TEST(ReporterRegistry, TheJsonFormatIsTheResultsFileAndReadsBack) {
  const Format* json = FindFormat("json");
  ASSERT_NE(json, nullptr);
  const model::RunResult result = model::ReadResultsFile((fs::path(PE_RESULTS_DATA_DIR) / "missed.json").string());
  const std::string text = json->reporter->Render(result, {});
  EXPECT_EQ(text, model::ToJsonText(result));
  EXPECT_EQ(model::ToJsonText(model::ParseResultsText(text, "rendered")), text);
}

TEST(ReporterRegistry, FormatsRenderWhatTheirOwnReporterFunctionsDo) {
  const model::RunResult result = model::ReadResultsFile((fs::path(PE_RESULTS_DATA_DIR) / "failed.json").string());
  EXPECT_EQ(FindFormat("markdown")->reporter->Render(result, {}), MarkdownReport(result));
  EXPECT_EQ(FindFormat("csv")->reporter->Render(result, {}), CsvReport(result));
  // Colour reaches the terminal format and only when asked for.
  const Format* terminal = FindFormat("terminal");
  ASSERT_NE(terminal, nullptr);
  EXPECT_EQ(terminal->reporter->Render(result, {}).find('\x1b'), std::string::npos);
  EXPECT_NE(terminal->reporter->Render(result, {.color = true}).find('\x1b'), std::string::npos);
}

TEST(ReporterRegistry, NamesFlagsAndExtensionsAreUniqueAndFilesHaveAFlag) {
  std::set<std::string_view> names, flags, extensions;
  int stdout_formats = 0;
  for (const Format& f : Formats()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_EQ(FindFormat(f.name), &f);
    if (f.destination == Destination::kStdout) {
      ++stdout_formats;
      EXPECT_EQ(f.flag, "") << f.name;
      continue;
    }
    EXPECT_EQ(f.flag, "--" + std::string(f.name));
    EXPECT_TRUE(flags.insert(f.flag).second) << f.flag;
    EXPECT_EQ(f.extension.substr(0, 1), ".") << f.name;
    EXPECT_TRUE(extensions.insert(f.extension).second) << f.extension;
    EXPECT_FALSE(f.help.empty()) << f.name;
  }
  EXPECT_EQ(stdout_formats, 1);
  EXPECT_EQ(FindFormat("sweep"), nullptr);  // a section of terminal, Markdown and HTML, not a format
}

// A count printed with its noun agrees with it: "1 of 1 workload ... 1 core", not "1 cores".
TEST(ShardLines, OneWorkloadAndOneCoreAreSingular) {
  model::RunResult r;
  model::ShardInfo s;
  s.index = 1;
  s.count = 2;
  s.selection = {"a"};
  s.workloads = {"a"};
  s.machine.hostname = "h";
  s.machine.os = "Linux";
  s.machine.cpu = "cpu";
  s.machine.cores = 1;
  s.started_at = "2026-12-06T00:00:00Z";
  r.shards = {s};
  EXPECT_EQ(ShardLines(r),
            std::vector<std::string>{
                "shard 1 of 2: 1 of 1 workload on h (Linux, cpu, 1 core), started 2026-12-06T00:00:00Z"});
}

}  // namespace
}  // namespace pe::report
