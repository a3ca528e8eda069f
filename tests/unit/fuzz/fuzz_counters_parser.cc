// Fuzzes the parser of the counters file a contender writes (docs/counters.md): every input must
// be read or refused with one error line, never an exception or a crash. A read file gives one
// value per declared counter, in their order, each finite, at least 0 and not -0; a refusal is one
// line that starts "line N '" or "no line for counter '", holds no control character but a tab
// (the contender's bytes are quoted, not echoed to a terminal) and stays short.
//   fuzz_counters_parser SECONDS SEED CORPUS_DIR...
#include <cmath>
#include <cstdlib>
#include <string>

#include "engine/run/counters_file.h"
#include "tests/unit/fuzz/mutator.h"

namespace {

const std::vector<pe::model::Counter> kDeclared = {{"ruby_objects", "objects", true, 1.0},
                                                   {"cache_misses", "misses", false, std::nullopt},
                                                   {"jit.compiled-methods", "methods", true, std::nullopt}};

std::string One(const std::string& text) {
  std::vector<pe::model::CounterValue> out;
  std::optional<std::string> error;
  try {
    error = pe::run::ParseCounterLines(text, kDeclared, out);
  } catch (const std::exception& e) {
    return std::string("an exception: ") + e.what();
  }
  if (!error) {
    if (out.size() != kDeclared.size()) return "read, but not one value per declared counter";
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].name != kDeclared[i].name) return "read, but not in the declared order";
      if (!std::isfinite(out[i].value) || out[i].value < 0 || std::signbit(out[i].value)) {
        return "read a value that is not finite and at least 0: " + std::to_string(out[i].value);
      }
    }
    return "";
  }
  const std::string& e = *error;
  if (e.rfind("line ", 0) != 0 && e.rfind("no line for counter '", 0) != 0) return "an error that names no line: " + e;
  for (const char c : e) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < ' ' && c != '\t') || byte == 0x7f)
      return "an error with a control character (byte " + std::to_string(byte) + ")";
  }
  if (e.size() > 1024) return "an error of " + std::to_string(e.size()) + " bytes";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: fuzz_counters_parser SECONDS SEED CORPUS_DIR...\n";
    return 2;
  }
  std::vector<std::filesystem::path> dirs(argv + 3, argv + argc);
  const auto corpus = pe::fuzz::ReadCorpus(dirs, ".txt");
  pe::fuzz::Mutator mutator(std::strtoull(argv[2], nullptr, 10), {"1" + std::string(400, '7'),
                                                                  "1e400",
                                                                  "-1",
                                                                  "-0",
                                                                  "0",
                                                                  "nan",
                                                                  "inf",
                                                                  "infinity",
                                                                  "0x10",
                                                                  "1e-400",
                                                                  " ",
                                                                  "\t",
                                                                  "\n",
                                                                  "\r",
                                                                  "\x1b[31m",
                                                                  "\x7f",
                                                                  std::string(1, '\0'),
                                                                  "\xff",
                                                                  "ruby_objects",
                                                                  "cache_misses",
                                                                  "objects",
                                                                  "misses",
                                                                  "jit.compiled-methods",
                                                                  std::string(300, 'x')});
  return pe::fuzz::Drive(corpus, mutator, std::atof(argv[1]), 1L << 40, "fuzz_counters_parser.crash", One);
}
