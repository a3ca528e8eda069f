#include "engine/run/fixture_preparer.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

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
  // The manifest alone: Materialize verifies every file next, so checking them here too was a
  // second full pass over the cache on every run (the flagship: 160,000 files).
  if (gen::HasManifest(dir)) return std::nullopt;
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

namespace {

model::Failure FixtureFailure(const spec::Workload& w, std::string_view what) {
  return {model::Failure::Kind::kFixture, w.name, "", fmt::format("preparing the fixture failed: {}", what), ""};
}

}  // namespace

FixturePreparer::Status FixturePreparer::Prepare(const spec::Workload& w, model::Failure* failure) {
  std::size_t failed = 0;
  return PrepareAll({&w}, failure, &failed);
}

FixturePreparer::Status FixturePreparer::PrepareAll(const std::vector<const spec::Workload*>& workloads,
                                                    model::Failure* failure, std::size_t* failed) {
  constexpr std::size_t kNoJob = ~std::size_t{0};
  // One job per distinct generated fixture: a child of its own makes it (in the cache).
  struct Job {
    const spec::Workload* workload;  // the first that names it
    model::Settings at_point;
  };
  std::vector<Job> jobs;
  std::vector<fs::path> job_dirs;
  std::vector<std::size_t> job_of(workloads.size(), kNoJob);
  const fs::path root = cache_root_.empty() ? gen::DefaultCacheRoot() : cache_root_;
  // A workload whose fixture cannot even be named fails there; the ones before it are made.
  std::optional<std::pair<std::size_t, model::Failure>> early;
  for (std::size_t i = 0; i < workloads.size() && !early; ++i) {
    const spec::Workload& w = *workloads[i];
    try {
      model::Settings at_point = settings_;
      at_point.scale *= w.scale_factor;
      if (w.fixture.kind != spec::Fixture::Kind::kGenerator) {
        fixtures_[w.name] = PrepareFixture(spec_, w, at_point, cache_root_);
        continue;
      }
      auto generator = gen::BuiltinRegistry().Create(w.fixture.generator);
      gen::Context ctx;
      ctx.scale = at_point.scale;
      ctx.seed = at_point.seed;
      const fs::path dir = gen::FixtureDirectory(*generator, w.fixture.params, ctx, root);
      const auto same = std::find(job_dirs.begin(), job_dirs.end(), dir);
      if (same != job_dirs.end()) {
        job_of[i] = static_cast<std::size_t>(same - job_dirs.begin());
        continue;
      }
      job_of[i] = jobs.size();
      jobs.push_back({&w, at_point});
      job_dirs.push_back(dir);
    } catch (const std::exception& e) {
      early.emplace(i, FixtureFailure(w, e.what()));
    }
  }

  std::vector<std::function<fs::path()>> makes;
  for (const Job& job : jobs) {
    makes.push_back([&job, &root] {
      auto generator = gen::BuiltinRegistry().Create(job.workload->fixture.generator);
      gen::Context ctx;
      ctx.scale = job.at_point.scale;
      ctx.seed = job.at_point.seed;
      return gen::Materialize(*generator, job.workload->fixture.params, ctx, root);
    });
  }
  std::vector<MadeInChild> made;
  try {
    made = MakeInChildren(
        makes, kFixturesAtOnce, [&] { gen::SweepPartials(root); },
        [&](std::size_t j) {
          if (!progress_) return;
          if (auto note = FixtureNote(*jobs[j].workload, jobs[j].at_point, cache_root_)) progress_->Note(*note);
        });
  } catch (const FixtureInterrupted&) {
    return Status::kInterrupted;
  } catch (const std::exception& e) {  // no child could be started: the first generated fixture's failure
    const std::size_t first = early ? early->first : workloads.size();
    for (std::size_t i = 0; i < first; ++i) {
      if (job_of[i] == kNoJob) continue;
      *failure = FixtureFailure(*workloads[i], e.what());
      *failed = i;
      return Status::kFailed;
    }
  }

  for (std::size_t i = 0; i < workloads.size(); ++i) {
    if (job_of[i] == kNoJob) continue;
    const MadeInChild& outcome = made[job_of[i]];
    if (outcome.state == MadeInChild::State::kFailed) {
      *failure = FixtureFailure(*workloads[i], outcome.error);
      *failed = i;
      return Status::kFailed;
    }
    if (outcome.state != MadeInChild::State::kMade) continue;
    try {
      fixtures_[workloads[i]->name] = outcome.dir;
      if (!guards_.count(outcome.dir)) guards_[outcome.dir] = std::make_unique<FixtureGuard>(outcome.dir);
    } catch (const std::exception& e) {
      *failure = FixtureFailure(*workloads[i], e.what());
      *failed = i;
      return Status::kFailed;
    }
  }
  if (early) {
    *failure = std::move(early->second);
    *failed = early->first;
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
