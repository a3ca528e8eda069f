// Running the real perfengine binary on specs that drive the stub contender.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace pe::e2e {

namespace fs = std::filesystem;

inline std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh temporary directory, removed when the test ends.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "perfengine-e2e-XXXXXX").string();
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

struct Finished {
  int exit = -1;
  std::string out;
  std::string err;
};

// perfengine running in the background, its stdout and stderr going to files in `dir` (stdout
// to `out` instead when given, e.g. /dev/full).
class Running {
 public:
  // `launcher`: a command perfengine is run through (its argv goes after it).
  Running(const std::vector<std::string>& args, const fs::path& dir, const fs::path& out = {},
          const std::vector<std::string>& launcher = {})
      : dir_(dir) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] != "--json") continue;
      std::error_code ec;
      const auto before = fs::last_write_time(args[i + 1], ec);
      results_.push_back({args[i + 1], ec ? std::nullopt : std::optional(before)});
    }
    std::vector<std::string> argv = launcher;
    argv.push_back(PERFENGINE_BINARY);
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> raw;
    for (auto& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    const fs::path stdout_path = out.empty() ? dir / "perfengine.out" : out;
    posix_spawn_file_actions_addopen(&actions, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, (dir / "perfengine.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn(&pid_, raw[0], &actions, nullptr, raw.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
  }
  pid_t pid() const { return pid_; }
  Finished Wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    Finished f;
    f.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    f.out = ReadAll(dir_ / "perfengine.out");
    f.err = ReadAll(dir_ / "perfengine.err");
    ValidateResults();
    return f;
  }

 private:
  // Every results file a test has perfengine write must match docs/results.schema.json.
  void ValidateResults() const {
#ifdef PERFENGINE_RESULTS_SCHEMA
    std::string command = "/usr/bin/python3 " PERFENGINE_VALIDATE_RESULTS " " PERFENGINE_RESULTS_SCHEMA;
    bool any = false;
    for (const auto& [file, before] : results_) {
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) continue;                      // a failed run may write none
      if (before && fs::last_write_time(file, ec) == *before) continue;  // refused: not written
      command += " '" + file.string() + "'";
      any = true;
    }
    if (!any) return;
    command += " > '" + (dir_ / "schema.out").string() + "' 2>&1";
    if (std::system(command.c_str()) != 0) {
      ADD_FAILURE() << "results file does not match docs/results.schema.json:\n" << ReadAll(dir_ / "schema.out");
    }
#endif
  }

  std::vector<std::pair<fs::path, std::optional<fs::file_time_type>>> results_;  // --json, its mtime before
  fs::path dir_;
  pid_t pid_ = -1;
};

// Runs argv (no shell, the program looked up on PATH) in `cwd`, its output discarded; its exit
// status, -1 when it could not start or was killed. For the tools a test sets up with (git).
inline int RunQuietly(std::vector<std::string> argv, const fs::path& cwd) {
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, raw[0], &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline Finished RunPerfengine(const std::vector<std::string>& args, const fs::path& dir) {
  return Running(args, dir).Wait();
}

// Runs perfengine where the kernel refuses the namespaces its sandbox needs: inside a user
// namespace of its own whose user.max_user_namespaces is 0, so the code under test runs as on a
// kernel without them (docs/threat-model.md). nullopt when this machine cannot make that namespace.
inline std::optional<Finished> RunPerfengineUnsandboxed(const std::vector<std::string>& args, const fs::path& dir) {
  const std::string limit = "echo 0 > /proc/sys/user/max_user_namespaces";
  if (std::system(("unshare --user --map-root-user sh -c '" + limit + "' 2>/dev/null").c_str()) != 0) {
    return std::nullopt;
  }
  return Running(args, dir, {},
                 {"/usr/bin/unshare", "--user", "--map-root-user", "/bin/sh", "-c", limit + " && exec \"$0\" \"$@\""})
      .Wait();
}

// Alive means neither gone nor a zombie waiting for a reaper.
inline bool IsAlive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// Whether a process that logged `pid` as its own (in a sandbox that is its pid namespace's pid,
// docs/threat-model.md) and whose command line holds `mark` (say, the log's path) is alive: any
// process here whose innermost pid (NSpid's last field) is `pid` and whose command line holds it.
inline bool IsAliveMentioning(pid_t pid, const std::string& mark) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    std::string line, innermost;
    while (std::getline(status, line)) {
      if (!line.starts_with("NSpid:")) continue;
      innermost = line.substr(line.find_last_of(" \t") + 1);
    }
    if (innermost != std::to_string(pid)) continue;
    std::string cmdline = ReadAll(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(mark) != std::string::npos && IsAlive(std::stoi(name))) return true;
  }
  return false;
}

// The pids the stub logged with `--log PATH TAG` ("TAG <pid> <ns>" per line), in order.
struct LogLine {
  std::string tag;
  pid_t pid = 0;
};
inline std::vector<LogLine> ReadLog(const fs::path& path) {
  std::vector<LogLine> lines;
  std::ifstream in(path);
  LogLine l;
  long long ns = 0;
  while (in >> l.tag >> l.pid >> ns) lines.push_back(l);
  return lines;
}

}  // namespace pe::e2e
