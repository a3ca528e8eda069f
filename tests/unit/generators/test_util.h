// Helpers for the generator tests: scratch directories, running a generator, running a
// program and capturing what it printed.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "generators/file_io.h"
#include "generators/generator.h"
#include "generators/sha256.h"

namespace pe::gen::testing {

// A fresh directory under the test temp dir, removed when the object goes away.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pe-gen-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::filesystem::path Generate(std::string_view name, const Params& params, const std::filesystem::path& dir,
                                      std::uint64_t seed = 1, double scale = 1) {
  auto generator = BuiltinRegistry().Create(name);
  generator->Check(params);
  Context ctx;
  ctx.seed = seed;
  ctx.scale = scale;
  ctx.out_dir = dir;
  std::filesystem::create_directories(dir);
  generator->Generate(params, ctx);
  return dir;
}

// One digest over every file under root (relative paths, sizes and contents), skipping `skip`.
inline std::string TreeDigest(const std::filesystem::path& root, std::string_view skip = "") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const auto relative = entry.path().lexically_relative(root);
    if (!skip.empty() && relative.string().rfind(skip, 0) == 0) continue;
    files.push_back(relative);
  }
  std::sort(files.begin(), files.end());
  std::string listing;
  for (const auto& file : files) {
    listing += file.generic_string() + " " + Sha256FileHex(root / file) + "\n";
  }
  return Sha256Hex(listing);
}

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv (no shell) in cwd; stdout and stderr go to files that are read back.
inline RunResult RunProgram(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                            const std::filesystem::path& scratch) {
  const auto out_path = scratch / "run.stdout";
  const auto err_path = scratch / "run.stderr";
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& arg : args) argp.push_back(arg.data());
  argp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (::chdir(cwd.c_str()) != 0) _exit(126);
    ::execv(argp[0], argp.data());
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
}

}  // namespace pe::gen::testing
