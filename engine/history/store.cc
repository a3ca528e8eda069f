#include "engine/history/store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "engine/analysis/analyze.h"
#include "engine/model/atomic_file.h"
#include "engine/model/json.h"
#include "engine/model/names.h"
#include "engine/model/threshold_table.h"

namespace pe::history {

using model::Check;
using model::Comparison;
using model::ContenderSummary;
using model::ExitCodeName;
using model::MachineInfo;
using model::RunResult;
using model::ToJsonText;
using model::WorkloadResult;

namespace fs = std::filesystem;

namespace {

// Each migration takes the schema from version i to i + 1 (index 0: from empty to 1). Never
// edit one that has shipped; append a new one and raise kSchemaVersion.
constexpr const char* kMigrations[] = {
    // 1: runs (the whole results file kept too) and one row per figure.
    R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  recorded_at TEXT NOT NULL,
  started_at TEXT NOT NULL,
  spec_key TEXT NOT NULL,
  spec_path TEXT NOT NULL,
  spec_digest TEXT NOT NULL,
  engine_version TEXT NOT NULL,
  commit_id TEXT NOT NULL,
  hostname TEXT NOT NULL,
  os TEXT NOT NULL,
  cpu TEXT NOT NULL,
  cores INTEGER NOT NULL,
  memory_kib INTEGER NOT NULL,
  baseline TEXT NOT NULL,
  candidate TEXT NOT NULL,
  exit TEXT NOT NULL,
  complete INTEGER NOT NULL,
  results TEXT NOT NULL
);
CREATE INDEX runs_by_spec ON runs (spec_key, started_at);
CREATE TABLE figures (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  workload TEXT NOT NULL,
  contender TEXT NOT NULL,
  name TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, workload, contender, name)
);
)sql",
    // 2: the gate's checks, and which shard of a split run a row came from.
    R"sql(
CREATE TABLE checks (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  workload TEXT NOT NULL,
  threshold TEXT NOT NULL,
  measured REAL NOT NULL,
  bar REAL NOT NULL,
  passed INTEGER NOT NULL,
  skipped INTEGER NOT NULL
);
ALTER TABLE runs ADD COLUMN shard TEXT NOT NULL DEFAULT '';
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

class Statement {
 public:
  Statement(sqlite3* db, const fs::path& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) Fail("preparing a statement");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& Bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Statement& Bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  // true while there is a row.
  bool Step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) Fail("running a statement");
    return false;
  }
  void Run() {
    Step();
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string Text(int i) {
    const auto* text = sqlite3_column_text(stmt_, i);
    return text == nullptr ? "" : reinterpret_cast<const char*>(text);
  }
  double Double(int i) { return sqlite3_column_double(stmt_, i); }
  std::int64_t Int(int i) { return sqlite3_column_int64(stmt_, i); }

 private:
  [[noreturn]] void Fail(const char* what) {
    throw HistoryError(fmt::format("{}: {}: {}", path_.string(), what, sqlite3_errmsg(db_)));
  }
  sqlite3* db_;
  const fs::path& path_;
  sqlite3_stmt* stmt_ = nullptr;
};

void Exec(sqlite3* db, const fs::path& path, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error ? error : sqlite3_errmsg(db);
    sqlite3_free(error);
    throw HistoryError(fmt::format("{}: {}", path.string(), message));
  }
}

// A write transaction taken at once (BEGIN IMMEDIATE), so two writers queue on the busy
// timeout instead of one failing at commit; rolled back unless committed.
class Transaction {
 public:
  Transaction(sqlite3* db, const fs::path& path) : db_(db), path_(path) { Exec(db_, path_, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void Commit() {
    Exec(db_, path_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  const fs::path& path_;
  bool done_ = false;
};

std::string NowIso8601() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec);
}

// The figures of one workload worth a trend: the comparison's ratios (contender "") and each
// contender's medians and counts.
std::vector<std::tuple<std::string, std::string, double>> FiguresOf(const WorkloadResult& w) {
  std::vector<std::tuple<std::string, std::string, double>> out;
  auto add = [&](const std::string& contender, std::string_view name, auto value) {
    if constexpr (requires { value.has_value(); }) {
      if (value) out.emplace_back(contender, std::string(name), static_cast<double>(*value));
    } else {
      out.emplace_back(contender, std::string(name), static_cast<double>(value));
    }
  };
  if (w.comparison) {
    // The comparison's figures (engine/model/threshold_table.h, kFigureRows): every figure a
    // check reads, and the descriptive ratios beside them.
    for (const model::FigureRow& figure : model::kFigureRows) {
      add("", figure.name, figure.read(*w.comparison));
    }
  }
  for (const ContenderSummary& s : w.summaries) {
    add(s.contender, "median_wall_s", s.median_wall_s);
    add(s.contender, "median_cpu_s", s.median_cpu_s);
    add(s.contender, "median_max_rss_kib", s.median_max_rss_kib);
    add(s.contender, "instructions", s.instructions);
    add(s.contender, "own_instructions", s.own_instructions);
    add(s.contender, "allocation_calls", s.allocation_calls);
    if (s.serve) add(s.contender, "p99_s", s.serve->p99_s);
  }
  return out;
}

}  // namespace

fs::path DefaultPath() {
  if (const char* path = std::getenv("PERFENGINE_HISTORY"); path != nullptr && *path != '\0') return path;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data != nullptr && *data != '\0') {
    return fs::path(data) / "perfengine" / "history.sqlite";
  }
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr ? home : ".") / ".local" / "share" / "perfengine" / "history.sqlite";
}

