// The bazel-diff command line: parse, run one subcommand, turn any error into one line.
#pragma once

#include <string>
#include <vector>

namespace pe::refdiff {

// What distinguishes the two builds of the same sources, chosen in main.cc.
struct Flavour {
  std::string name;         // printed by --version: "bazel-diff-ref <name> 0.1.0"
  int default_threads = 1;  // --threads when not given; 0 = all cores
  // get-impacted-targets reads hashes files with ParseFlatHashFile (views into the file's bytes,
  // both files and the bazel question at once) instead of ParseHashFile (a JSON document).
  bool flat_hash_files = false;
};

// The two builds (docs/reference-contender.md); main.cc runs the one CMake names.
// baseline: one thread, ParseHashFile; glibc malloc.
inline Flavour BaselineFlavour() { return {"baseline", 1, false}; }
// candidate: all cores, ParseFlatHashFile; linked with mimalloc.
inline Flavour CandidateFlavour() { return {"candidate", 0, true}; }

// Exit codes: 0 done, 1 anything failed (bad usage, bad input, bazel failed), after one line on
// stderr starting "bazel-diff-ref: ".
int Run(const std::vector<std::string>& args, const Flavour& flavour);

}  // namespace pe::refdiff
