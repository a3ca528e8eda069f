// text_lines: lines.txt, lines of words whose frequencies follow Zipf's law (the k-th most
// common word appears about 1/k^s as often as the first, as in natural text: Zipf 1949;
// s near 1 for English), for sort, grep, wc, uniq and friends. Words are pseudo-words made
// of syllables, shorter for common ranks, so line lengths look like prose, not like hashes.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generators/builtin_generators.h"
#include "generators/file_io.h"
#include "generators/params.h"
#include "generators/rng.h"

namespace pe::gen {
namespace {

constexpr std::uint64_t kTextLinesStream = 0x746578742d6c696e;  // "text-lin"

struct Options {
  std::int64_t lines = 100000;
  std::int64_t words_per_line = 10;
  std::int64_t vocabulary = 10000;
  double zipf = 1.0;
};

// The rank-th word of the vocabulary: 1 syllable for the first few ranks, growing with
// log(rank), each syllable a consonant (or two) and a vowel; distinct by construction
// (the syllables spell the rank in base 21 * 5).
std::string Word(std::uint64_t rank) {
  static constexpr std::string_view kConsonants = "bcdfghjklmnprstvwxyzq";
  static constexpr std::string_view kVowels = "aeiou";
  std::string word;
  std::uint64_t n = rank;
  do {
    const std::uint64_t syllable = n % (kConsonants.size() * kVowels.size());
    word += kConsonants[syllable / kVowels.size()];
    word += kVowels[syllable % kVowels.size()];
    n /= kConsonants.size() * kVowels.size();
  } while (n > 0);
  return word;
}

class TextLinesGenerator : public Generator {
 public:
  std::string_view Name() const override { return "text_lines"; }
  std::string_view Description() const override {
    return "lines.txt: lines of pseudo-words with Zipf-distributed frequencies";
  }
  int Version() const override { return 1; }
  void Check(const Params& params) const override { Read(params, 1); }
  void Generate(const Params& params, const Context& ctx) const override {
    const Options options = Read(params, ctx.scale);
    std::vector<std::string> words;
    std::vector<double> cumulative;  // of the Zipf weights 1/k^s, k = 1..vocabulary
    double total = 0;
    for (std::int64_t k = 1; k <= options.vocabulary; ++k) {
      words.push_back(Word(static_cast<std::uint64_t>(k - 1)));
      total += 1.0 / std::pow(static_cast<double>(k), options.zipf);
      cumulative.push_back(total);
    }
    Rng rng(ctx.seed, kTextLinesStream);
    OutputFile out(ctx.out_dir / "lines.txt");
    std::string& buffer = out.buffer();
    const auto spread = static_cast<std::uint64_t>(2 * options.words_per_line - 1);
    for (std::int64_t line = 0; line < options.lines; ++line) {
      const std::uint64_t count = 1 + rng.Below(spread);  // mean words_per_line
      for (std::uint64_t i = 0; i < count; ++i) {
        const double u = rng.Unit() * total;
        const auto at = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
        if (i > 0) buffer += ' ';
        buffer += words[static_cast<std::size_t>(std::min<std::ptrdiff_t>(at, options.vocabulary - 1))];
      }
      buffer += '\n';
      out.MaybeFlush();
    }
    out.Close();
  }

 private:
  Options Read(const Params& params, double scale) const {
    ParamReader reader(Name(), params);
    Options options;
    options.lines = Scaled(reader.Int("lines", options.lines, 0, std::int64_t{1} << 34), scale);
    options.words_per_line = reader.Int("words_per_line", options.words_per_line, 1, 10000);
    options.vocabulary = reader.Int("vocabulary", options.vocabulary, 1, 10000000);
    options.zipf = reader.Double("zipf", options.zipf, 0, 10);
    reader.Finish();
    return options;
  }
};

}  // namespace

std::unique_ptr<Generator> MakeTextLinesGenerator() { return std::make_unique<TextLinesGenerator>(); }

}  // namespace pe::gen
