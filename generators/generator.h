// A fixture generator: a pure function of (its parameters, scale, seed) to files in a directory.
// Generators know nothing of TOML: the spec layer hands them plain parameter values and turns
// a ParamError into a `file:line:col:` spec error using the key's position.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pe::gen {

using ParamValue = std::variant<std::int64_t, double, bool, std::string, std::vector<std::string>>;
using Params = std::map<std::string, ParamValue>;

// A bad parameter. key names the offending parameter ("" for the table as a whole).
struct ParamError : std::runtime_error {
  ParamError(std::string key, const std::string& message) : std::runtime_error(message), key(std::move(key)) {}
  std::string key;
};

struct Context {
  double scale = 1;
  std::uint64_t seed = 0;
  std::filesystem::path out_dir;  // exists and is empty when Generate is called
};

class Generator {
 public:
  virtual ~Generator() = default;
  virtual std::string_view Name() const = 0;
  virtual std::string_view Description() const = 0;
  // Bumped whenever the bytes a generator writes change; part of the fixture cache key.
  virtual int Version() const = 0;
  // Throws ParamError for unknown keys, wrong types or out-of-range values.
  virtual void Check(const Params& params) const = 0;
  // Writes the fixture into ctx.out_dir. Throws std::runtime_error on I/O failure.
  virtual void Generate(const Params& params, const Context& ctx) const = 0;
  // What the bytes depend on beyond the parameters (e.g. the digest of a helper binary that is
  // copied into the fixture); part of the fixture cache key. Throws if it cannot be determined.
  virtual std::string KeyExtra() const { return {}; }
};

using Factory = std::function<std::unique_ptr<Generator>()>;

// The named factories; Names() feeds `perfengine list` and "did you mean" suggestions.
class Registry {
 public:
  void Add(std::string name, Factory factory);
  std::vector<std::string> Names() const;                          // sorted
  std::unique_ptr<Generator> Create(std::string_view name) const;  // nullptr if unknown
 private:
  std::map<std::string, Factory, std::less<>> factories_;
};

// The registry with every built-in generator.
const Registry& BuiltinRegistry();

}  // namespace pe::gen
