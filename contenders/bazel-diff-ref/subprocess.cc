#include "subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "error.h"
#include "temp_file.h"

extern char** environ;

namespace pe::refdiff {
namespace {

class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

}  // namespace

ProcessResult RunProcess(const ProcessRequest& request) {
  // Output goes to files rather than pipes: nothing to poll, and a query result of hundreds of
  // megabytes never sits in a pipe buffer waiting for us.
  TempFile captured_stdout("stdout");
  TempFile captured_stderr("stderr");
  const std::filesystem::path& stdout_path = request.stdout_path.empty() ? captured_stdout.path() : request.stdout_path;

  SpawnActions actions;
  posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(actions.get(), 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(actions.get(), 2, captured_stderr.path().c_str(), O_WRONLY | O_TRUNC, 0);
  if (!request.cwd.empty()) posix_spawn_file_actions_addchdir_np(actions.get(), request.cwd.c_str());

  std::vector<char*> argv;
  for (const std::string& arg : request.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  pid_t pid = 0;
  int error = posix_spawn(&pid, argv[0], actions.get(), nullptr, argv.data(), environ);
  if (error != 0) {
    throw RefDiffError("cannot run " + request.argv[0] + ": " + std::strerror(error));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw RefDiffError("cannot wait for " + request.argv[0] + ": " + std::strerror(errno));
  }

  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (request.stdout_path.empty()) result.stdout_text = ReadFile(captured_stdout.path());
  result.stderr_text = ReadFile(captured_stderr.path());
  return result;
}

std::string LastLine(const std::string& text) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  std::size_t start = text.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return text.substr(start, end - start + 1);
}

}  // namespace pe::refdiff
