// `perfengine report RESULTS.json` end to end: the Markdown and CSV of a saved run are, byte for
// byte, what `run` wrote; its flags are the reporter registry's; bad input is one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

fs::path WriteReportSpec(const TempDir& dir) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 7\nwarmup_rounds = 1\nbootstrap_resamples = 500\n\n"
                      << "[contenders.baseline]\nargv = [\"" STUB_CONTENDER "\", \"--sleep-ms\", \"30\"]\n\n"
                      << "[contenders.candidate]\nargv = [\"" STUB_CONTENDER "\"]\n\n"
                      << "[workloads.work]\nargs = [\"--sleep-ms\", \"2\", \"--print\", \"same\"]\n\n"
                      << "[thresholds]\nmin_speedup = 1.0\n";
  return spec;
}

TEST(ReportE2E, MarkdownAndCsvOfASavedRunAreWhatRunWrote) {
  TempDir dir;
  const fs::path json = dir.path() / "results.json";
  const fs::path run_md = dir.path() / "run.md";
  const fs::path run_csv = dir.path() / "run.csv";
  const Finished run = RunPerfengine({"run", WriteReportSpec(dir).string(), "--quiet", "--json", json.string(),
                                      "--markdown", run_md.string(), "--csv", run_csv.string()},
                                     dir.path());
  // Whatever the verdict (a loaded machine can leave a check unresolved), the files are written.
  ASSERT_LE(run.exit, 1) << run.out << run.err;

  const fs::path md = dir.path() / "report.md";
  const fs::path csv = dir.path() / "report.csv";
  const Finished report =
      RunPerfengine({"report", json.string(), "--markdown", md.string(), "--csv", csv.string()}, dir.path());
  ASSERT_EQ(report.exit, 0) << report.err;
  EXPECT_EQ(report.out, "");  // files asked for: no table unless --terminal
  EXPECT_EQ(report.err, "");
  EXPECT_EQ(ReadAll(md), ReadAll(run_md));
  EXPECT_EQ(ReadAll(csv), ReadAll(run_csv));

  // "-" is standard output; the terminal table is the default and is run's table.
  const Finished to_stdout = RunPerfengine({"report", json.string(), "--markdown", "-"}, dir.path());
  EXPECT_EQ(to_stdout.exit, 0) << to_stdout.err;
  EXPECT_EQ(to_stdout.out, ReadAll(run_md));
  const Finished table = RunPerfengine({"report", json.string()}, dir.path());
  EXPECT_EQ(table.exit, 0) << table.err;
  EXPECT_EQ(table.out, run.out);
}

TEST(ReportE2E, EveryFileFormatOfTheRegistryIsAFlagOfRunMergeAndReport) {
  TempDir dir;
  // report::Formats()' file formats, as the registry test pins them.
  for (const std::string command : {"run", "merge", "report"}) {
    const Finished help = RunPerfengine({command, "--help"}, dir.path());
    ASSERT_EQ(help.exit, 0) << help.err;
    for (const std::string flag : {"--json TEXT", "--markdown TEXT", "--html TEXT", "--csv TEXT"}) {
      EXPECT_NE(help.out.find(flag), std::string::npos) << command << " " << flag << "\n" << help.out;
    }
  }
}

TEST(ReportE2E, BadInputIsOneLineAndExitTwo) {
  TempDir dir;
  const fs::path missing = dir.path() / "missing.json";
  Finished f = RunPerfengine({"report", missing.string(), "--markdown", "-"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.out, "");
  EXPECT_EQ(f.err, "perfengine: " + missing.string() + ": cannot read: No such file or directory\n");

  const fs::path text = dir.path() / "text.json";
  std::ofstream(text) << "not json\n";
  f = RunPerfengine({"report", text.string(), "--csv", "-"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err.rfind("perfengine: " + text.string() + ": not valid JSON: ", 0), 0u) << f.err;
  EXPECT_EQ(std::count(f.err.begin(), f.err.end(), '\n'), 1);

  const std::string saved = std::string(RESULTS_DATA) + "/pass.json";
  f = RunPerfengine({"report", saved, "--markdown", "-", "--terminal"}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err,
            "perfengine: --markdown - and --terminal both write to standard output; give one of them a file path\n");
  f = RunPerfengine({"report", saved, "--json", saved}, dir.path());
  EXPECT_EQ(f.exit, 2);
  EXPECT_EQ(f.err, "perfengine: --json " + saved + " is the results file; writing the report there would replace it\n");
}

}  // namespace
}  // namespace pe::e2e
