// Reading a generator's parameters: typed getters with defaults and ranges, then Finish()
// rejects keys nobody asked for (with a "did you mean"). Every error is a ParamError naming
// the key, which the spec layer turns into `file:line:col:`.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "generators/generator.h"

namespace pe::gen {

class ParamReader {
 public:
  ParamReader(std::string_view generator, const Params& params) : generator_(generator), params_(params) {}

  std::int64_t Int(std::string_view key, std::int64_t def, std::int64_t min, std::int64_t max);
  // Accepts an integer where a float is expected.
  double Double(std::string_view key, double def, double min, double max);
  double Fraction(std::string_view key, double def) { return Double(key, def, 0.0, 1.0); }
  bool Bool(std::string_view key, bool def);
  std::string String(std::string_view key, std::string def);

  // Throws ParamError for the first key that no getter asked for.
  void Finish() const;

 private:
  const ParamValue* Find(std::string_view key);

  std::string generator_;
  const Params& params_;
  std::set<std::string, std::less<>> known_;
};

// round(count * scale), at least 0.
std::int64_t Scaled(std::int64_t count, double scale);

}  // namespace pe::gen
