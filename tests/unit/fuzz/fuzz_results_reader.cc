// Fuzzes the results-file reader (what explain and compare read): every input must load or
// fail with one std::runtime_error naming the file, never another exception or a crash.
//   fuzz_results_reader SECONDS SEED CORPUS_DIR...
#include <cstdlib>
#include <string>

#include "engine/model/json.h"
#include "tests/unit/fuzz/mutator.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: fuzz_results_reader SECONDS SEED CORPUS_DIR...\n";
    return 2;
  }
  std::vector<std::filesystem::path> dirs(argv + 3, argv + argc);
  const auto corpus = pe::fuzz::ReadCorpus(dirs, ".json");
  pe::fuzz::Mutator mutator(
      std::strtoull(argv[2], nullptr, 10),
      {"1" + std::string(400, '7'), "1e400", "-1", "0", "null", "\"NaN\"", "\"Infinity\"", "[]", "{}", "\"\"", "true",
       "9223372036854775808", "-9223372036854775809", "0.0", ",", ":", "\"samples\": [", "\\u0000", "\xff"});
  return pe::fuzz::Drive(corpus, mutator, std::atof(argv[1]), 1L << 40, "fuzz_results_reader.crash",
                         [](const std::string& text) -> std::string {
                           try {
                             pe::model::ParseResultsText(text, "fuzz.json");
                           } catch (const std::runtime_error& e) {
                             const std::string what = e.what();
                             if (what.rfind("fuzz.json: ", 0) != 0) return "an error not naming the file: " + what;
                           } catch (const std::exception& e) {
                             return std::string("an exception that is not a runtime_error: ") + e.what();
                           }
                           return "";
                         });
}
