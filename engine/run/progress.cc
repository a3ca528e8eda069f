#include "engine/run/progress.h"

#include <fmt/format.h>

namespace pe::run {

Progress::Progress(std::ostream& out, int total_steps, int total_rounds)
    : out_(out), total_steps_(total_steps), total_rounds_(total_rounds) {}

void Progress::Step(const std::string& workload) {
  ++done_;
  if (round_ == 0) return;  // parity runs are not counted in the rounds
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done_ > 0 ? elapsed / done_ * (total_steps_ - done_) : 0;
  out_ << fmt::format("\r\x1b[K{}  round {}/{}  elapsed {:.0f}s  ETA {:.0f}s", workload, round_, total_rounds_,
                      elapsed, eta > 0 ? eta : 0)
       << std::flush;
}

void Progress::Finish() { out_ << "\r\x1b[K" << std::flush; }

}  // namespace pe::run
