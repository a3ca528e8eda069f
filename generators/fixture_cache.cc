#include "generators/fixture_cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "generators/file_io.h"
#include "generators/sha256.h"

namespace pe::gen {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifest = ".perfengine-manifest";
constexpr const char* kManifestHeader = "perfengine-manifest 1";

// Strings are length-prefixed so no choice of keys or values can collide with another.
void AppendField(std::string& out, std::string_view text) {
  fmt::format_to(std::back_inserter(out), "{}:{}\n", text.size(), text);
}

std::string Canonical(const ParamValue& value) {
  struct Visitor {
    std::string operator()(std::int64_t v) const { return fmt::format("i{}", v); }
    std::string operator()(double v) const { return fmt::format("f{:a}", v); }
    std::string operator()(bool v) const { return v ? "btrue" : "bfalse"; }
    std::string operator()(const std::string& v) const { return fmt::format("s{}:{}", v.size(), v); }
    std::string operator()(const std::vector<std::string>& v) const {
      std::string out = fmt::format("a{}", v.size());
      for (const auto& item : v) out += fmt::format("[{}:{}]", item.size(), item);
      return out;
    }
  };
  return std::visit(Visitor{}, value);
}

struct Entry {
  bool directory = false;
  std::string digest;
  bool executable = false;
  std::uintmax_t size = 0;
  std::string path;  // relative, generic form
};

std::vector<Entry> Scan(const fs::path& root) {
  std::vector<Entry> entries;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = it->path().lexically_relative(root);
    if (relative == kManifest) continue;
    const auto status = it->symlink_status();
    Entry entry;
    entry.path = relative.generic_string();
    if (fs::is_directory(status)) {
      entry.directory = true;
    } else if (fs::is_regular_file(status)) {
      entry.size = it->file_size();
      entry.executable = (status.permissions() & fs::perms::owner_exec) != fs::perms::none;
      entry.digest = Sha256FileHex(it->path());
    } else {
      continue;  // generators write only files and directories
    }
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });
  return entries;
}

void WriteManifest(const fs::path& root) {
  const std::vector<Entry> entries = Scan(root);
  std::string text = fmt::format("{} {}\n", kManifestHeader, entries.size());
  for (const Entry& entry : entries) {
    if (entry.directory) {
      fmt::format_to(std::back_inserter(text), "d {}\n", entry.path);
    } else {
      fmt::format_to(std::back_inserter(text), "f {} {} {} {}\n", entry.digest, entry.executable ? 755 : 644,
                     entry.size, entry.path);
    }
  }
  WriteFile(root / kManifest, text);
}

// One file of the manifest: a regular file (not a symlink) with the recorded size, mode and
// bytes. One open and one fstat; the digest streams through sha256.cc's reused buffer.
bool FileMatches(const fs::path& file, const Entry& entry) {
  // O_NONBLOCK: a FIFO planted in the tree must not hang the check (it fails it, not regular).
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  const bool shape = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                     static_cast<std::uintmax_t>(st.st_size) == entry.size &&
                     ((st.st_mode & S_IXUSR) != 0) == entry.executable;
  ::close(fd);
  if (!shape) return false;
  try {
    return Sha256FileHex(file) == entry.digest;
  } catch (const std::exception&) {
    return false;
  }
}

// True when every directory and file the manifest lists is present with the recorded bytes.
// Every run checks its cached fixtures this way (a flagship run: 160,000 files, 800 MB), so the
// files are hashed on two threads: the check is I/O and hashing, nothing shared but the verdict.
bool Verify(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_regular_file(root / kManifest, ec)) return false;
  std::ifstream in(root / kManifest);
  std::string line;
  if (!std::getline(in, line) || line.rfind(kManifestHeader, 0) != 0) return false;
  std::size_t expected = 0;
  try {
    expected = std::stoul(line.substr(std::string_view(kManifestHeader).size()));
  } catch (const std::exception&) {
    return false;
  }
  std::size_t seen = 0;
  std::vector<Entry> files;
  while (std::getline(in, line)) {
    ++seen;
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (kind == "d") {
      if (line.size() < 3 || !fs::is_directory(root / line.substr(2), ec)) return false;
      continue;
    }
    Entry entry;
    int mode = 0;
    if (kind != "f" || !(fields >> entry.digest >> mode >> entry.size)) return false;
    entry.executable = mode == 755;
    fields.get();  // the separating space
    std::getline(fields, entry.path);
    files.push_back(std::move(entry));
  }
  std::atomic<bool> ok = true;
  auto check = [&](std::size_t first) {
    for (std::size_t i = first; i < files.size() && ok.load(std::memory_order_relaxed); i += 2) {
      if (!FileMatches(root / files[i].path, files[i])) ok = false;
    }
  };
  {
    std::jthread other(check, 1);
    check(0);
  }
  if (!ok) return false;
  if (seen != expected) return false;
  // Nothing beyond the manifest either: a contender that planted a file (a cached answer) in
  // its fixture must not find it there on a later run.
  std::size_t present = 0;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it.depth() == 0 && it->path().filename() == kManifest) continue;
    const auto status = it->symlink_status(ec);
    if (ec || !(fs::is_directory(status) || fs::is_regular_file(status))) return false;
    ++present;
  }
  return !ec && present == expected;
}

