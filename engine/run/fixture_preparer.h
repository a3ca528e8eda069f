// The run's fixtures: each workload's materialised (generated into the cache, in a child the
// engine can interrupt; independent ones side by side, kFixturesAtOnce at a time, see
// fixture_child.h) before anything runs, and each generated one watched for writes while
// contenders run (fixture_guard.h), so the contender that wrote into it is named.
// Not a public interface: use experiment.h.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/run/fixture_guard.h"
#include "engine/run/progress.h"
#include "engine/spec/spec.h"

namespace pe::run::internal {

class FixturePreparer {
 public:
  // `settings` are the run's (a workload's scale_factor is applied to them); an empty
  // `cache_root` is the default cache; `progress` (may be null) gets the note on a fixture
  // still to generate.
  FixturePreparer(const spec::Spec& spec, const model::Settings& settings, std::filesystem::path cache_root,
                  Progress* progress)
      : spec_(spec), settings_(settings), cache_root_(std::move(cache_root)), progress_(progress) {}

  enum class Status { kReady, kFailed, kInterrupted };

  // Materialises w's fixture and starts watching it when it is generated. kFailed leaves the
  // fixture failure (naming the workload) in *failure.
  Status Prepare(const spec::Workload& w, model::Failure* failure);

  // Prepare for every workload, in order, the generated fixtures kFixturesAtOnce at a time
  // (workloads that name the same fixture share one child). kFailed leaves the failure of the
  // first workload (in this order) whose fixture failed in *failure and its index in *failed;
  // no fixture is started after one failed.
  Status PrepareAll(const std::vector<const spec::Workload*>& workloads, model::Failure* failure, std::size_t* failed);

  // Where w's fixture is; empty when it has none or was not prepared.
  const std::filesystem::path& DirectoryOf(const spec::Workload& w) const;

  // What was written into w's generated fixture since the last look, as "wrote into the
  // fixture DIR: CHANGE"; nullopt when nothing was, or the fixture is not a generated one.
  std::optional<std::string> Written(const spec::Workload& w);

 private:
  const spec::Spec& spec_;
  const model::Settings& settings_;
  std::filesystem::path cache_root_;
  Progress* progress_;
  std::map<std::string, std::filesystem::path> fixtures_;                  // by workload name
  std::map<std::filesystem::path, std::unique_ptr<FixtureGuard>> guards_;  // one per generated fixture
};

}  // namespace pe::run::internal
