#include "engine/cli/cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "engine/cli/subcommands.h"
#include "engine/model/result.h"
#include "engine/report/text.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/spec_error.h"
#include "engine/spec/suggest.h"

namespace pe::cli {

using model::ExitCode;

namespace {

// Output that never arrived (a full disk, /dev/full) once left the exit at 0. Everything
// written to stdout is flushed here, and a failure of any write to it is exit 2 (130 stands).
// No errno is named: a flush mid-run may have failed first and its errno is long gone.
int CheckStdout(int code) {
  std::cout.flush();
  const bool stream_failed = !std::cout;
  const bool flush_failed = std::fflush(stdout) != 0;
  if (!stream_failed && !flush_failed && std::ferror(stdout) == 0) return code;
  std::cerr << "perfengine: standard output: write failed; the output is incomplete\n";
  return code == static_cast<int>(ExitCode::kInterrupted) ? code : static_cast<int>(ExitCode::kRunFailed);
}

int RunCommandLine(int argc, char** argv) {
  CLI::App app{
      "perfengine: declarative performance gates.\n"
      "Runs contenders on generated workloads, checks that they agree, times them in\n"
      "interleaved rounds and judges the figures against the spec's thresholds.\n"
      "Exit codes: 0 pass, 1 a threshold missed, 2 the run failed or bad input, 3 a claim unresolved, 130 "
      "interrupted.",
      "perfengine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("perfengine ") + PERFENGINE_VERSION);

  // The dispatch table, in --help's order; completion and man last, as they read the rest.
  static constexpr AddSubcommand kSubcommands[] = {
      AddRun,    AddInit,    AddValidate, AddList,       AddGenerate,  AddExplain,    AddCompare, AddMerge,
      AddReport, AddHistory, AddBisect,   AddBisectStep, AddCalibrate, AddCompletion, AddMan,
  };
  std::vector<Subcommand> subcommands;
  for (AddSubcommand add : kSubcommands) subcommands.push_back(add(app));

  // CLI11 would say only "The following arguments were not expected"; name the command.
  if (argc >= 2 && argv[1][0] != '-') {
    std::vector<std::string> commands;  // offered; hidden ones (bisect-step) are still accepted
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      if (!sub->get_group().empty()) commands.push_back(sub->get_name());
    }
    if (!known) {
      std::cerr << fmt::format("perfengine: unknown command '{}'{}; the commands are {}\n", argv[1],
                               spec::DidYouMean(argv[1], commands), fmt::join(commands, ", "));
      return static_cast<int>(ExitCode::kRunFailed);
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::kRunFailed);
  }

  try {
    for (const Subcommand& sub : subcommands) {
      if (!*sub.cmd) continue;
      if (sub.handles_interrupts) interrupt::InstallHandlers();
      return sub.run();
    }
  } catch (const spec::SpecError& e) {
    // Errors quote the spec, the environment and contenders' stderr: never raw to a terminal.
    std::cerr << report::Printable(e.what()) << "\n";
    return static_cast<int>(ExitCode::kRunFailed);
  } catch (const spec::UsageError& e) {
    std::cerr << "perfengine: " << report::Printable(e.what()) << "\n";
    return static_cast<int>(ExitCode::kRunFailed);
  } catch (const std::exception& e) {
    std::cerr << "perfengine: " << report::Printable(e.what()) << "\n";
    return static_cast<int>(ExitCode::kRunFailed);
  }
  return static_cast<int>(ExitCode::kRunFailed);
}

}  // namespace

int Run(int argc, char** argv) { return CheckStdout(RunCommandLine(argc, argv)); }

}  // namespace pe::cli
