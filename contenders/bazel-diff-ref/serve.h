// `serve`: answers /impacted_targets and /impacted_targets_with_distances over HTTP for the
// revisions of a git clone, as upstream bazel-diff's serve does (cli/ServeCommand.kt): it fetches
// at start before it reports healthy, checks each commit it has not hashed yet out in the clone
// itself and hashes it once (see serve_routes.h for the requests, revision_cache.h for the hashing).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pe::refdiff {

// Exit status when the address is taken (EADDRINUSE's number): the engine retries with another
// port for this status only.
constexpr int kExitAddressInUse = 98;

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                            // upstream's default; 0: a port the kernel picks (see port_file)
  std::filesystem::path repo;                 // -w: the git clone, checked out on a cache miss (so writable)
  std::filesystem::path bazel = "bazel";      // run in each commit's checkout; a bare name is looked up on PATH
  std::vector<std::string> startup_options;   // -so: before each bazel command
  std::filesystem::path cache_dir;            // hashes per commit, kept across restarts (upstream's --cacheDir)
  std::filesystem::path git = "git";          // --gitPath
  int threads = 1;                            // request threads, and threads hashing one commit; 0 = all cores
  std::filesystem::path port_file;            // when set, the bound port is written there once listening
  bool initial_fetch = true;                  // false: --no-initial-fetch
  bool track_deps = false;                    // --trackDeps: keep dependency edges, answer distances
  std::vector<std::string> warmup_revisions;  // --warmupRevision: hashed before ready, best effort
};

// Listens, verifies the repository, runs `git fetch --all --prune` (unless !initial_fetch) and
// hashes the warm-up revisions, then reports ready; answers until SIGTERM or SIGINT, then returns
// 0 (after the answers in progress are sent). A failed initial fetch leaves the server running
// but never ready (upstream's "lame duck": /health answers 503), with one line on stderr. Prints "bazel-diff-ref:
// address already in use: HOST:PORT" and returns kExitAddressInUse when the port is taken. Throws RefDiffError for
// anything else that stops it from starting.
int Serve(const ServeOptions& options);

}  // namespace pe::refdiff
