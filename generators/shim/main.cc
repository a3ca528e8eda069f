// The replay `bazel` placed in fixtures; see shim.h.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>

#include "generators/shim/shim.h"

int main(int argc, char** argv) {
  try {
    const auto exe = std::filesystem::read_symlink("/proc/self/exe");
    const pe::shim::Config config = pe::shim::LoadConfig(exe.parent_path());
    return pe::shim::Run(config, std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perfengine-bazel-shim: %s\n", e.what());
    return pe::shim::kUnsupported;
  }
}
