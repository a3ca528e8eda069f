// Every semantic error in a spec carries a position, like a compiler's:
// `specs/x.toml:12:5: unknown generator 'streamed-protp' (did you mean 'streamed_proto'?)`.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/base/error.h"

namespace pe::spec {

struct SourcePos {
  std::string file;
  int line = 0;
  int column = 0;
};

class SpecError : public std::runtime_error {
 public:
  SpecError(const SourcePos& pos, const std::string& message);
  // Every mistake found in one pass, in file order: what() is one line per mistake; pos() and
  // message() are the first one's. One error stays itself.
  static SpecError Several(std::vector<SpecError> errors);
  const SourcePos& pos() const { return pos_; }
  const std::string& message() const { return message_; }
  std::size_t count() const { return count_; }

 private:
  SpecError(const SourcePos& pos, const std::string& message, const std::string& text, std::size_t count);
  SourcePos pos_;
  std::string message_;
  std::size_t count_ = 1;
};

// A command-line mistake (unknown flag value, unknown workload name, ...): exit 2, no position.
// The generic error at the bottom of the module graph (engine/base/error.h), under its old name.
using UsageError = base::UsageError;

}  // namespace pe::spec