namespace {

// Held while a process opens the file: switching a new file to WAL can fail with "database is
// locked" without waiting on the busy handler while another process does the same (1 run in 60
// of six writers opening one new file at once). flock on a file beside the database, never on
// the database itself: closing any descriptor of it would drop SQLite's own POSIX locks.
class OpenLock {
 public:
  // `db` with symlinks followed: every spelling of one database takes the same lock.
  explicit OpenLock(const fs::path& db) : path_(db.string() + ".open-lock") {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created_ = fd_ >= 0;
    if (fd_ < 0 && errno == EEXIST) fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);  // without it opening is as before: racy, not broken
  }
  ~OpenLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  OpenLock(const OpenLock&) = delete;
  OpenLock& operator=(const OpenLock&) = delete;
  // A refused database keeps nothing beside it: the lock file goes if this process made it. (A
  // process that opened it meanwhile then locks a removed file, and may open alongside one that
  // makes a new one: racy as without the lock, and only for a file that is being refused.)
  void Remove() const {
    if (created_) ::unlink(path_.c_str());
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool created_ = false;
};

const char* KindOf(mode_t mode) {
  return S_ISFIFO(mode)   ? "a FIFO"
         : S_ISDIR(mode)  ? "a directory"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a file";
}

// A history is a regular file (links followed): opening a FIFO would block until something
// writes into it, and a device, socket or directory is no database. A missing one is for the
// caller (recording creates it).
void RequireRegularFile(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;
  throw HistoryError(fmt::format("{}: is {}, not a regular file; give the path of a history database file",
                                 path.string(), KindOf(st.st_mode)));
}

bool ReadOnlyErrno(int error) { return error == EROFS || error == EACCES || error == EPERM; }

// Recording writes the database and, beside it, its -wal and -shm files: a read-only file, or
// a read-only folder (a read-only mount, a cache restored without write permission), is named
// as such before SQLite would call it "unable to open database file". Other failures (a folder
// that is a file) are left to SQLite's open.
void RequireWritable(const fs::path& db) {
  std::error_code ec;
  if (fs::exists(db, ec) && ::access(db.c_str(), W_OK) != 0 && ReadOnlyErrno(errno)) {
    throw HistoryError(fmt::format(
        "{}: is read-only ({}); recording needs a history database it can write (give another with --history)",
        db.string(), std::strerror(errno)));
  }
  const fs::path folder = db.has_parent_path() ? db.parent_path() : fs::path(".");
  if (::access(folder.c_str(), W_OK) != 0 && ReadOnlyErrno(errno)) {
    throw HistoryError(
        fmt::format("{}: its folder {} is read-only ({}); recording needs a folder it can write, for the database "
                    "and its -wal and -shm files (give another with --history)",
                    db.string(), folder.string(), std::strerror(errno)));
  }
}

// What opening for writing made, so that a refusal removes it again: the database file (and
// what SQLite put beside it) when there was none, and the folders created for it (if empty).
class MadeForRecording {
 public:
  explicit MadeForRecording(const fs::path& db) : db_(db) {
    for (fs::path p = db.parent_path(); !p.empty() && !fs::exists(p, ec_); p = p.parent_path()) {
      folders_.push_back(p);
      if (p == p.parent_path()) break;
    }
  }
  void NoteDatabase() { database_ = !fs::exists(db_, ec_); }  // inside the lock, before the open
  void Remove() {
    if (database_) {
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(db_.string() + suffix, ec_);
    }
    for (const fs::path& p : folders_) fs::remove(p, ec_);  // innermost first; only if empty
  }

 private:
  fs::path db_;
  std::vector<fs::path> folders_;
  bool database_ = false;
  std::error_code ec_;
};

[[noreturn]] void FailToOpen(const fs::path& path, sqlite3*& db) {
  const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
  sqlite3_close(db);
  db = nullptr;
  throw HistoryError(fmt::format("{}: cannot open: {}", path.string(), message));
}

}  // namespace

