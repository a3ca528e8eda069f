// Test helper: runs one built-in generator into a directory, so scripts (the independent
// Python decoder) can inspect real output.
//   perfengine-gen-fixture NAME OUT_DIR SEED SCALE [key=value ...]
// Values: true/false are booleans, integers and decimals are numbers, anything else a string.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "generators/generator.h"

namespace {

pe::gen::ParamValue ParseValue(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  std::size_t used = 0;
  try {
    const long long integer = std::stoll(text, &used);
    if (used == text.size()) return static_cast<std::int64_t>(integer);
    const double number = std::stod(text, &used);
    if (used == text.size()) return number;
  } catch (const std::exception&) {
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s NAME OUT_DIR SEED SCALE [key=value ...]\n", argv[0]);
    return 2;
  }
  try {
    auto generator = pe::gen::BuiltinRegistry().Create(argv[1]);
    if (generator == nullptr) {
      std::fprintf(stderr, "unknown generator %s\n", argv[1]);
      return 2;
    }
    pe::gen::Params params;
    for (int i = 5; i < argc; ++i) {
      const std::string arg = argv[i];
      const auto eq = arg.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "expected key=value, got %s\n", argv[i]);
        return 2;
      }
      params[arg.substr(0, eq)] = ParseValue(arg.substr(eq + 1));
    }
    generator->Check(params);
    pe::gen::Context ctx;
    ctx.seed = std::stoull(argv[3]);
    ctx.scale = std::stod(argv[4]);
    ctx.out_dir = argv[2];
    std::filesystem::create_directories(ctx.out_dir);
    generator->Generate(params, ctx);
    return 0;
  } catch (const pe::gen::ParamError& e) {
    std::fprintf(stderr, "%s: %s\n", e.key.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
