// `perfengine generate SPEC --out DIR`: a spec's fixtures written out for inspection.
#include <fmt/format.h>

#include <functional>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "engine/cli/cli_options.h"
#include "engine/cli/command_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/subcommands.h"
#include "engine/run/fixture_child.h"
#include "engine/run/path_component.h"
#include "engine/spec/programs.h"
#include "engine/spec/spec_error.h"
#include "engine/units/units.h"
#include "generators/generator.h"

namespace pe::cli {

using model::ExitCode;
using model::Settings;
using units::FormatCount;

namespace fs = std::filesystem;

ExitCode GenerateCommand(const CommonOptions& common, const std::string& out_dir) {
  // Fixtures are a pure function of the spec: a spec of workloads alone will do, and no
  // contender's program is needed (none runs).
  spec::Spec spec = ParseSpecAt(common.spec, spec::SpecUse::kFixtures);
  for (const std::string& assignment : common.contenders) spec::ApplyContenderOverride(spec, assignment);
  const run::Options options = RunOptions(common);
  Settings settings = spec.settings;
  if (options.scale) settings.scale = *options.scale;
  // Every directory is checked before anything is written.
  std::vector<const spec::Workload*> generated;
  std::vector<fs::path> dirs;
  for (const spec::Workload* w : run::SelectWorkloads(spec, options)) {
    if (w->fixture.kind != spec::Fixture::Kind::kGenerator) continue;
    const fs::path dir = fs::path(out_dir) / run::PathComponent(w->name);
    if (fs::exists(dir) && !fs::is_empty(dir)) {
      throw spec::UsageError(fmt::format("--out: {} exists and is not empty", dir.string()));
    }
    generated.push_back(w);
    dirs.push_back(dir);
  }
  // Independent fixtures are written side by side, each in a child of its own, as a run makes
  // them (run::kFixturesAtOnce).
  std::vector<std::function<fs::path()>> makes;
  for (std::size_t i = 0; i < generated.size(); ++i) {
    makes.push_back([&, i] {
      const spec::Workload& w = *generated[i];
      auto generator = gen::BuiltinRegistry().Create(w.fixture.generator);
      gen::Context ctx;
      ctx.scale = settings.scale * w.scale_factor;
      ctx.seed = settings.seed;
      ctx.out_dir = dirs[i];
      fs::create_directories(dirs[i]);
      generator->Generate(w.fixture.params, ctx);
      return dirs[i];
    });
  }
  const std::vector<run::MadeInChild> made = run::MakeInChildren(makes, run::kFixturesAtOnce);
  for (std::size_t i = 0; i < made.size(); ++i) {
    if (made[i].state == run::MadeInChild::State::kFailed) throw std::runtime_error(made[i].error);
    if (made[i].state != run::MadeInChild::State::kMade) continue;
    std::size_t files = 0;
    const auto bytes = DirectorySize(dirs[i], &files);
    std::cout << fmt::format("{}: {}, {} in {}\n", generated[i]->name,
                             FormatCount(static_cast<long long>(files), "file"), Size(bytes), dirs[i].string());
  }
  return ExitCode::kPass;
}

Subcommand AddGenerate(CLI::App& app) {
  auto common = std::make_shared<CommonOptions>();
  auto out_dir = std::make_shared<std::string>();
  CLI::App* generate =
      app.add_subcommand("generate", "Write a spec's fixtures to a directory for inspection (contenders optional)");
  AddSpecOptions(generate, *common);
  generate->add_option("--out", *out_dir, "Directory to write the fixtures into")->required();
  return {generate, [=] { return static_cast<int>(GenerateCommand(*common, *out_dir)); }};
}

}  // namespace pe::cli
