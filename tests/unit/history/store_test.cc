#include "engine/history/store.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "engine/history/trend.h"
#include "engine/model/json.h"
#include "engine/model/threshold_table.h"

namespace pe::history {

using model::Check;
using model::Comparison;
using model::ContenderSummary;
using model::RunResult;
using model::Sample;
using model::WorkloadResult;
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "perfengine-history-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

RunResult MakeRun(const std::string& started_at, double speedup) {
  RunResult r;
  r.engine_version = "0.1.0";
  r.spec_path = "specs/x.toml";
  r.spec_digest = "abc";
  r.started_at = started_at;
  r.machine.hostname = "ci-1";
  r.baseline = "baseline";
  r.candidate = "candidate";
  r.contenders = {{"baseline", "", {"b"}, {}, "", ""}, {"candidate", "", {"c"}, {}, "", ""}};
  r.complete = true;
  WorkloadResult w;
  w.name = "work";
  // The samples the figures are computed from (Series never reads the figures table).
  for (int round = 0; round < 6; ++round) {
    for (const auto& [contender, wall] : {std::pair{"baseline", 0.2}, std::pair{"candidate", 0.2 / speedup}}) {
      Sample s;
      s.contender = contender;
      s.round = round;
      s.warmup = round == 0;
      s.wall_s = wall;
      w.samples.push_back(s);
    }
  }
  ContenderSummary b, c;
  b.contender = "baseline";
  b.median_wall_s = 0.2;
  c.contender = "candidate";
  c.median_wall_s = 0.2 / speedup;
  c.instructions = 1000;
  w.summaries = {b, c};
  Comparison cmp;
  cmp.speedup = speedup;
  cmp.win_rate = 1;
  w.comparison = cmp;
  r.workloads.push_back(w);
  Check check;
  check.workload = "work";
  check.threshold = "min_speedup";
  check.measured = speedup;
  check.bar = 1;
  check.passed = speedup >= 1;
  r.verdict.checks.push_back(check);
  return r;
}

// Runs SQL on the file directly, as an older perfengine or another tool would.
void Sql(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

std::int64_t Count(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  std::int64_t n = -1;
  if (sqlite3_step(stmt) == SQLITE_ROW) n = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

TEST(HistoryStoreTest, RecordsEveryFigureAndReadsTheSeriesBackInOrder) {
  TempDir dir;
  const fs::path db = dir.path() / "sub" / "history.sqlite";
  Store store(db);
  EXPECT_EQ(store.SchemaVersion(), kSchemaVersion);
  store.Record(MakeRun("2026-12-02T00:00:00Z", 1.5), "/specs/x.toml", "c2");
  store.Record(MakeRun("2026-12-01T00:00:00Z", 1.4), "/specs/x.toml", "c1");  // recorded late, sorted by start
  store.Record(MakeRun("2026-12-01T00:00:00Z", 9), "/specs/other.toml", "c9");
  EXPECT_EQ(store.CountRuns("/specs/x.toml"), 2);
  const auto series = store.Series("/specs/x.toml");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].workload, "work");
  std::vector<std::string> names;
  for (const auto& [name, points] : series[0].figures) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"speedup", "win_rate", "median_round_speedup", "baseline.median_wall_s",
                                             "baseline.median_cpu_s", "baseline.median_max_rss_kib",
                                             "candidate.median_wall_s", "candidate.median_cpu_s",
                                             "candidate.median_max_rss_kib", "candidate.instructions"}));
  const auto& speedup = series[0].figures[0].second;
  ASSERT_EQ(speedup.size(), 2u);
  EXPECT_EQ(speedup[0].commit, "c1");
  EXPECT_DOUBLE_EQ(speedup[0].value, 1.4);
  EXPECT_DOUBLE_EQ(speedup[1].value, 1.5);
  EXPECT_EQ(speedup[1].hostname, "ci-1");
  // The gate's figure (min_speedup reads the median per-round ratio) is traced too.
  ASSERT_EQ(series[0].figures[2].first, "median_round_speedup");
  EXPECT_DOUBLE_EQ(series[0].figures[2].second[1].value, 1.5);
  EXPECT_FALSE(series[0].startup);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM checks WHERE passed = 1"), 3);
  // The whole results file is kept: nothing measured is lost to the figures table.
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs WHERE results LIKE '%\"format\": \"perfengine-results/1\"%'"), 3);
}

