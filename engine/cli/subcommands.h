// The dispatch table's rows: each subcommand adds its options to the command line and returns
// what runs it once parsed (engine/cli/*_command.cc, one file per subcommand or pair).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

namespace pe::cli {

struct Subcommand {
  CLI::App* cmd = nullptr;          // parsed when *cmd is true
  std::function<int()> run;         // the exit code
  bool handles_interrupts = false;  // installs the SIGINT/SIGTERM handlers before running
};

using AddSubcommand = Subcommand (*)(CLI::App& app);

Subcommand AddRun(CLI::App& app);
Subcommand AddInit(CLI::App& app);
Subcommand AddValidate(CLI::App& app);
Subcommand AddList(CLI::App& app);
Subcommand AddGenerate(CLI::App& app);
Subcommand AddExplain(CLI::App& app);
Subcommand AddCompare(CLI::App& app);
Subcommand AddMerge(CLI::App& app);
Subcommand AddReport(CLI::App& app);
Subcommand AddHistory(CLI::App& app);
Subcommand AddBisect(CLI::App& app);
Subcommand AddBisectStep(CLI::App& app);
Subcommand AddCalibrate(CLI::App& app);
// Generated from the whole command line (cli_docs.h), so added last; listed in --help.
Subcommand AddCompletion(CLI::App& app);
Subcommand AddMan(CLI::App& app);

}  // namespace pe::cli
