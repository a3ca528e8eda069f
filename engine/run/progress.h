// Progress on stderr while a run goes on: workload, round i/N, elapsed, ETA. Only used
// when stderr is a terminal, so logs and CI output stay clean.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

namespace pe::run {

class Progress {
 public:
  Progress(std::ostream& out, int total_steps, int total_rounds);
  void SetRound(int round) { round_ = round; }
  void Step(const std::string& workload);  // one command finished
  void Finish();                           // clears the line

 private:
  std::ostream& out_;
  int total_steps_;
  int total_rounds_;
  int done_ = 0;
  int round_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace pe::run
