// Fixtures cached under a directory keyed by the digest of
// (generator name, version, parameters, scale, seed). A manifest of the files' SHA-256
// digests is written last; a later run reuses a fixture only after verifying it, and
// regenerates a damaged one. Generation happens in a temporary directory (a partial,
// ".tmp-<fixture>-<pid>") renamed into place, so no run ever sees a half-written fixture; the
// partial of a writer that was killed is swept by the next Materialize of any fixture, or at
// once by SweepPartials.
#pragma once

#include <filesystem>
#include <string>

#include "generators/generator.h"

namespace pe::gen {

// The default cache root: $PERFENGINE_CACHE, else $XDG_CACHE_HOME/perfengine,
// else $HOME/.cache/perfengine.
std::filesystem::path DefaultCacheRoot();

// The cache key: hex SHA-256 over the canonical serialisation of the inputs.
std::string FixtureKey(const Generator& generator, const Params& params, double scale, std::uint64_t seed);

// Where the fixture for these inputs lives in the cache, whether or not it exists yet.
std::filesystem::path FixtureDirectory(const Generator& generator, const Params& params, const Context& ctx,
                                       const std::filesystem::path& cache_root);

// True when `dir` holds a complete fixture whose files match its manifest.
bool IsCached(const std::filesystem::path& dir);

// True when `dir` was once completed (its manifest is in place), without reading its files: what
// a progress line needs to say "generating" or not. Materialize still checks every file, and a
// damaged fixture found there is made again.
bool HasManifest(const std::filesystem::path& dir);

// True when another process holds the lock of the fixture in `dir`: it is making it now, and
// a Materialize here would wait for it.
bool IsBeingMade(const std::filesystem::path& dir);

// Removes the partials in cache_root whose writer is gone: a writer holds its fixture's lock
// for as long as its partial exists, so a partial whose lock can be taken is left behind (a
// concurrent generator's is kept). Called by Materialize, and after a generator was killed.
void SweepPartials(const std::filesystem::path& cache_root);

// Returns the directory holding the fixture, generating or repairing it as needed. Runs that
// need the same fixture at once take turns on a lock in cache_root/.locks/: it is made once,
// and a copy one run is reading is never replaced under it.
// ctx.out_dir is ignored (the cache chooses the directory).
std::filesystem::path Materialize(const Generator& generator, const Params& params, const Context& ctx,
                                  const std::filesystem::path& cache_root);

}  // namespace pe::gen