// Issue 43: history listed the comparison's figures by hand. Every threshold's figure, set in a
// run's comparison, is recorded under its figure's name, and trend names it in the threshold's
// direction (not as one contender's own figure).
TEST(HistoryStoreTest, EveryThresholdRowsFigureIsRecordedAndNamedInItsDirection) {
  TempDir dir;
  const fs::path db = dir.path() / "history.sqlite";
  RunResult run = MakeRun("2026-12-02T00:00:00Z", 1.5);
  Comparison c;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    if (row.point != nullptr) c.*row.point = 1.1;
    if (row.sequence != nullptr) c.*row.sequence = model::Interval{1.1, 1.0, 1.2, 0.95, "test"};
  }
  run.workloads.at(0).comparison = c;
  Store(db).Record(run, "/specs/x.toml", "c1");
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    SCOPED_TRACE(std::string(row.key));
    const model::FigureRow* figure = model::FigureOf(row);
    ASSERT_NE(figure, nullptr);
    EXPECT_EQ(
        Count(db, "SELECT count(*) FROM figures WHERE contender = '' AND name = '" + std::string(figure->name) + "'"),
        1);
    const FigureInfo info = DescribeFigure(std::string(figure->name));
    EXPECT_EQ(info.higher_is_better, row.higher_is_better);
    EXPECT_EQ(info.description, figure->meaning);
  }
}

// Issue 42, item 6: history's default is the figures the recorded gates checked, so Series says
// which thresholds each run's results file checked on each workload, and in how many runs. A
// skipped check judged nothing, and a third contender's check is not the candidate's figure.
TEST(HistoryStoreTest, TheSeriesSaysWhichThresholdsTheRecordedRunsChecked) {
  TempDir dir;
  const fs::path db = dir.path() / "history.sqlite";
  Store store(db);
  RunResult first = MakeRun("2026-12-01T00:00:00Z", 1.5);
  Check slowdown = first.verdict.checks[0];
  slowdown.threshold = "max_slowdown";
  Check skipped = slowdown;
  skipped.threshold = "max_instructions_ratio";
  skipped.skipped = true;
  Check third = slowdown;
  third.threshold = "max_rss_ratio";
  third.contender = "other";
  first.verdict.checks = {slowdown, slowdown, skipped, third};  // twice in one run counts once
  store.Record(first, "/specs/x.toml", "c1");
  store.Record(MakeRun("2026-12-02T00:00:00Z", 1.5), "/specs/x.toml", "c2");  // checks min_speedup
  const auto series = store.Series("/specs/x.toml");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].runs, 2);
  EXPECT_EQ(series[0].checked, (std::vector<std::pair<std::string, int>>{{"max_slowdown", 1}, {"min_speedup", 1}}));
}

// A history database is data: a figure edited in the figures table, or stored in a run's results
// file against its own samples, does not reach the trend.
TEST(HistoryStoreTest, TheTrendIsComputedFromEachRunsSamples) {
  TempDir dir;
  const fs::path db = dir.path() / "history.sqlite";
  Store store(db);
  RunResult claimed = MakeRun("2026-12-01T00:00:00Z", 1.5);
  claimed.workloads[0].comparison->speedup = 3.0;  // what the file claims; its samples say 1.5
  store.Record(claimed, "/specs/x.toml", "c1");
  store.Record(MakeRun("2026-12-02T00:00:00Z", 1.2), "/specs/x.toml", "c2");
  Sql(db, "UPDATE figures SET value = 9 WHERE name = 'speedup' AND run_id = 2");
  const auto series = store.Series("/specs/x.toml");
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].figures[0].first, "speedup");
  const auto& speedup = series[0].figures[0].second;
  ASSERT_EQ(speedup.size(), 2u);
  EXPECT_DOUBLE_EQ(speedup[0].value, 1.5);
  EXPECT_DOUBLE_EQ(speedup[1].value, 1.2);
}

