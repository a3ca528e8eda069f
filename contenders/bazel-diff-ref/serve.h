// `serve`: answers /impacted_targets over HTTP for the revisions of a git repository, hashing
// each commit once (see serve_routes.h for the requests, revision_cache.h for the hashing).
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
  int port = 8080;                           // upstream's default; 0: a port the kernel picks (see port_file)
  std::filesystem::path repo;                // the git repository (its work tree)
  std::filesystem::path bazel = "bazel";     // run in each commit's checkout; a bare name is looked up on PATH
  std::vector<std::string> startup_options;  // -so: before each bazel command
  std::filesystem::path cache_dir;           // hashes per commit, kept across restarts (upstream's --cacheDir)
  std::filesystem::path git = "git";         // --gitPath
  int threads = 1;                           // request threads, and threads hashing one commit; 0 = all cores
  std::filesystem::path port_file;           // when set, the bound port is written there once listening
};

// Listens, verifies the repository, answers until SIGTERM or SIGINT, then returns 0 (after the
// answers in progress are sent). Prints "bazel-diff-ref: address already in use: HOST:PORT" and
// returns kExitAddressInUse when the port is taken. Throws RefDiffError for anything else that
// stops it from starting.
int Serve(const ServeOptions& options);

}  // namespace pe::refdiff
