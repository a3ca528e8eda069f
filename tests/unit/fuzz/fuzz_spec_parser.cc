// Fuzzes the spec parser: every input must parse or fail with one SpecError whose text starts
// with the file's name and a line:column, never another exception, a crash or a hang.
//   fuzz_spec_parser SECONDS SEED CORPUS_DIR...
#include <cstdlib>
#include <string>

#include "engine/spec/spec.h"
#include "tests/unit/fuzz/mutator.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: fuzz_spec_parser SECONDS SEED CORPUS_DIR...\n";
    return 2;
  }
  std::vector<std::filesystem::path> dirs(argv + 3, argv + argc);
  const auto corpus = pe::fuzz::ReadCorpus(dirs, ".toml");
  pe::fuzz::Mutator mutator(std::strtoull(argv[2], nullptr, 10), {"4294967296",
                                                                  "2147483648",
                                                                  "-9223372036854775808",
                                                                  "9223372036854775807",
                                                                  "1e400",
                                                                  "nan",
                                                                  "inf",
                                                                  "-0",
                                                                  "\"../../x\"",
                                                                  "{",
                                                                  "}",
                                                                  "{{",
                                                                  "[",
                                                                  "]",
                                                                  "[[",
                                                                  "\"",
                                                                  "'",
                                                                  "=",
                                                                  "\n",
                                                                  "{fixture}",
                                                                  "{port}",
                                                                  "{threads}",
                                                                  "[workloads.w.sweep]\nthreads = [1, 2]\n",
                                                                  "kind = \"serve\"\n",
                                                                  "\x00",
                                                                  "\xff",
                                                                  "rounds = ",
                                                                  "[run]\n",
                                                                  "timeout = "});
  return pe::fuzz::Drive(corpus, mutator, std::atof(argv[1]), 1L << 40, "fuzz_spec_parser.crash",
                         [](const std::string& text) -> std::string {
                           try {
                             pe::spec::ParseSpecText(text, "fuzz.toml");
                           } catch (const pe::spec::SpecError& e) {
                             const std::string what = e.what();
                             if (what.rfind("fuzz.toml:", 0) != 0) return "a SpecError without a position: " + what;
                           } catch (const pe::spec::UsageError&) {
                           } catch (const std::exception& e) {
                             return std::string("an exception that is not a SpecError: ") + e.what();
                           }
                           return "";
                         });
}