TEST(HistoryStoreTest, ARunWhoseResultsCannotBeReadIsNamed) {
  TempDir dir;
  const fs::path db = dir.path() / "history.sqlite";
  Store store(db);
  store.Record(MakeRun("2026-12-01T00:00:00Z", 1.5), "/specs/x.toml", "c1");
  Sql(db, "UPDATE runs SET results = '{}'");
  try {
    store.Series("/specs/x.toml");
    FAIL() << "read";
  } catch (const HistoryError& e) {
    EXPECT_EQ(std::string(e.what()), db.string() + ": run 1: not a perfengine results file: missing field \"format\"");
  }
}

TEST(HistoryStoreTest, AVersionOneDatabaseIsMigratedWithItsRunsKept) {
  TempDir dir;
  const fs::path db = dir.path() / "history.sqlite";
  {
    Store v1(db, 1);
    EXPECT_EQ(v1.SchemaVersion(), 1);
  }
  EXPECT_EQ(Count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'checks'"), 0);
  // A run as version 1 wrote it.
  Sql(db,
      "INSERT INTO runs (recorded_at, started_at, spec_key, spec_path, spec_digest, engine_version, commit_id, "
      "hostname, os, cpu, cores, memory_kib, baseline, candidate, exit, complete, results) VALUES "
      "('t', '2026-11-30T00:00:00Z', '/specs/x.toml', 'specs/x.toml', 'abc', '0.1.0', 'c0', 'old-host', '', '', 2, 0, "
      "'baseline', 'candidate', 'pass', 1, '" +
          model::ToJsonText(MakeRun("2026-11-30T00:00:00Z", 1.25)) +
          "');"
          "INSERT INTO figures VALUES (1, 'work', '', 'speedup', 1.25);");
  Store current(db);
  EXPECT_EQ(current.SchemaVersion(), 2);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs WHERE shard = ''"), 1);
  current.Record(MakeRun("2026-12-01T00:00:00Z", 1.5), "/specs/x.toml", "c1");
  const auto series = current.Series("/specs/x.toml");
  ASSERT_EQ(series.size(), 1u);
  const auto& speedup = series[0].figures[0].second;
  ASSERT_EQ(speedup.size(), 2u);
  EXPECT_EQ(speedup[0].hostname, "old-host");
  EXPECT_DOUBLE_EQ(speedup[0].value, 1.25);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM schema_version"), 1);
  // Opening again changes nothing.
  Store again(db);
  EXPECT_EQ(again.CountRuns("/specs/x.toml"), 2);
}

TEST(HistoryStoreTest, ADatabaseFromANewerPerfengineIsRefusedUntouched) {
  TempDir dir;
  const fs::path db = dir.path() / "history.sqlite";
  { Store store(db); }
  Sql(db, "UPDATE schema_version SET version = 9");
  try {
    Store store(db);
    FAIL() << "opened";
  } catch (const HistoryError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        db.string() +
            ": schema version 9 is newer than this perfengine's 2: record with a newer perfengine or another file");
  }
  EXPECT_EQ(Count(db, "SELECT version FROM schema_version"), 9);
}

TEST(HistoryStoreTest, ConcurrentWritersFromSeveralProcessesLoseNothing) {
  TempDir dir;
  const fs::path db = dir.path() / "history.sqlite";
  constexpr int kWriters = 6, kRuns = 15;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Every child opens (and so may create and migrate) the file at the same moment.
      int status = 0;
      try {
        Store store(db);
        for (int i = 0; i < kRuns; ++i) store.Record(MakeRun("2026-12-01T00:00:00Z", 1 + w + i / 100.0), "/s", "c");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        status = 1;
      }
      ::_exit(status);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs"), kWriters * kRuns);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM figures WHERE name = 'speedup'"), kWriters * kRuns);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM schema_version"), 1);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"), 1);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
}

// The lock once went beside the symlink, so two spellings of one database took two locks.
TEST(HistoryStoreTest, TheOpenLockIsBesideTheRealDatabaseNotASymlinkToIt) {
  TempDir dir;
  fs::create_directories(dir.path() / "real");
  fs::create_directories(dir.path() / "links");
  fs::create_symlink("../real/history.sqlite", dir.path() / "links" / "history.sqlite");
  {
    Store store(dir.path() / "links" / "history.sqlite");
    store.Record(MakeRun("2026-01-01T00:00:00Z", 1.0), "spec", "c1");
  }
  EXPECT_TRUE(fs::is_regular_file(dir.path() / "real" / "history.sqlite"));
  EXPECT_TRUE(fs::exists(dir.path() / "real" / "history.sqlite.open-lock"));
  EXPECT_FALSE(fs::exists(dir.path() / "links" / "history.sqlite.open-lock"));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir.path() / "links" / "history.sqlite")));
}

