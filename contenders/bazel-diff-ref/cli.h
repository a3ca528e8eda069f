// The bazel-diff command line: parse, run one subcommand, turn any error into one line.
#pragma once

#include <string>
#include <vector>

namespace pe::refdiff {

// What distinguishes the two builds of the same sources, chosen in main.cc.
struct Flavour {
  std::string name;         // printed by --version: "bazel-diff-ref <name> 0.1.0"
  int default_threads = 1;  // --threads when not given; 0 = all cores
};

// Exit codes: 0 done, 1 anything failed (bad usage, bad input, bazel failed), after one line on
// stderr starting "bazel-diff-ref: ".
int Run(const std::vector<std::string>& args, const Flavour& flavour);

}  // namespace pe::refdiff
