// json_docs: JSON documents of a chosen size, depth and number style, for jq, Python's json
// and other parsers. One document per line in docs.jsonl (layout = "lines"), or one array of
// them in docs.json (layout = "array"). Every number is written from integer digits, never
// by formatting a double, so the bytes are the same under any C library.
#include <string>

#include "generators/builtin_generators.h"
#include "generators/file_io.h"
#include "generators/params.h"
#include "generators/rng.h"

namespace pe::gen {
namespace {

constexpr std::uint64_t kJsonDocsStream = 0x6a736f6e2d646f63;  // "json-doc"

enum class Numbers { kIntegers, kDecimals, kExponents, kMixed };

struct Options {
  std::int64_t documents = 1000;
  std::int64_t fields = 8;
  std::int64_t depth = 3;
  Numbers numbers = Numbers::kMixed;
  bool array = false;
};

constexpr std::string_view kWords[] = {"alpha", "beta", "gamma", "delta", "build", "target", "status", "value",
                                       "name",  "kind", "id",    "owner", "path",  "size",   "label",  "cache"};

class Writer {
 public:
  Writer(const Options& options, Rng& rng, std::string& out) : options_(options), rng_(rng), out_(out) {}

  void Object(std::int64_t level) {
    out_ += '{';
    for (std::int64_t f = 0; f < options_.fields; ++f) {
      if (f > 0) out_ += ',';
      out_ += '"';
      out_ += kWords[rng_.Below(std::size(kWords))];
      out_ += '_';
      out_ += std::to_string(f);  // keys are unique within an object
      out_ += "\":";
      Value(level);
    }
    out_ += '}';
  }

 private:
  void Value(std::int64_t level) {
    const double u = rng_.Unit();
    if (level < options_.depth && u < 0.15) return Object(level + 1);
    if (level < options_.depth && u < 0.25) return Array(level + 1);
    if (u < 0.60) return Number();
    if (u < 0.90) return String();
    if (u < 0.95) {
      out_ += rng_.Chance(0.5) ? "true" : "false";
      return;
    }
    out_ += "null";
  }

  void Array(std::int64_t level) {
    out_ += '[';
    const std::uint64_t n = rng_.Below(static_cast<std::uint64_t>(options_.fields) + 1);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i > 0) out_ += ',';
      Value(level);
    }
    out_ += ']';
  }

  void String() {
    out_ += '"';
    const std::uint64_t n = 1 + rng_.Below(4);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i > 0) out_ += ' ';
      out_ += kWords[rng_.Below(std::size(kWords))];
    }
    out_ += '"';
  }

  void Number() {
    Numbers style = options_.numbers;
    if (style == Numbers::kMixed) style = static_cast<Numbers>(rng_.Below(3));
    if (rng_.Chance(0.25)) out_ += '-';
    switch (style) {
      case Numbers::kIntegers:
        out_ += std::to_string(rng_.Below(1000000));
        break;
      case Numbers::kDecimals: {  // 1 to 6 decimals, e.g. 42.125
        out_ += std::to_string(rng_.Below(100000));
        out_ += '.';
        const std::uint64_t places = 1 + rng_.Below(6);
        for (std::uint64_t i = 0; i < places; ++i) out_ += static_cast<char>('0' + rng_.Below(10));
        break;
      }
      case Numbers::kExponents:  // e.g. 3.1415e-7
      case Numbers::kMixed:
        out_ += static_cast<char>('1' + rng_.Below(9));
        out_ += '.';
        out_ += std::to_string(rng_.Below(10000));
        out_ += 'e';
        out_ += std::to_string(static_cast<std::int64_t>(rng_.Below(41)) - 20);
        break;
    }
  }

  const Options& options_;
  Rng& rng_;
  std::string& out_;
};

class JsonDocsGenerator : public Generator {
 public:
  std::string_view Name() const override { return "json_docs"; }
  std::string_view Description() const override {
    return "docs.jsonl (or docs.json): JSON documents of a chosen size, depth and number style";
  }
  int Version() const override { return 1; }
  void Check(const Params& params) const override { Read(params, 1); }
  void Generate(const Params& params, const Context& ctx) const override {
    const Options options = Read(params, ctx.scale);
    Rng rng(ctx.seed, kJsonDocsStream);
    OutputFile out(ctx.out_dir / (options.array ? "docs.json" : "docs.jsonl"));
    Writer writer(options, rng, out.buffer());
    if (options.array) out.buffer() += '[';
    for (std::int64_t d = 0; d < options.documents; ++d) {
      if (options.array && d > 0) out.buffer() += ",\n";
      writer.Object(0);
      if (!options.array) out.buffer() += '\n';
      out.MaybeFlush();
    }
    if (options.array) out.buffer() += "]\n";
    out.Close();
  }

 private:
  Options Read(const Params& params, double scale) const {
    ParamReader reader(Name(), params);
    Options options;
    options.documents = Scaled(reader.Int("documents", options.documents, 0, std::int64_t{1} << 32), scale);
    options.fields = reader.Int("fields", options.fields, 1, 1000);
    options.depth = reader.Int("depth", options.depth, 0, 64);
    const std::string numbers = reader.String("numbers", "mixed");
    if (numbers == "integers")
      options.numbers = Numbers::kIntegers;
    else if (numbers == "decimals")
      options.numbers = Numbers::kDecimals;
    else if (numbers == "exponents")
      options.numbers = Numbers::kExponents;
    else if (numbers == "mixed")
      options.numbers = Numbers::kMixed;
    else
      throw ParamError("numbers",
                       "'numbers' must be one of integers, decimals, exponents, mixed, not '" + numbers + "'");
    const std::string layout = reader.String("layout", "lines");
    if (layout != "lines" && layout != "array") {
      throw ParamError("layout",
                       "'layout' must be \"lines\" (docs.jsonl) or \"array\" (docs.json), not '" + layout + "'");
    }
    options.array = layout == "array";
    reader.Finish();
    return options;
  }
};

}  // namespace

std::unique_ptr<Generator> MakeJsonDocsGenerator() { return std::make_unique<JsonDocsGenerator>(); }

}  // namespace pe::gen
