#include "engine/run/fixture_preparer.h"

#include <fmt/format.h>

#include "engine/run/experiment.h"
#include "engine/run/fixture_child.h"
#include "generators/fixture_cache.h"
#include "generators/generator.h"
#include "generators/params.h"

namespace pe::run {

namespace fs = std::filesystem;
using model::Settings;

fs::path PrepareFixture(const spec::Spec& spec, const spec::Workload& workload, const Settings& settings,
                        const fs::path& cache_root) {
  switch (workload.fixture.kind) {
    case spec::Fixture::Kind::kNone:
      return {};
    case spec::Fixture::Kind::kDirectory:
      return fs::absolute(workload.fixture.directory).lexically_normal();
    case spec::Fixture::Kind::kGenerator: {
      auto generator = gen::BuiltinRegistry().Create(workload.fixture.generator);
      gen::Context ctx;
      ctx.scale = settings.scale;
      ctx.seed = settings.seed;
      const fs::path root = cache_root.empty() ? gen::DefaultCacheRoot() : cache_root;
      return MakeInChild([&] { return gen::Materialize(*generator, workload.fixture.params, ctx, root); },
                         [&] { gen::SweepPartials(root); });
    }
  }
  return {};
}

std::optional<std::string> FixtureNote(const spec::Workload& workload, const Settings& settings,
                                       const fs::path& cache_root) {
  if (workload.fixture.kind != spec::Fixture::Kind::kGenerator) return std::nullopt;
  auto generator = gen::BuiltinRegistry().Create(workload.fixture.generator);
  gen::Context ctx;
  ctx.scale = settings.scale;
  ctx.seed = settings.seed;
  const fs::path root = cache_root.empty() ? gen::DefaultCacheRoot() : cache_root;
  const fs::path dir = gen::FixtureDirectory(*generator, workload.fixture.params, ctx, root);
  if (gen::IsCached(dir)) return std::nullopt;
  std::string size;
  if (auto it = workload.fixture.params.find("targets"); it != workload.fixture.params.end()) {
    if (const auto* n = std::get_if<std::int64_t>(&it->second))
      size = fmt::format(", {} targets", gen::Scaled(*n, ctx.scale));
  }
  // Another run making the same fixture holds its lock; this one waits for it, not generates.
  return fmt::format(
      "{} for {} ({}{}); it is cached for later runs",
      gen::IsBeingMade(dir) ? "waiting for another process to generate the fixture" : "generating fixture",
      workload.name, workload.fixture.generator, size);
}

namespace internal {

FixturePreparer::Status FixturePreparer::Prepare(const spec::Workload& w, model::Failure* failure) {
  try {
    model::Settings at_point = settings_;
    at_point.scale *= w.scale_factor;
    if (progress_) {
      if (auto note = FixtureNote(w, at_point, cache_root_)) progress_->Note(*note);
    }
    fixtures_[w.name] = PrepareFixture(spec_, w, at_point, cache_root_);
    const fs::path& root = fixtures_[w.name];
    if (w.fixture.kind == spec::Fixture::Kind::kGenerator && !guards_.count(root)) {
      guards_[root] = std::make_unique<FixtureGuard>(root);
    }
  } catch (const FixtureInterrupted&) {
    return Status::kInterrupted;
  } catch (const std::exception& e) {
    *failure = {model::Failure::Kind::kFixture, w.name, "", fmt::format("preparing the fixture failed: {}", e.what()),
                ""};
    return Status::kFailed;
  }
  return Status::kReady;
}

const fs::path& FixturePreparer::DirectoryOf(const spec::Workload& w) const {
  static const fs::path kNone;
  const auto it = fixtures_.find(w.name);
  return it == fixtures_.end() ? kNone : it->second;
}

std::optional<std::string> FixturePreparer::Written(const spec::Workload& w) {
  const auto guard = guards_.find(DirectoryOf(w));
  if (guard == guards_.end()) return std::nullopt;
  const std::optional<std::string> change = guard->second->Changed(w.serve);
  if (!change) return std::nullopt;
  return fmt::format("wrote into the fixture {}: {}", guard->first.string(), *change);
}

}  // namespace internal
}  // namespace pe::run