// Fixtures are read-only once made: write bits off on every file and directory, so a
// contender running as an ordinary user cannot change its input. (Root ignores the bits;
// Verify's whole-tree check catches what it changes before the next run uses the fixture.)
void SetTreeWritable(const fs::path& root, bool writable) {
  std::error_code ec;
  auto apply = [&](const fs::path& path, const fs::file_status& status) {
    const bool exec = fs::is_directory(status) || (status.permissions() & fs::perms::owner_exec) != fs::perms::none;
    fs::perms perms = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
    if (exec) perms |= fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
    if (writable) perms |= fs::perms::owner_write;
    fs::permissions(path, perms, fs::perm_options::replace, ec);
  };
  const auto root_status = fs::symlink_status(root, ec);
  if (ec || !fs::is_directory(root_status)) return;
  if (writable) apply(root, root_status);  // first, so its entries can be reached and changed
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const auto status = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_directory(status) || fs::is_regular_file(status)) apply(it->path(), status);
  }
  if (!writable) apply(root, root_status);  // last, or the walk could not reach inside
}

// remove_all on a read-only tree fails for an ordinary user: open it up first.
void RemoveTree(const fs::path& root, std::error_code& ec) {
  SetTreeWritable(root, true);
  fs::remove_all(root, ec);
}

// The lock a fixture's writer holds: cache_root/.locks/<fixture>.
fs::path LockFile(const fs::path& fixture_dir) { return fixture_dir.parent_path() / ".locks" / fixture_dir.filename(); }

// The writer's pid at the end of a partial's name ("<prefix><fixture>-<pid>"), or 0.
long PartialPid(const std::string& name) {
  const std::size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash + 1 == name.size()) return 0;
  try {
    std::size_t used = 0;
    const long pid = std::stol(name.substr(dash + 1), &used);
    return used == name.size() - dash - 1 && pid > 0 ? pid : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// Removes every partial (".tmp-" or ".trash-" + stem + pid) of the fixture whose lock we hold:
// nobody else can be writing one, whatever its pid.
void RemovePartialsOf(const fs::path& cache_root, const std::string& stem) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache_root, ec)) {
    const std::string name = entry.path().filename().string();
    for (const std::string prefix : {".tmp-", ".trash-"}) {
      const bool ours = name.starts_with(prefix + stem) && name.rfind('-') + 1 == prefix.size() + stem.size();
      if (ours && PartialPid(name) != 0) RemoveTree(entry.path(), ec);
    }
  }
}

}  // namespace

void SweepPartials(const fs::path& cache_root) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache_root, ec)) {
    const std::string name = entry.path().filename().string();
    std::string fixture;
    for (const std::string_view prefix : {".tmp-", ".trash-"}) {
      if (name.starts_with(prefix)) fixture = name.substr(prefix.size());
    }
    const long pid = PartialPid(name);
    if (fixture.empty() || pid == 0) continue;
    fixture.resize(fixture.rfind('-'));
    // Its writer holds the fixture's lock from before the partial exists until it is gone. A
    // lock file that is missing means an engine from before the lock named it (a shorter key):
    // then only a writer that is no longer running marks it as left behind.
    const int lock = ::open(LockFile(cache_root / fixture).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    bool stale;
    if (lock >= 0) {
      stale = ::flock(lock, LOCK_EX | LOCK_NB) == 0;
    } else {
      stale = ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    }
    if (stale) RemoveTree(entry.path(), ec);
    if (lock >= 0) ::close(lock);  // after the removal, so no writer starts meanwhile
  }
}

