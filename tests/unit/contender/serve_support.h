// Support for the serve tests: a git_workspace fixture made once per test program, the server
// as a child process in its own process group, and a listening socket that holds a port.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pe::refdiff::testing {

// A git_workspace fixture (200 targets, rev0..rev2), generated once into a fixture cache in the
// build tree and shared by every test process; each process gets its own clone of the repository
// (no work tree, objects borrowed from the fixture), so the worktrees one process adds are never
// seen by another. The clone lives as long as the test program.
struct GitFixture {
  std::filesystem::path dir;  // the cached fixture: bazel, shim.json, revisions.json, repo/
  std::filesystem::path clone;
  std::filesystem::path repo() const { return clone; }
  std::filesystem::path bazel() const { return dir / "bazel"; }
};
const GitFixture& SharedGitFixture();

// A fresh directory, removed (with everything in it) when the object goes away.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs git in `repo` and returns what it printed; fails the test (and throws) when git fails.
std::string Git(const std::filesystem::path& repo, std::vector<std::string> args);
// How many worktrees `git worktree list` shows, the main one included.
int WorktreeCount(const std::filesystem::path& repo);

// `program serve ...` started in its own process group, stdout and stderr to files in a scratch
// directory, TMPDIR pointing at an empty folder of that scratch directory (so a test can see
// that the server left nothing behind there).
class ServeProcess {
 public:
  // An argument "{port-file}" is replaced by port_file(), "{cache-dir}" by a fresh --cacheDir.
  ServeProcess(const std::string& program, std::vector<std::string> args);
  ~ServeProcess();  // SIGKILLs the group if still running, and reaps
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Waits for the port file to appear and returns the port in it; -1 when the process exited
  // first or 10 s passed.
  int WaitForPort();
  std::filesystem::path port_file() const { return scratch_.path() / "port"; }
  std::filesystem::path tmpdir() const { return scratch_.path() / "tmp"; }

  bool Running();
  void Signal(int signal);
  // Reaps the child: its exit status (128 + signal when killed), or -1 when it was still
  // running after `timeout_s` (then it is killed and reaped).
  int Wait(double timeout_s);
  // True while any process of the child's group (the server, or git or bazel it started) exists.
  bool GroupAlive() const;
  std::string Stderr() const;

 private:
  ScratchDir scratch_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

// A socket bound to 127.0.0.1 and listening, so the port is taken while it lives.
class HeldPort {
 public:
  HeldPort();
  ~HeldPort();
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = -1;
};

}  // namespace pe::refdiff::testing
