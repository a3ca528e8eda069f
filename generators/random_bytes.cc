// random_bytes: data.bin, arbitrary bytes with a compressibility knob, for tools that take any
// input (compressors, checksummers, copiers). The file is built the way an LZ compressor sees
// data: each 64-byte run is either fresh random bytes or a copy of a run from the last 32 KiB,
// the copies making up `compressibility` of the file. 0 is incompressible; 1 is one run
// repeated; in between, gzip and zstd find roughly that fraction as matches.
#include <algorithm>
#include <cstring>

#include "generators/builtin_generators.h"
#include "generators/file_io.h"
#include "generators/params.h"
#include "generators/rng.h"

namespace pe::gen {
namespace {

constexpr std::uint64_t kRandomBytesStream = 0x72616e642d627974;  // "rand-byt"
constexpr std::size_t kRun = 64;
constexpr std::size_t kWindow = 32 << 10;

struct Options {
  std::int64_t bytes = 1 << 20;
  double compressibility = 0.5;
};

class RandomBytesGenerator : public Generator {
 public:
  std::string_view Name() const override { return "random_bytes"; }
  std::string_view Description() const override {
    return "data.bin: random bytes with a compressibility knob (fresh runs or copies of recent ones)";
  }
  int Version() const override { return 1; }
  void Check(const Params& params) const override { Read(params, 1); }
  void Generate(const Params& params, const Context& ctx) const override {
    const Options options = Read(params, ctx.scale);
    Rng rng(ctx.seed, kRandomBytesStream);
    OutputFile out(ctx.out_dir / "data.bin");
    std::string window;  // the last kWindow bytes written, for copies
    window.reserve(kWindow + kRun);
    std::uint64_t left = static_cast<std::uint64_t>(options.bytes);
    char run[kRun];
    while (left > 0) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kRun, left));
      if (window.size() >= kRun && rng.Chance(options.compressibility)) {
        const std::size_t from = rng.Below(window.size() - kRun + 1);
        std::memcpy(run, window.data() + from, kRun);
      } else {
        for (std::size_t i = 0; i < kRun; i += 8) {
          const std::uint64_t word = rng.Next();
          for (std::size_t b = 0; b < 8; ++b) run[i + b] = static_cast<char>(word >> (8 * b));
        }
      }
      out.buffer().append(run, n);
      out.MaybeFlush();
      window.append(run, n);
      if (window.size() > kWindow) window.erase(0, window.size() - kWindow);
      left -= n;
    }
    out.Close();
  }

 private:
  Options Read(const Params& params, double scale) const {
    ParamReader reader(Name(), params);
    Options options;
    options.bytes = Scaled(reader.Int("bytes", options.bytes, 0, std::int64_t{1} << 40), scale);
    options.compressibility = reader.Fraction("compressibility", options.compressibility);
    reader.Finish();
    return options;
  }
};

}  // namespace

std::unique_ptr<Generator> MakeRandomBytesGenerator() { return std::make_unique<RandomBytesGenerator>(); }

}  // namespace pe::gen