TEST(HistoryStoreTest, ReadingCreatesNothingAndRefusesAFileThatIsNoHistory) {
  TempDir dir;
  const fs::path missing = dir.path() / "sub" / "history.sqlite";
  try {
    Store store(missing, Store::ReadOnly{});
    FAIL() << "opened a database that does not exist";
  } catch (const HistoryError& e) {
    EXPECT_EQ(std::string(e.what()), missing.string() + ": cannot open: unable to open database file");
  }
  EXPECT_FALSE(fs::exists(dir.path() / "sub"));
  const fs::path empty = dir.path() / "empty.sqlite";
  { std::ofstream touch(empty); }
  try {
    Store store(empty, Store::ReadOnly{});
    FAIL() << "read an empty file as a database";
  } catch (const HistoryError& e) {
    EXPECT_EQ(std::string(e.what()),
              empty.string() + ": not a perfengine history database (perfengine run SPEC --record writes one)");
  }
  EXPECT_EQ(fs::file_size(empty), 0u);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"empty.sqlite"});
}

// Runs `body` in a child process, which may unshare its mounts or drop its privileges without
// touching the test's own, and returns what it returned ("skip: why" when it could not set up).
std::string InChild(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return "skip: pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    try {
      out = body();
    } catch (const std::exception& e) {
      out = std::string("exception: ") + e.what();
    }
    for (std::size_t done = 0; done < out.size();) {
      const ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

// What recording into `db` and then reading it says, one line each.
std::string RecordThenRead(const fs::path& db) {
  std::string out;
  try {
    Store store(db);
    store.Record(MakeRun("2026-01-03T00:00:00Z", 1.0), "spec", "c3");
    out += "recorded\n";
  } catch (const HistoryError& e) {
    out += std::string(e.what()) + "\n";
  }
  try {
    Store store(db, Store::ReadOnly{});
    out += "read " + std::to_string(store.CountRuns("spec")) + " runs\n";
  } catch (const HistoryError& e) {
    out += std::string(e.what()) + "\n";
  }
  return out;
}

std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Opening a FIFO blocks until something writes into it: `history --history FIFO` hung. (In a
// child with an alarm, so a hang fails the test instead of stopping the suite.)
TEST(HistoryStoreTest, AFifoIsRefusedAtOnceForReadingAndForRecording) {
  TempDir dir;
  const fs::path fifo = dir.path() / "history.sqlite";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string out = InChild([&] {
    ::alarm(10);
    std::string said;
    try {
      Store store(fifo, Store::ReadOnly{});
      said += "read\n";
    } catch (const HistoryError& e) {
      said += std::string(e.what()) + "\n";
    }
    try {
      Store store(fifo);
      said += "recorded\n";
    } catch (const HistoryError& e) {
      said += std::string(e.what()) + "\n";
    }
    return said;
  });
  const std::string refused =
      fifo.string() + ": is a FIFO, not a regular file; give the path of a history database file\n";
  EXPECT_EQ(out, refused + refused);
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"history.sqlite"});
}

// A refused database once kept the `.open-lock` file made for it.
TEST(HistoryStoreTest, ARefusedDatabaseLeavesNothingBesideIt) {
  TempDir dir;
  const fs::path foreign = dir.path() / "foreign.sqlite";
  std::ofstream(foreign) << "not a database, but long enough for SQLite to read a header from it: "
                         << std::string(200, 'x') << "\n";
  EXPECT_THROW(Store{foreign}, HistoryError);
  const fs::path newer = dir.path() / "newer.sqlite";
  { Store store(newer); }
  fs::remove(dir.path() / "newer.sqlite.open-lock");
  Sql(newer, "UPDATE schema_version SET version = 9");
  EXPECT_THROW(Store{newer}, HistoryError);
  EXPECT_EQ(Names(dir.path()), (std::vector<std::string>{"foreign.sqlite", "newer.sqlite"}));
  // A lock file that was there before is someone else's: it stays.
  std::ofstream(dir.path() / "newer.sqlite.open-lock");
  EXPECT_THROW(Store{newer}, HistoryError);
  EXPECT_TRUE(fs::exists(dir.path() / "newer.sqlite.open-lock"));
}

