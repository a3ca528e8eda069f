#include "generators/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "engine/process/program_lookup.h"
#include "engine/process/spawn.h"

namespace pe::gen {

using process::ChildEnvironment;
using process::PathVariable;
using process::ResolvedProgram;
using process::ResolveProgram;
using process::Spawned;
using process::StartProcess;
using process::StartRequest;
using process::UniqueFd;

std::string RunChecked(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                       const std::map<std::string, std::string>& env) {
  std::string command;
  for (const auto& arg : argv) command += (command.empty() ? "" : " ") + arg;
  if (argv.empty()) throw std::runtime_error("empty command");
  const ResolvedProgram program = ResolveProgram(argv[0], cwd, PathVariable(env));
  if (!program.error.empty()) throw std::runtime_error(fmt::format("`{}` failed: {}", command, program.error));
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  UniqueFd output_read(pipe_fds[0]);
  UniqueFd output_write(pipe_fds[1]);
  UniqueFd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  StartRequest request;
  request.program = program.path;
  request.argv = argv;
  request.env = ChildEnvironment(env);
  request.cwd = cwd;
  request.stdin_fd = null_in.get();
  request.stdout_fd = output_write.get();
  request.stderr_fd = output_write.get();
  Spawned spawned = StartProcess(request);
  // Our copy of the write end must go, or the read below would never see end of file.
  output_write.Reset();
  if (!spawned.error.empty()) throw std::runtime_error(fmt::format("`{}` failed: {}", command, spawned.error));
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(output_read.get(), buffer, sizeof buffer);
    if (n > 0) {
      output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  const std::optional<int> exit_code = process::Reap(spawned).ExitCode();
  if (!exit_code || *exit_code != 0) {
    throw std::runtime_error(fmt::format("`{}` failed ({}): {}", command, exit_code.value_or(-1), output));
  }
  return output;
}

}  // namespace pe::gen
