// The engine's own peak RSS stays under the bar docs/reducing-variance.md states, on a run
// whose outputs are larger than the bar: outputs are compared as streams, never held. A
// memory bar is not timing, so it holds however loaded the machine is.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

constexpr long kBarKib = 64 * 1024;               // docs/reducing-variance.md: 64 MiB
constexpr long kOutputBytes = 80L * 1024 * 1024;  // each contender's output, above the bar

// Writes `bytes` of varied text to `path` a megabyte at a time.
void WriteBig(const fs::path& path, long bytes) {
  std::ofstream out(path, std::ios::binary);
  std::string chunk(1024 * 1024, ' ');
  for (long written = 0, n = 0; written < bytes; written += static_cast<long>(chunk.size()), ++n) {
    for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>('a' + (i * 7 + n) % 26);
    chunk[chunk.size() - 1] = '\n';
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  }
}

struct Reaped {
  int exit = -1;
  long max_rss_kib = 0;  // the engine's, and that of the descendants it reaped
};

Reaped RunAndReap(std::vector<std::string> args, const fs::path& dir) {
  std::vector<std::string> argv = {PERFENGINE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, (dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (dir / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  Reaped r;
  const int rc = posix_spawn(&pid, raw[0], &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return r;
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.max_rss_kib = usage.ru_maxrss;
  return r;
}

TEST(EngineFootprintE2E, PeakRssStaysUnderTheBar) {
  TempDir dir;
  fs::create_directory(dir.path() / "data");
  WriteBig(dir.path() / "data" / "big.txt", kOutputBytes);
  // The contenders copy the file with copy_file (sendfile), so their own RSS stays small and
  // the figure wait4 reports is the engine's.
  std::ofstream(dir.path() / "spec.toml") << "[run]\nrounds = 2\nwarmup_rounds = 0\n"
                                          << "[contenders.baseline]\nargv = [\"" STUB_CONTENDER "\"]\n"
                                          << "[contenders.candidate]\nargv = [\"" STUB_CONTENDER "\"]\n"
                                          << "[workloads.copy]\nargs = [\"--copy\", \"{fixture}/big.txt\", "
                                             "\"{out}\"]\noutput = \"{out}\"\nparity = \"exact\"\n"
                                          << "fixture = \"data\"\n";
  const Reaped r = RunAndReap(
      {"run", (dir.path() / "spec.toml").string(), "--cache-dir", (dir.path() / "cache").string()}, dir.path());
  EXPECT_EQ(r.exit, 0) << ReadAll(dir.path() / "out") << ReadAll(dir.path() / "err");
  EXPECT_GT(r.max_rss_kib, 0);
  EXPECT_LT(r.max_rss_kib, kBarKib) << "the engine's peak RSS, KiB";
}

}  // namespace
}  // namespace pe::e2e
