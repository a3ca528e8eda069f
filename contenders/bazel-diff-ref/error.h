// The one error type of the reference contender. Its message is a complete sentence naming what
// failed (a file, a byte offset, a label); the CLI prints it as one line and exits 1.
#pragma once

#include <stdexcept>
#include <string>

namespace pe::refdiff {

class RefDiffError : public std::runtime_error {
 public:
  explicit RefDiffError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace pe::refdiff
