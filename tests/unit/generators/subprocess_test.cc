// gen::RunChecked: a helper program (git) from an argv, through engine/process, its output and
// its failures as exact text.
#include "generators/subprocess.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace pe::gen {
namespace {

// The message RunChecked throws, or "" when it returns.
std::string RunCheckedError(const std::vector<std::string>& argv) {
  try {
    RunChecked(argv, "/", {});
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

TEST(RunChecked, ReturnsStdoutAndStderrInterleavedWithTheEnvironmentItWasGiven) {
  EXPECT_EQ(
      RunChecked({"sh", "-c", "printf \"$PE_RUN_CHECKED\"; printf b >&2; printf c"}, "/", {{"PE_RUN_CHECKED", "a"}}),
      "abc");
}

TEST(RunChecked, AFailureNamesTheCommandItsExitStatusAndItsOutput) {
  EXPECT_EQ(RunCheckedError({"sh", "-c", "echo oops >&2; exit 4"}), "`sh -c echo oops >&2; exit 4` failed (4): oops\n");
}

TEST(RunChecked, AChildKilledByASignalFailsWithoutAnExitStatus) {
  EXPECT_EQ(RunCheckedError({"sh", "-c", "kill -KILL $$"}), "`sh -c kill -KILL $$` failed (-1): ");
}

TEST(RunChecked, AProgramNotOnPathFailsBeforeAnythingIsStarted) {
  EXPECT_EQ(RunCheckedError({"pe-no-such-program"}),
            "`pe-no-such-program` failed: program not found: pe-no-such-program");
}

}  // namespace
}  // namespace pe::gen
