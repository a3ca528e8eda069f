#include "serve.h"

#include <unistd.h>

#include <cstdio>
#include <optional>

#include "error.h"
#include "git_repo.h"
#include "http_server.h"
#include "parallel.h"
#include "revision_cache.h"
#include "serve_routes.h"
#include "temp_file.h"

namespace pe::refdiff {
namespace {

// Written beside its final name, then renamed: a reader polling for the file never sees half.
void WritePortFile(const std::filesystem::path& path, int port) {
  std::filesystem::path partial = path;
  partial += ".partial";
  WriteFile(partial, std::to_string(port) + "\n");
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) throw RefDiffError("cannot write the port file " + path.string() + ": " + error.message());
}

// Upstream's performInitialFetch and warmUpCache: the fetch unless --no-initial-fetch, then each
// warm-up revision hashed, a failure there only a warning. False when the fetch failed: the
// server stays up but never ready, as upstream's lame duck.
bool PrepareClone(const GitRepo& repo, RevisionCache& cache, const ServeOptions& options) {
  if (options.initial_fetch) {
    try {
      repo.Fetch();
    } catch (const RefDiffError& error) {
      std::fprintf(stderr,
                   "bazel-diff-ref: initial git fetch failed; the server stays up but not ready (/health answers "
                   "503): %s\n",
                   error.what());
      return false;
    }
  }
  for (const std::string& rev : options.warmup_revisions) {
    try {
      std::optional<std::string> commit = repo.ResolveCommit(rev);
      if (!commit) throw RefDiffError("revision '" + rev + "' is missing from the local clone");
      cache.Hashes(*commit);
    } catch (const std::exception& error) {
      std::fprintf(stderr,
                   "bazel-diff-ref: warning: warm-up of revision '%s' failed; it will be hashed on demand: %s\n",
                   rev.c_str(), error.what());
    }
  }
  return true;
}

}  // namespace

int Serve(const ServeOptions& options) {
  std::filesystem::path git = options.git;
  if (!git.has_parent_path()) git = FindOnPath(options.git.string());
  if (git.empty()) throw RefDiffError("serve needs git, and there is no " + options.git.string() + " on PATH");
  std::filesystem::path bazel = options.bazel;
  // bazel runs inside each commit's checkout: a relative path means relative to where we
  // started, and a bare name is looked up on PATH now rather than failing every request later.
  if (!bazel.has_parent_path())
    bazel = FindOnPath(options.bazel.string());
  else if (bazel.is_relative())
    bazel = std::filesystem::absolute(bazel);
  if (bazel.empty() || access(bazel.c_str(), X_OK) != 0) {
    throw RefDiffError("bazel " + options.bazel.string() + " is not an executable file");
  }
  std::error_code error;
  std::filesystem::create_directories(options.cache_dir, error);
  if (error)
    throw RefDiffError("cannot create the cache directory " + options.cache_dir.string() + ": " + error.message());
  int threads = EffectiveThreads(options.threads);

  ServeRoutes routes(options.track_deps);
  std::optional<HttpServer> server;
  try {
    server.emplace(options.host, options.port,
                   [&routes](const HttpRequest& request) { return routes.Answer(request); });
  } catch (const AddressInUse& error) {
    std::fprintf(stderr, "bazel-diff-ref: %s\n", error.what());
    return kExitAddressInUse;
  }
  // Listening already, so /health can say 503 while the repository is checked.
  server->Start(threads);
  try {
    if (!options.port_file.empty()) WritePortFile(options.port_file, server->port());
    GitRepo repo(git, std::filesystem::absolute(options.repo));
    RevisionCache cache(
        repo, {bazel, options.startup_options, std::filesystem::absolute(options.cache_dir), options.track_deps},
        threads);
    if (PrepareClone(repo, cache, options)) routes.MarkReady(cache);
    server->Wait();  // until SIGTERM or SIGINT; the cache outlives every request
    return 0;
  } catch (...) {
    server->Stop();
    server->Wait();
    throw;
  }
}

}  // namespace pe::refdiff
