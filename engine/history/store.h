// A history of runs in SQLite (`perfengine run --record`, `perfengine history`): every run's
// spec, commit, machine and figures, so a trend can be drawn and its change points found.
// The schema, its versions and the default path are in docs/history.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/result.h"

struct sqlite3;

namespace pe::history {

// The database could not be opened, migrated, read or written; what() says which file and why.
class HistoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The schema this perfengine writes. Each version is a migration (store.cc) applied in order.
inline constexpr int kSchemaVersion = 2;

// $PERFENGINE_HISTORY if set, else $XDG_DATA_HOME/perfengine/history.sqlite, else
// ~/.local/share/perfengine/history.sqlite.
std::filesystem::path DefaultPath();

// One recorded run with one figure of one workload.
struct Point {
  std::int64_t run = 0;    // the run's id in the database
  std::string started_at;  // ISO 8601, UTC
  std::string commit;      // what was measured (see Store::Record)
  std::string hostname;
  std::string spec_digest;
  double value = 0;
};

// Every figure a run recorded for one workload, per figure name ("median_round_speedup", or
// "candidate.median_wall_s" for one contender's), oldest run first.
struct WorkloadSeries {
  std::string workload;
  std::vector<std::pair<std::string, std::vector<Point>>> figures;
  bool startup = false;  // the built-in startup workload
  int runs = 0;          // the recorded runs that have this workload
  // The thresholds the recorded runs' gates checked on this workload against the candidate
  // (the checks in each run's results file; skipped ones, which judged nothing, left out), each
  // with the number of runs that checked it, in the order first met.
  std::vector<std::pair<std::string, int>> checked;
};

class Store {
 public:
  // Opens or creates the database (and its folder), in WAL mode with a busy timeout so
  // several CI jobs can write at once, and migrates it up to `up_to` (tests ask for less).
  // A database from a newer perfengine is refused, never changed.
  explicit Store(const std::filesystem::path& path, int up_to = kSchemaVersion);
  // Opens an existing database only to read (`perfengine history`): nothing is created,
  // migrated or locked, so a read-only file or folder will do. An older schema is read as it
  // is; a file that is no history (an empty one) or from a newer perfengine is refused.
  struct ReadOnly {};
  Store(const std::filesystem::path& path, ReadOnly);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  int SchemaVersion();

  // Records a run and every figure it has; returns the run's id. `commit` names what was
  // measured: the candidate's commit when it was built from git, else the spec's checkout's
  // HEAD, else "". `spec_key` identifies the spec across edits (its absolute path).
  std::int64_t Record(const model::RunResult& result, const std::string& spec_key, const std::string& commit);

  // Number of runs recorded for a spec.
  int CountRuns(const std::string& spec_key);

  // The series of every workload of a spec (workloads in order of first appearance), oldest
  // run first. The figures are computed again from the samples of each run's results file,
  // never read from the figures table; a run whose results file cannot be read throws
  // HistoryError naming the database and the run ("history.sqlite: run 3: ...").
  std::vector<WorkloadSeries> Series(const std::string& spec_key);

 private:
  void Migrate(int up_to);
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

}  // namespace pe::history
