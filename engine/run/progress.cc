#include "engine/run/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

namespace pe::run {

ProgressStyle ChooseProgressStyle(bool quiet, bool stderr_is_terminal) {
  if (quiet) return ProgressStyle::kOff;
  return stderr_is_terminal ? ProgressStyle::kTerminal : ProgressStyle::kLines;
}

int ExpectedAddedSteps(const std::vector<OpenCheck>& open, int max_rounds, int commands_per_round) {
  std::map<std::string, std::pair<int, int>> per_workload;  // rounds so far, rounds expected
  for (const OpenCheck& c : open) {
    // An open workload runs at least one more round, and never past the cap.
    const int target = std::min(max_rounds, std::max(c.rounds + 1, c.rounds_needed.value_or(max_rounds)));
    auto [it, fresh] = per_workload.try_emplace(c.workload, c.rounds, target);
    if (!fresh) it->second = {std::min(it->second.first, c.rounds), std::max(it->second.second, target)};
  }
  int steps = 0;
  for (const auto& [name, rounds] : per_workload) steps += std::max(0, rounds.second - rounds.first);
  return steps * commands_per_round;
}

Progress::Progress(std::ostream& out, ProgressStyle style, Clock clock, double interval_s)
    : out_(out), style_(style), clock_(std::move(clock)), interval_s_(interval_s) {
  start_ = Now();
  last_line_ = start_;
}

double Progress::Now() const {
  if (clock_) return clock_();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Progress::Note(const std::string& message) {
  if (style_ == ProgressStyle::kOff) return;
  if (style_ == ProgressStyle::kTerminal && drawn_) out_ << "\r\x1b[K";
  drawn_ = false;
  out_ << "perfengine: " << message << "\n" << std::flush;
  last_line_ = Now();
}

void Progress::BeginRounds(int total_steps, int total_rounds) {
  total_steps_ = total_steps;
  total_rounds_ = total_rounds;
  done_ = 0;
  rounds_start_ = Now();
}

std::string Progress::Status(const std::string& workload, double elapsed) const {
  // The ETA is for the minimum rounds, then for the rounds the open checks are expected to add.
  const double rounds_elapsed = Now() - rounds_start_;
  const double eta = done_ > 0 && done_ < total_steps_ ? rounds_elapsed / done_ * (total_steps_ - done_) : 0;
  const std::string round = round_ <= total_rounds_ ? fmt::format("round {}/{}", round_, total_rounds_)
                                                    : fmt::format("round {} (added: a check is unresolved)", round_);
  return fmt::format("{}, {}, elapsed {:.0f}s, ETA {:.0f}s", workload, round, elapsed, eta);
}

void Progress::Step(const std::string& workload) {
  if (round_ == 0) return;  // parity runs are not counted in the rounds
  ++done_;
  if (style_ == ProgressStyle::kOff) return;
  const double now = Now();
  Show(Status(workload, now - start_), now);
}

void Progress::Show(const std::string& status, double now) {
  if (style_ == ProgressStyle::kOff) return;
  if (style_ == ProgressStyle::kTerminal) {
    out_ << "\r\x1b[K" << status << std::flush;
    drawn_ = true;
    return;
  }
  if (now - last_line_ < interval_s_) return;
  last_line_ = now;
  out_ << "perfengine: " << status << "\n" << std::flush;
}

void Progress::BeginPhase(const std::string& phase, int total_steps, const std::string& announcement) {
  phase_ = phase;
  phase_total_ = total_steps;
  phase_started_ = 0;
  phase_start_ = Now();
  if (!announcement.empty()) Note(fmt::format("{}: {}", phase, announcement));
}

void Progress::StartStep(const std::string& step) {
  const int done = phase_started_++;  // the steps finished before this one
  if (style_ == ProgressStyle::kOff) return;
  const double now = Now();
  std::string status = fmt::format("{} {}/{}: {}, elapsed {:.0f}s", phase_, done + 1, std::max(phase_total_, done + 1),
                                   step, now - start_);
  if (done > 0 && phase_total_ > done) {
    status += fmt::format(", ETA {:.0f}s", (now - phase_start_) / done * (phase_total_ - done));
  }
  Show(status, now);
}

void Progress::EndPhase() {
  phase_.clear();
  Finish();
}

void Progress::Finish() {
  if (style_ == ProgressStyle::kTerminal && drawn_) out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace pe::run
