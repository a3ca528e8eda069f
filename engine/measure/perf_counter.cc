#include "engine/measure/perf_counter.h"

#include <fmt/core.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "engine/measure/failed_run.h"

namespace pe::measure {

using runner::Command;
namespace {

std::string ErrnoText(int error) { return std::error_code(error, std::system_category()).message(); }

perf_event_attr InstructionsAttr() {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.inherit = 1;
  attr.enable_on_exec = 1;
  // Tells whether the counter shared the PMU with others (multiplexing) and must be scaled.
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return attr;
}

int OpenCounter(pid_t pid) {
  perf_event_attr attr = InstructionsAttr();
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace

std::string PerfEventUnavailableReason() {
  int fd = OpenCounter(0);
  if (fd < 0) return "perf_event_open: " + ErrnoText(errno);
  ::close(fd);
  return {};
}

PerfCount CountWithPerfEvent(const Command& command, runner::ProcessRunner& runner) {
  PerfCount result;
  if (std::string reason = PerfEventUnavailableReason(); !reason.empty()) {
    result.note = reason;
    return result;
  }
  int counter = -1;
  int counter_errno = 0;
  bool attach_called = false;
  result.outcome = runner.RunHeld(command, [&](int pid) {
    attach_called = true;
    counter = OpenCounter(pid);
    counter_errno = errno;
    return counter >= 0;
  });
  if (attach_called && counter < 0) {
    result.note = "perf_event_open: " + ErrnoText(counter_errno);
    return result;
  }
  result.available = true;
  if (!result.outcome.ok()) {
    if (counter >= 0) ::close(counter);
    result.note = "not measured: " + WhyItFailed(command, result.outcome);
    return result;
  }
  // value, time enabled, time running (read_format above).
  std::uint64_t values[3] = {};
  const ssize_t got = ::read(counter, values, sizeof values);
  const int read_errno = errno;
  ::close(counter);
  if (got != static_cast<ssize_t>(sizeof values)) {
    result.note = "perf_event_open: cannot read the counter: " + ErrnoText(read_errno);
    return result;
  }
  if (values[2] == 0) {
    result.note = "perf_event_open: the counter was never scheduled on a CPU";
    return result;
  }
  if (values[2] < values[1]) {
    // The PMU was shared with other counters: the kernel's usual linear estimate.
    result.count = static_cast<std::uint64_t>(static_cast<double>(values[0]) * static_cast<double>(values[1]) /
                                              static_cast<double>(values[2]));
    result.note = fmt::format("counter multiplexed: scaled from {:.1f}% of the run",
                              100.0 * static_cast<double>(values[2]) / static_cast<double>(values[1]));
  } else {
    result.count = values[0];
  }
  return result;
}

}  // namespace pe::measure
