// The command line. main() only calls Run(); every subcommand lives in a library tests link.
#pragma once

namespace pe::cli {

// Parses argv, runs the subcommand and returns the process exit code (docs/exit-codes.md).
int Run(int argc, char** argv);

}  // namespace pe::cli
