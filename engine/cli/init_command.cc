// `perfengine init` and `perfengine run --quick`: a spec from two or more commands, checked the way
// `validate` checks one before it is written, so `perfengine run` on it works at once.
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "engine/cli/commands.h"
#include "engine/cli/init_spec.h"
#include "engine/cli/parameter_lists.h"
#include "engine/cli/subcommands.h"
#include "engine/cli/validate_checks.h"
#include "engine/measure/scratch_dir.h"
#include "engine/model/atomic_file.h"
#include "engine/run/scratch.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/programs.h"
#include "engine/spec/spec.h"

namespace pe::cli {

using model::ExitCode;
using model::WriteFileAtomically;
using runner::MakeSystemProcessRunner;

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kParities = {"exact", "sorted-lines", "json", "json-map", "none"};

}  // namespace

std::string CheckedInitSpec(const InitFlags& flags, const fs::path& out) {
  if (std::find(kParities.begin(), kParities.end(), flags.parity) == kParities.end()) {
    throw spec::UsageError(
        fmt::format("--parity: '{}' is not a parity; expected one of exact, sorted-lines, json, "
                    "json-map, none",
                    flags.parity));
  }
  const std::vector<ParameterList> lists = CheckParameterLists(flags.parameters, flags.commands);
  InitInput input;
  input.commands = MarkParameters(flags.commands, lists);
  input.parity = flags.parity;
  input.plain_startup.assign(flags.commands.size(), true);
  input.spec_dir = out.parent_path().empty() ? "." : out.parent_path().string();
  const std::vector<std::string> names = InitNames(input);
  auto runner = MakeSystemProcessRunner();
  // A program's `--version` is its start-up command unless it fails here: then the spec
  // says so and measures no start-up, rather than fail `validate`.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string text = UnmarkParameters(InitSpecText(input), lists);
    spec::Spec spec = spec::ParseSpecText(text, out);
    try {
      spec::CheckPrograms(spec);
    } catch (const spec::SpecError& e) {
      throw spec::UsageError(fmt::format("init: {}", e.message()));
    }
    std::vector<spec::SpecError> errors = CheckByRunning(spec, *runner);
    if (errors.empty()) return text;
    bool changed = false;
    for (const spec::SpecError& e : errors) {
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (e.message().rfind(fmt::format("contender '{}': its startup command", names[i]), 0) == 0 &&
            input.plain_startup[i]) {
          input.plain_startup[i] = false;
          changed = true;
        }
      }
    }
    if (!changed) throw spec::SpecError::Several(std::move(errors));
  }
  throw spec::UsageError("init: the start-up commands still fail");
}

ExitCode InitCommand(const InitFlags& flags) {
  const fs::path out = flags.out;
  std::error_code ec;
  // symlink_status: a link counts as there even when it dangles, or init would create its
  // target, wherever it points.
  const fs::file_status status = fs::symlink_status(out, ec);
  if (fs::exists(status) && !flags.force) {
    throw spec::UsageError(
        fmt::format("init: {} exists; pass --force to replace it, or --out to write elsewhere", out.string()));
  }
  const std::string text = CheckedInitSpec(flags, out);
  // --force replaces a link itself; WriteFileAtomically would write through it to its target.
  if (fs::is_symlink(status) && !fs::remove(out, ec) && ec) {
    throw spec::UsageError(fmt::format("init: cannot replace the link {}: {}", out.string(), ec.message()));
  }
  WriteFileAtomically(out, text);
  InitInput input;
  input.commands = MarkParameters(flags.commands, CheckParameterLists(flags.parameters, flags.commands));
  const std::vector<std::string> names = InitNames(input);
  std::string roles = fmt::format("baseline '{}' ({})", names[0], flags.commands[0]);
  for (std::size_t i = 1; i < names.size(); ++i)
    roles += fmt::format(", candidate '{}' ({})", names[i], flags.commands[i]);
  std::cout << fmt::format("wrote {}: {}\n", out.string(), roles);
  std::cout << fmt::format("next: perfengine run {} --json results.json && perfengine explain results.json\n",
                           out.string());
  return ExitCode::kPass;
}

QuickSpec::QuickSpec(const InitFlags& flags) {
  auto made = measure::MakePrivateDirectory(run::ScratchParent(), "perfengine-quick-");
  if (!made) throw std::runtime_error("--quick: cannot create a temporary directory");
  dir_ = *made;
  path_ = dir_ / "quick.toml";
  WriteFileAtomically(path_, CheckedInitSpec(flags, path_));
}

QuickSpec::~QuickSpec() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

Subcommand AddInit(CLI::App& app) {
  auto flags = std::make_shared<InitFlags>();
  CLI::App* init =
      app.add_subcommand("init", "Write a starting spec from two or more commands: init 'CMD A' 'CMD B' ['CMD C' ...]");
  init->add_option("commands", flags->commands, "The baseline's command, then each candidate's (quote each)")
      ->required()
      ->expected(2, -1);
  init->add_option("--out,-o", flags->out, "Where to write the spec (default: perfengine.toml)");
  init->add_option("--parity", flags->parity,
                   "How outputs are compared: exact (default), sorted-lines, json, json-map, none (time only)");
  init->add_flag("--force", flags->force, "Replace the file if it exists");
  AddParameterListOption(init, flags->parameters);
  return {init, [=] { return static_cast<int>(InitCommand(*flags)); }};
}

}  // namespace pe::cli
