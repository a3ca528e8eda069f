// `perfengine list SPEC`: the workloads, what each exercises, and whether its fixture is cached.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <variant>

#include "engine/cli/cli_options.h"
#include "engine/cli/command_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/subcommands.h"
#include "engine/report/text.h"
#include "engine/units/units.h"
#include "generators/fixture_cache.h"
#include "generators/generator.h"

namespace pe::cli {

using model::ExitCode;
using report::OneLine;
using units::FormatCount;

namespace fs = std::filesystem;

namespace {

std::string ParamText(const gen::ParamValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          return fmt::format("\"{}\"", v);
        else if constexpr (std::is_same_v<T, bool>)
          return v ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::vector<std::string>>)
          return fmt::format("[{}]", fmt::join(v, ", "));
        else
          return fmt::format("{}", v);
      },
      value);
}

}  // namespace

ExitCode ListCommand(const CommonOptions& common) {
  const spec::Spec spec = LoadSpec(common);
  const run::Options options = RunOptions(common);
  const fs::path cache = options.cache_root;
  for (const spec::Workload* w : run::SelectWorkloads(spec, options)) {
    // Spec text, printed as the reports print it: no control sequence reaches the terminal (a
    // sweep's workload names carry its values).
    std::cout << OneLine(w->name) << (w->gate ? "" : " (not gated)") << "\n";
    if (!w->description.empty()) std::cout << "    " << OneLine(w->description) << "\n";
    switch (w->fixture.kind) {
      case spec::Fixture::Kind::kNone:
        break;
      case spec::Fixture::Kind::kDirectory: {
        std::size_t files = 0;
        const auto bytes = DirectorySize(w->fixture.directory, &files);
        std::cout << fmt::format("    fixture: directory {} ({}, {})\n", OneLine(w->fixture.directory.string()),
                                 FormatCount(static_cast<long long>(files), "file"), Size(bytes));
        break;
      }
      case spec::Fixture::Kind::kGenerator: {
        std::vector<std::string> params;
        for (const auto& [k, v] : w->fixture.params) params.push_back(fmt::format("{} = {}", k, ParamText(v)));
        std::cout << fmt::format("    fixture: generator {}{}\n", w->fixture.generator,
                                 params.empty() ? "" : OneLine(fmt::format(" ({})", fmt::join(params, ", "))));
        auto generator = gen::BuiltinRegistry().Create(w->fixture.generator);
        gen::Context ctx;
        ctx.scale = options.scale.value_or(spec.settings.scale) * w->scale_factor;
        ctx.seed = spec.settings.seed;
        const fs::path dir =
            gen::FixtureDirectory(*generator, w->fixture.params, ctx, cache.empty() ? gen::DefaultCacheRoot() : cache);
        if (gen::IsCached(dir)) {
          std::size_t files = 0;
          const auto bytes = DirectorySize(dir, &files);
          std::cout << fmt::format("    cached: {}, {} in {}\n", FormatCount(static_cast<long long>(files), "file"),
                                   Size(bytes), OneLine(dir.string()));
        } else {
          std::cout << "    not generated yet (perfengine generate SPEC --out DIR writes it for inspection)\n";
        }
        break;
      }
    }
  }
  return ExitCode::kPass;
}

Subcommand AddList(CLI::App& app) {
  auto common = std::make_shared<CommonOptions>();
  CLI::App* list = app.add_subcommand("list", "List a spec's workloads and what each exercises");
  AddSpecOptions(list, *common);
  return {list, [=] { return static_cast<int>(ListCommand(*common)); }};
}

}  // namespace pe::cli
