// The generic error of the engine: a mistake in how perfengine was asked (an unknown flag value,
// an unknown workload name, a results file that is not one, ...). `main` prints its text on one
// line and exits 2 (docs/exit-codes.md); it carries no position. A mistake inside a spec file is
// a spec::SpecError instead, which names file:line:col.
//
// It lives at the bottom (engine/base) so that a module can refuse its input without depending
// on the spec parser; spec::UsageError is this same type.
#pragma once

#include <stdexcept>

namespace pe::base {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pe::base
