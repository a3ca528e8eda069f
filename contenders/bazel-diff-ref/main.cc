// bazel-diff-ref-baseline and bazel-diff-ref-candidate: the same program, built twice
// (see CMakeLists.txt for what differs).
#include <string>
#include <vector>

#include "cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return pe::refdiff::Run(args, pe::refdiff::PE_REFDIFF_FLAVOUR());
}