Store::Store(const fs::path& path, int up_to) : path_(path) {
  const fs::path target = model::WriteTarget(path);  // the lock and the folder go with the real file
  RequireRegularFile(target);
  MadeForRecording made(target);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const OpenLock lock(target);
  made.NoteDatabase();
  try {
    RequireWritable(target);
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
      FailToOpen(path, db_);
    }
    // Writers from parallel CI jobs wait their turn for up to a minute rather than fail.
    sqlite3_busy_timeout(db_, 60000);
    Exec(db_, path_, "PRAGMA journal_mode = WAL");
    Exec(db_, path_, "PRAGMA foreign_keys = ON");
    Migrate(up_to);
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    lock.Remove();
    made.Remove();
    throw;
  }
}

namespace {

// "file:PATH?immutable=1": SQLite reads the file as it is, with no lock and no -shm beside it.
std::string ImmutableUri(const fs::path& path) {
  std::string uri = "file:";
  for (const char c : fs::absolute(path).lexically_normal().string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

// A reader of a WAL database needs its -shm file, which it creates when it is missing: in a
// folder it cannot write (a read-only mount, a restored cache) SQLite says "unable to open
// database file". Such a database can change under no one (nothing can write there), so it is
// read as immutable instead, unless a -wal file holds changes not yet in the database itself.
bool ReadableOnlyAsImmutable(const fs::path& path) {
  const fs::path target = model::WriteTarget(path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (::access(folder.c_str(), W_OK) == 0 || !ReadOnlyErrno(errno)) return false;
  std::error_code ec;
  const auto wal = fs::file_size(target.string() + "-wal", ec);
  return ec || wal == 0;
}

}  // namespace

Store::Store(const fs::path& path, ReadOnly) : path_(path) {
  // No lock file, no folder, no journal-mode switch, no migration: the file is only read. (SQLite
  // itself may leave a WAL database's -wal and -shm files beside it, as any reader does.)
  RequireRegularFile(path);
  bool immutable = false;
  while (true) {
    const std::string name = immutable ? ImmutableUri(path) : path.string();
    const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX | (immutable ? SQLITE_OPEN_URI : 0);
    if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      FailToOpen(path, db_);
    }
    try {
      sqlite3_busy_timeout(db_, 60000);  // a writer's checkpoint holds readers off briefly
      const int version = SchemaVersion();
      if (version == 0) {
        throw HistoryError(fmt::format(
            "{}: not a perfengine history database (perfengine run SPEC --record writes one)", path.string()));
      }
      if (version > kSchemaVersion) {
        throw HistoryError(
            fmt::format("{}: schema version {} is newer than this perfengine's {}: read it with a newer "
                        "perfengine",
                        path.string(), version, kSchemaVersion));
      }
      return;
    } catch (...) {
      const bool retry = !immutable && sqlite3_errcode(db_) == SQLITE_CANTOPEN && ReadableOnlyAsImmutable(path);
      sqlite3_close(db_);
      db_ = nullptr;
      if (!retry) throw;
      immutable = true;
    }
  }
}

Store::~Store() { sqlite3_close(db_); }

int Store::SchemaVersion() {
  Statement exists(db_, path_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  exists.Step();
  if (exists.Int(0) == 0) return 0;
  Statement version(db_, path_, "SELECT version FROM schema_version");
  return version.Step() ? static_cast<int>(version.Int(0)) : 0;
}

void Store::Migrate(int up_to) {
  Transaction tx(db_, path_);  // another process may be migrating the same file right now
  Exec(db_, path_, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  int version = SchemaVersion();
  if (version > kSchemaVersion) {
    throw HistoryError(fmt::format(
        "{}: schema version {} is newer than this perfengine's {}: record with a newer perfengine or another file",
        path_.string(), version, kSchemaVersion));
  }
  for (; version < up_to; ++version) Exec(db_, path_, kMigrations[version]);
  Exec(db_, path_, "DELETE FROM schema_version");
  Statement set(db_, path_, "INSERT INTO schema_version (version) VALUES (?)");
  set.Bind(1, static_cast<std::int64_t>(version)).Run();
  tx.Commit();
}

std::int64_t Store::Record(const RunResult& result, const std::string& spec_key, const std::string& commit) {
  if (SchemaVersion() < kSchemaVersion) throw HistoryError(path_.string() + ": not migrated");
  std::string shard;
  if (result.shards.size() == 1) shard = fmt::format("{}/{}", result.shards[0].index, result.shards[0].count);
  Transaction tx(db_, path_);
  Statement run(db_, path_, R"sql(
INSERT INTO runs (recorded_at, started_at, spec_key, spec_path, spec_digest, engine_version, commit_id,
                  hostname, os, cpu, cores, memory_kib, baseline, candidate, exit, complete, results, shard)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?))sql");
  const MachineInfo& m = result.machine;
  run.Bind(1, NowIso8601()).Bind(2, result.started_at).Bind(3, spec_key).Bind(4, result.spec_path);
  run.Bind(5, result.spec_digest).Bind(6, result.engine_version).Bind(7, commit).Bind(8, m.hostname);
  run.Bind(9, m.os).Bind(10, m.cpu).Bind(11, static_cast<std::int64_t>(m.cores)).Bind(12, m.memory_kib);
  run.Bind(13, result.baseline).Bind(14, result.candidate).Bind(15, std::string(ExitCodeName(result.verdict.exit)));
  run.Bind(16, static_cast<std::int64_t>(result.complete)).Bind(17, ToJsonText(result)).Bind(18, shard);
  run.Run();
  const std::int64_t id = sqlite3_last_insert_rowid(db_);
  Statement figure(db_, path_,
                   "INSERT OR REPLACE INTO figures (run_id, workload, contender, name, value) VALUES (?, ?, ?, ?, ?)");
  for (const WorkloadResult& w : result.workloads) {
    for (const auto& [contender, name, value] : FiguresOf(w)) {
      figure.Bind(1, id).Bind(2, w.name).Bind(3, contender).Bind(4, name).Bind(5, value).Run();
    }
  }
  Statement check(
      db_, path_,
      "INSERT INTO checks (run_id, workload, threshold, measured, bar, passed, skipped) VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (const Check& c : result.verdict.checks) {
    check.Bind(1, id).Bind(2, c.workload).Bind(3, c.threshold).Bind(4, c.measured).Bind(5, c.bar);
    check.Bind(6, static_cast<std::int64_t>(c.passed)).Bind(7, static_cast<std::int64_t>(c.skipped)).Run();
  }
  tx.Commit();
  return id;
}

int Store::CountRuns(const std::string& spec_key) {
  Statement count(db_, path_, "SELECT count(*) FROM runs WHERE spec_key = ?");
  count.Bind(1, spec_key);
  count.Step();
  return static_cast<int>(count.Int(0));
}

// A history database may be shared, restored from a CI cache or edited: its figures table is
// a claim. Each run's figures are computed again from the samples of the results file it keeps
// (engine/analysis/, as `run` computes them; counts measured once per contender are taken as
// recorded), so the trend is what the samples say.
std::vector<WorkloadSeries> Store::Series(const std::string& spec_key) {
  Statement rows(db_, path_, R"sql(
SELECT id, started_at, commit_id, hostname, spec_digest, results FROM runs WHERE spec_key = ?
ORDER BY started_at, id)sql");
  rows.Bind(1, spec_key);
  std::vector<WorkloadSeries> out;
  std::map<std::string, size_t> index;
  while (rows.Step()) {
    const std::int64_t id = rows.Int(0);
    RunResult result;
    try {
      result = model::ParseResultsText(rows.Text(5), fmt::format("{}: run {}", path_.string(), id));
    } catch (const std::runtime_error& e) {
      throw HistoryError(e.what());
    }
    analysis::Analyze(result, {.intervals = false, .cancelled = {}});
    for (const WorkloadResult& w : result.workloads) {
      auto [it, inserted] = index.emplace(w.name, out.size());
      if (inserted) out.push_back({w.name, {}, w.startup});
      WorkloadSeries& workload = out[it->second];
      ++workload.runs;
      std::vector<std::string> this_run;  // a threshold counts once per run
      for (const Check& c : result.verdict.checks) {
        if (c.workload != w.name || c.skipped || !c.contender.empty()) continue;
        if (std::find(this_run.begin(), this_run.end(), c.threshold) != this_run.end()) continue;
        this_run.push_back(c.threshold);
        auto checked = std::find_if(workload.checked.begin(), workload.checked.end(),
                                    [&](const auto& k) { return k.first == c.threshold; });
        if (checked == workload.checked.end()) {
          workload.checked.push_back({c.threshold, 1});
        } else {
          ++checked->second;
        }
      }
      auto& figures = workload.figures;
      for (const auto& [contender, name, value] : FiguresOf(w)) {
        const std::string figure = contender.empty() ? name : contender + "." + name;
        auto series = std::find_if(figures.begin(), figures.end(), [&](const auto& f) { return f.first == figure; });
        if (series == figures.end()) {
          figures.push_back({figure, {}});
          series = figures.end() - 1;
        }
        series->second.push_back(Point{id, rows.Text(1), rows.Text(2), rows.Text(3), rows.Text(4), value});
      }
    }
  }
  return out;
}

}  // namespace pe::history
