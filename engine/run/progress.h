// Progress on stderr while a run goes on, never on stdout (whose report tests compare exactly).
// On a terminal: one line redrawn in place (workload, round i/N, elapsed, ETA). Elsewhere (a
// CI log, a pipe): plain lines, at most one per `interval` seconds, so a 20-minute run is not
// 20 minutes of silence and a log is not flooded. The phases outside the rounds (git builds,
// parity, counts, profiles) report their steps the same way (BeginPhase, StartStep). --quiet
// turns both off.
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

  // A phase outside the timed rounds, of `total_steps` steps: "parity", "building from git",
  // "counting", "profiling". A non-empty `announcement` is printed at once as Note prints
  // ("perfengine: counting: 4 runs, ..."): a slow phase names what the wait is for.
  void BeginPhase(const std::string& phase, int total_steps, const std::string& announcement = "");
  // The phase's next step begins: its status, as a round's is (redrawn on a terminal, else at
  // most one line per interval), with an ETA from the pace of the steps done so far, none
  // before the first is done: "counting 3/4: work, instructions of baseline, elapsed 412s, ETA 260s".
  void StartStep(const std::string& step);
  void EndPhase();  // clears the terminal line

 private:
  double Now() const;
  std::string Status(const std::string& workload, double elapsed) const;
  // A status line: redrawn on a terminal, else printed when `interval` has passed since the last.
  void Show(const std::string& status, double now);

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
  std::string phase_;   // the phase outside the rounds going on, if any
  int phase_total_ = 0;
  int phase_started_ = 0;  // its steps begun so far
  double phase_start_ = 0;
};

}  // namespace pe::run
