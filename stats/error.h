// StatsError: the one exception stats/ throws, for input no method can give a meaning to
// (an empty sample, NaN or infinity, a probability outside [0, 1]). Callers that want a
// figure-or-nothing catch it and record why the figure is missing.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

namespace pe::stats {

struct StatsError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Thrown by a long computation (the bootstrap) when its caller's cancellation callable says
// stop, e.g. on Ctrl-C. Not a StatsError: "no figure because the input means nothing" and
// "no figure because the user stopped us" are handled differently.
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

// Throws StatsError naming `function` and the index of the first NaN or infinite value.
// Every public function calls this first, so a bad sample never turns into a quiet NaN.
void RequireFinite(const char* function, std::span<const double> x);

// Throws StatsError "<function>: <what>" when x has fewer than `min_n` values.
void RequireAtLeast(const char* function, std::span<const double> x, std::size_t min_n);

}  // namespace pe::stats
