// A seeded mutation driver, for fuzzing without libFuzzer: inputs are corpus files changed by
// byte flips, insertions of tokens that broke parsers before (huge integers, "../", braces),
// deletions, duplications and splices of two files. Deterministic for a seed, bounded by
// wall time, so it runs inside ctest.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace pe::fuzz {

inline std::vector<std::string> ReadCorpus(const std::vector<std::filesystem::path>& dirs, const std::string& ext) {
  std::vector<std::filesystem::path> files;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ext) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());  // the same corpus, the same order, the same run
  std::vector<std::string> corpus;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    corpus.push_back(text.str());
  }
  return corpus;
}

class Mutator {
 public:
  Mutator(std::uint64_t seed, std::vector<std::string> tokens) : rng_(seed), tokens_(std::move(tokens)) {}

  std::string Mutate(const std::vector<std::string>& corpus) {
    std::string text = corpus[Below(corpus.size())];
    const int steps = 1 + static_cast<int>(Below(4));
    for (int i = 0; i < steps; ++i) Step(text, corpus);
    return text;
  }

 private:
  std::size_t Below(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  void Step(std::string& text, const std::vector<std::string>& corpus) {
    const std::size_t at = Below(text.size() + 1);
    switch (Below(6)) {
      case 0:  // flip a byte
        if (!text.empty()) text[Below(text.size())] ^= static_cast<char>(1 << Below(8));
        break;
      case 1:  // an interesting token
        text.insert(at, tokens_[Below(tokens_.size())]);
        break;
      case 2: {  // delete a range
        const std::size_t n = Below(std::min<std::size_t>(text.size() - std::min(at, text.size()), 64) + 1);
        text.erase(std::min(at, text.size()), n);
        break;
      }
      case 3: {  // duplicate a range
        const std::size_t n = Below(std::min<std::size_t>(text.size() - std::min(at, text.size()), 256) + 1);
        text.insert(at, text.substr(std::min(at, text.size()), n));
        break;
      }
      case 4: {  // splice: this file's head, another's tail
        const std::string& other = corpus[Below(corpus.size())];
        text = text.substr(0, at) + other.substr(Below(other.size() + 1));
        break;
      }
      default:  // replace a number-ish byte with a digit run
        text.insert(at, std::string(1 + Below(24), static_cast<char>('0' + Below(10))));
        break;
    }
  }

  std::mt19937_64 rng_;
  std::vector<std::string> tokens_;
};

// Runs `one` on mutated inputs for `seconds` (or `runs`, whichever ends first). `one` returns
// "" or a description of a bug; the first bug's input is written to `crash_path` and the run
// fails. Returns the process exit code.
inline int Drive(const std::vector<std::string>& corpus, Mutator& mutator, double seconds, long runs,
                 const std::filesystem::path& crash_path, const std::function<std::string(const std::string&)>& one) {
  if (corpus.empty()) {
    std::cerr << "fuzz: empty corpus\n";
    return 1;
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long done = 0;
  for (const std::string& seed : corpus) {  // every seed as it is, first
    if (std::string bug = one(seed); !bug.empty()) {
      std::ofstream(crash_path, std::ios::binary) << seed;
      std::cerr << "fuzz: bug on a corpus file: " << bug << "\n";
      return 1;
    }
  }
  while (done < runs && std::chrono::steady_clock::now() < end) {
    const std::string input = mutator.Mutate(corpus);
    ++done;
    if (std::string bug = one(input); !bug.empty()) {
      std::ofstream(crash_path, std::ios::binary) << input;
      std::cerr << "fuzz: bug after " << done << " inputs: " << bug << "\n(input written to " << crash_path.string()
                << ")\n";
      return 1;
    }
  }
  std::cout << "fuzz: " << done << " mutated inputs, " << corpus.size() << " corpus files, no bug\n";
  return 0;
}

}  // namespace pe::fuzz
