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

  ServeRoutes routes;
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
    GitRepo repo(git, options.repo);
    RevisionCache cache(repo, {bazel, options.startup_options, std::filesystem::absolute(options.cache_dir)}, threads);
    routes.MarkReady(cache);
    server->Wait();  // until SIGTERM or SIGINT; the cache outlives every request
    return 0;
  } catch (...) {
    server->Stop();
    server->Wait();
    throw;
  }
}

}  // namespace pe::refdiff