// A database on a read-only mount failed as "unable to open database file", for recording and
// for reading alike. Root ignores file modes but not a read-only mount, so the test makes one
// (a private mount namespace in a child, nothing the test's own process sees).
TEST(HistoryStoreTest, ARecordOnAReadOnlyMountSaysSoAndReadingItStillWorks) {
  TempDir dir;
  const fs::path mount = dir.path() / "ro";
  fs::create_directories(mount);
  const fs::path db = mount / "history.sqlite";
  {
    Store store(db);
    store.Record(MakeRun("2026-01-01T00:00:00Z", 1.0), "spec", "c1");
  }
  fs::remove(mount / "history.sqlite.open-lock");
  const std::vector<std::string> before = Names(mount);
  const std::string out = InChild([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) return std::string("skip: unshare(CLONE_NEWNS): ") + std::strerror(errno);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount(mount.c_str(), mount.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
        ::mount(nullptr, mount.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) != 0) {
      return std::string("skip: a read-only bind mount: ") + std::strerror(errno);
    }
    return RecordThenRead(db) + RecordThenRead(mount / "new.sqlite");
  });
  if (out.starts_with("skip: ")) GTEST_SKIP() << "cannot make a read-only mount here: " << out.substr(6);
  const std::string why = std::strerror(EROFS);
  EXPECT_EQ(out, db.string() + ": is read-only (" + why +
                     "); recording needs a history database it can write (give another with --history)\n"
                     "read 1 runs\n" +
                     (mount / "new.sqlite").string() + ": its folder " + mount.string() + " is read-only (" + why +
                     "); recording needs a folder it can write, for the database and its -wal and -shm files (give "
                     "another with --history)\n" +
                     (mount / "new.sqlite").string() + ": cannot open: unable to open database file\n");
  EXPECT_EQ(Names(mount), before);
}

// A file its user may not write (as another user than its owner, since root may write anyway).
TEST(HistoryStoreTest, ARecordIntoAReadOnlyFileSaysSoAndReadingItStillWorks) {
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::all);  // anyone may make files here: only the database is read-only
  const fs::path db = dir.path() / "history.sqlite";
  {
    Store store(db);
    store.Record(MakeRun("2026-01-01T00:00:00Z", 1.0), "spec", "c1");
  }
  fs::remove(dir.path() / "history.sqlite.open-lock");
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::string out = InChild([&]() -> std::string {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      return std::string("skip: setuid(65534): ") + std::strerror(errno);
    }
    return RecordThenRead(db);
  });
  if (out.starts_with("skip: ")) GTEST_SKIP() << "cannot run as a user the file is read-only to: " << out.substr(6);
  EXPECT_EQ(out, db.string() + ": is read-only (" + std::strerror(EACCES) +
                     "); recording needs a history database it can write (give another with --history)\n"
                     "read 1 runs\n");
  EXPECT_FALSE(fs::exists(dir.path() / "history.sqlite.open-lock"));
}

TEST(HistoryStoreTest, ReadingAnOlderSchemaLeavesItUnmigrated) {
  TempDir dir;
  const fs::path db = dir.path() / "h.sqlite";
  { Store store(db, 1); }
  {
    Store store(db, Store::ReadOnly{});
    EXPECT_EQ(store.SchemaVersion(), 1);
    EXPECT_EQ(store.CountRuns("spec"), 0);
    EXPECT_TRUE(store.Series("spec").empty());
  }
  EXPECT_EQ(Count(db, "SELECT version FROM schema_version"), 1);
}

TEST(HistoryStoreTest, DefaultPathFollowsTheEnvironment) {
  setenv("PERFENGINE_HISTORY", "/x/h.sqlite", 1);
  EXPECT_EQ(DefaultPath(), fs::path("/x/h.sqlite"));
  unsetenv("PERFENGINE_HISTORY");
  setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(DefaultPath(), fs::path("/data/perfengine/history.sqlite"));
  unsetenv("XDG_DATA_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultPath(), fs::path("/home/u/.local/share/perfengine/history.sqlite"));
}

}  // namespace
}  // namespace pe::history
