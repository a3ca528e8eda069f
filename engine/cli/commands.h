// The subcommands, each from parsed options to an exit code.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/model/result.h"

namespace pe::cli {

struct CommonOptions {
  std::string spec;
  std::vector<std::string> contenders;  // NAME=PROGRAM
  std::vector<std::string> workloads;
  std::optional<double> scale;
  std::string cache_dir;
};

// Report file per format name of report::Formats() ("json", "markdown", ...); empty or absent:
// not written. The flags come from the registry (cli_options.h's AddReportOptions).
using ReportPaths = std::map<std::string, std::string, std::less<>>;

// The path given for `format`, or "".
std::string PathFor(const ReportPaths& paths, std::string_view format);

struct RunFlags {
  std::optional<int> rounds;
  std::optional<int> max_rounds;
  std::optional<int> warmup_rounds;
  ReportPaths reports;  // --json, --markdown, --html, --csv
  bool accept_regression = false;
  bool keep_measuring = false;  // --keep-measuring: rounds to max_rounds once a miss has fixed the exit code
  std::string unresolved;  // --unresolved=fail|pass|exit3; empty: $PERFENGINE_UNRESOLVED, else exit3
  bool skip_serve = false;
  std::optional<int> serve_requests;
  std::optional<int> serve_concurrency;
  std::string shard;               // --shard K/N
  bool record = false;             // --record: into the history database
  bool quiet = false;              // --quiet: no progress on stderr
  std::vector<std::string> quick;  // --quick 'CMD A' 'CMD B': run a throwaway init spec
  std::string parity;              // with --quick: the spec's parity (default exact)
  std::string history;             // --history PATH; empty: history::DefaultPath()
  std::vector<std::pair<std::string, std::string>> parameters;  // with --quick: -L NAME VALUES (parameter_lists.h)
};

// `perfengine explain RESULTS.json [--workload W]...` (engine/cli/explain_command.cc).
struct ExplainFlags {
  std::string results;
  std::vector<std::string> workloads;
};

// `perfengine compare OLD.json NEW.json [--allow-different-spec]`.
struct CompareFlags {
  std::string old_results;
  std::string new_results;
  bool allow_different_spec = false;
  std::string unresolved;  // as RunFlags::unresolved
};

// `perfengine merge SHARD.json... [--spec SPEC] [--json F] [--markdown F] [--html F] [--csv F]` (merge_command.cc).
struct MergeFlags {
  std::vector<std::string> files;
  std::string spec;     // non-empty: the shards' thresholds and gate flags must be this spec's
  ReportPaths reports;  // one flag per file format
  bool accept_regression = false;
  std::string unresolved;  // as RunFlags::unresolved
};

// `perfengine report RESULTS.json [--markdown F|-] [--html F|-] [--csv F|-] [--json F|-] [--terminal]`
// (report_command.cc).
struct ReportFlags {
  std::string results;
  ReportPaths reports;  // "-": to standard output
  bool terminal = false;
};

// Writes the files asked for (atomically, in report::Formats() order), then the terminal report
// to stdout. A file that cannot be written throws; the ones before it are written.
void WriteReports(const model::RunResult& result, const ReportPaths& files, bool color);

// What accepts a missed threshold: "--accept-regression" when `flag`, else
// "PERFENGINE_ACCEPT_REGRESSION" when that variable is 1, true, yes or on (any case), else "".
// Throws UsageError when the variable is set to anything but those or "", 0, false, no, off.
std::string AcceptedBy(bool flag);

// Applies --unresolved (`flag`), else PERFENGINE_UNRESOLVED, else exit3, to a verdict of exit 3
// (engine/gate/unresolved.h). Throws UsageError naming the variable when it holds anything but
// fail, pass, exit3 or nothing; call it once before the run too, so that is exit 2 up front.
void ApplyUnresolved(model::Verdict& verdict, const std::string& flag);

// `perfengine bisect SPEC --good REV --bad REV [--rounds N]` (bisect_command.cc).
struct BisectFlags {
  std::string good;
  std::string bad;
  std::optional<int> rounds;
};

// `perfengine bisect-step SPEC --good-commit C --state DIR`: what `git bisect run` calls.
struct BisectStepFlags {
  std::string good_commit;
  std::string state;
  std::optional<int> rounds;
};

// `perfengine history SPEC [--workload W]... [--figure F] [--history PATH] [--html FILE]`.
struct HistoryFlags {
  std::string spec;
  std::vector<std::string> workloads;
  std::string figure;
  std::string history;
  std::string html;  // --html FILE: the trends as charts
  bool startup_change_points = false;  // --startup-change-points
};

// `perfengine init 'CMD A' 'CMD B' [--out FILE] [--parity P] [--force]` (init_command.cc);
// also what `run --quick 'CMD A' 'CMD B'` builds its throwaway spec from.
struct InitFlags {
  std::vector<std::string> commands;
  std::string out = "perfengine.toml";
  std::string parity = "exact";
  bool force = false;
  std::vector<std::pair<std::string, std::string>> parameters;  // -L NAME VALUES (parameter_lists.h)
};

// The spec init writes for `flags`, checked as `validate` would check it (programs exist,
// start-up commands exit 0) as if it were at `out`. Throws UsageError or SpecError.
std::string CheckedInitSpec(const InitFlags& flags, const std::filesystem::path& out);

// run --quick: the spec in a temporary directory, removed with this object.
class QuickSpec {
 public:
  explicit QuickSpec(const InitFlags& flags);
  ~QuickSpec();
  QuickSpec(const QuickSpec&) = delete;
  QuickSpec& operator=(const QuickSpec&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path dir_, path_;
};

model::ExitCode InitCommand(const InitFlags& flags);

// Records a finished run in the history database (history_command.cc); throws on failure.
// Says where on stderr unless `quiet`.
void RecordRun(const model::RunResult& result, const std::string& spec, const std::string& history_flag, bool quiet);

// Before a run --record: opens (creating and migrating) the database as RecordRun will, so a
// path that cannot take the record fails before the first round. Throws UsageError naming it.
void CheckRecordable(const std::string& history_flag);

model::ExitCode RunCommand(const CommonOptions& common, const RunFlags& flags, bool color);
model::ExitCode ValidateCommand(const CommonOptions& common, bool strict = false);  // --strict: a warning is exit 2
model::ExitCode ListCommand(const CommonOptions& common);
model::ExitCode GenerateCommand(const CommonOptions& common, const std::string& out_dir);
model::ExitCode ExplainCommand(const ExplainFlags& flags);
model::ExitCode CompareCommand(const CompareFlags& flags);
model::ExitCode MergeCommand(const MergeFlags& flags, bool color);
model::ExitCode ReportCommand(const ReportFlags& flags, bool color);
model::ExitCode HistoryCommand(const HistoryFlags& flags);
model::ExitCode BisectCommand(const CommonOptions& common, const BisectFlags& flags);
// Returns the status git bisect run reads: 0 good, 1 bad, 125 skip, 128 stop.
int BisectStepCommand(const CommonOptions& common, const BisectStepFlags& flags);

}  // namespace pe::cli
