// Progress on stderr while a run goes on, never on stdout (whose report tests compare exactly).
// On a terminal: one line redrawn in place (workload, round i/N, elapsed, ETA). Elsewhere (a
// CI log, a pipe): plain lines, at most one per `interval` seconds, so a 20-minute run is not
// 20 minutes of silence and a log is not flooded. --quiet turns both off.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace pe::run {

enum class ProgressStyle {
  kOff,       // --quiet
  kTerminal,  // stderr is a TTY: a line redrawn with \r
  kLines,     // anything else: plain, rate-limited lines
};

// The style for a run: off when quiet, else by whether stderr is a terminal.
ProgressStyle ChooseProgressStyle(bool quiet, bool stderr_is_terminal);

// A gated check still open between rounds: the paired rounds behind it and the rounds its
// rounds-needed figure says would resolve it (nullopt: none would at this spread).
struct OpenCheck {
  std::string workload;
  int rounds = 0;
  std::optional<int> rounds_needed;
};

// The commands the added rounds are expected to run: each workload with an open check runs to
// the most rounds any of its checks needs, capped at `max_rounds` (to the cap where no number of
// rounds would do), `commands_per_round` commands each. An estimate from the spread so far.
int ExpectedAddedSteps(const std::vector<OpenCheck>& open, int max_rounds, int commands_per_round);

class Progress {
 public:
  using Clock = std::function<double()>;  // monotonic seconds; tests inject their own
  static constexpr double kLineInterval = 10;

  Progress(std::ostream& out, ProgressStyle style, Clock clock = {}, double interval_s = kLineInterval);

  // A phase that may take long and happens once, e.g. "generating fixture X (n targets)".
  // Always printed (both styles): it names what the wait is for.
  void Note(const std::string& message);
  // The measured rounds start: `total_steps` commands over `total_rounds` rounds (the minimum).
  void BeginRounds(int total_steps, int total_rounds);
  void SetRound(int round) { round_ = round; }
  // Rounds beyond the minimum: `steps` more commands are expected (ExpectedAddedSteps), so the
  // ETA counts them rather than reading 0 s.
  void ExpectMoreSteps(int steps) { total_steps_ = done_ + steps; }
  void Step(const std::string& workload);  // one command finished
  void Finish();                           // clears the terminal line

 private:
  double Now() const;
  std::string Status(const std::string& workload, double elapsed) const;

  std::ostream& out_;
  ProgressStyle style_;
  Clock clock_;
  double interval_s_;
  double start_ = 0;
  double rounds_start_ = 0;
  double last_line_ = 0;
  int total_steps_ = 0;
  int total_rounds_ = 0;
  int done_ = 0;
  int round_ = 0;
  bool drawn_ = false;  // a terminal line is on screen
};

}  // namespace pe::run