fs::path DefaultCacheRoot() {
  if (const char* env = std::getenv("PERFENGINE_CACHE"); env != nullptr && *env != '\0') {
    return env;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return fs::path(xdg) / "perfengine";
  }
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr ? home : "/tmp") / ".cache" / "perfengine";
}

std::string FixtureKey(const Generator& generator, const Params& params, double scale, std::uint64_t seed) {
  std::string text = "perfengine-fixture-key 1\n";
  AppendField(text, generator.Name());
  AppendField(text, std::to_string(generator.Version()));
  AppendField(text, generator.KeyExtra());
  AppendField(text, fmt::format("{:a}", scale));
  AppendField(text, std::to_string(seed));
  for (const auto& [key, value] : params) {  // std::map: sorted by key
    AppendField(text, key);
    AppendField(text, Canonical(value));
  }
  return Sha256Hex(text);
}

fs::path FixtureDirectory(const Generator& generator, const Params& params, const Context& ctx,
                          const fs::path& cache_root) {
  const std::string key = FixtureKey(generator, params, ctx.scale, ctx.seed);
  return cache_root / fmt::format("{}-{}", generator.Name(), key.substr(0, 32));
}

bool IsCached(const fs::path& dir) { return Verify(dir); }

bool HasManifest(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kManifest, ec);
}

bool IsBeingMade(const fs::path& dir) {
  const int fd = ::open(LockFile(dir).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases it again if we got it
  return held;
}

// An exclusive flock on a file beside the fixture, held while it is checked and made, so two
// runs (or two test processes) needing the same fixture never make it twice or replace the
// copy the other is reading; the second waits, then finds it in place. The kernel drops the
// lock if the holder dies.
class FixtureLock {
 public:
  explicit FixtureLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) throw std::runtime_error(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR)
        throw std::runtime_error(fmt::format("cannot lock {}: {}", path.string(), std::strerror(errno)));
    }
  }
  ~FixtureLock() { ::close(fd_); }
  FixtureLock(const FixtureLock&) = delete;
  FixtureLock& operator=(const FixtureLock&) = delete;

 private:
  int fd_;
};

fs::path Materialize(const Generator& generator, const Params& params, const Context& ctx, const fs::path& cache_root) {
  generator.Check(params);
  const fs::path dir = FixtureDirectory(generator, params, ctx, cache_root);
  // Every run sweeps, cached fixture or not, and before taking a lock (ours would look held).
  SweepPartials(cache_root);
  if (Verify(dir)) return dir;

  fs::create_directories(cache_root);
  // Partials are named after the fixture's lock, so a sweep can tell whose writer is gone.
  const std::string stem = dir.filename().string() + "-";
  fs::create_directories(cache_root / ".locks");
  const FixtureLock lock(LockFile(dir));
  if (Verify(dir)) return dir;  // made by whoever held the lock before us
  RemovePartialsOf(cache_root, stem);
  const fs::path tmp = cache_root / fmt::format(".tmp-{}{}", stem, ::getpid());
  fs::create_directories(tmp);
  try {
    Context here = ctx;
    here.out_dir = tmp;
    generator.Generate(params, here);
    WriteManifest(tmp);
    SetTreeWritable(tmp, false);
  } catch (...) {
    std::error_code ignored;
    RemoveTree(tmp, ignored);
    throw;
  }

  std::error_code ec;
  if (fs::exists(dir, ec)) {
    // Damaged: move it aside first so the fixture appears in one rename.
    const fs::path trash = cache_root / fmt::format(".trash-{}{}", stem, ::getpid());
    fs::rename(dir, trash, ec);
    if (!ec) RemoveTree(trash, ec);
  }
  fs::rename(tmp, dir, ec);
  if (ec) {
    // Another run may have put a good copy in place meanwhile.
    std::error_code ignored;
    RemoveTree(tmp, ignored);
    if (Verify(dir)) return dir;
    throw std::runtime_error(fmt::format("cannot move fixture into {}: {}", dir.string(), ec.message()));
  }
  return dir;
}

}  // namespace pe::gen
