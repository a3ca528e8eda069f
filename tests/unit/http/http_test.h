// The fixture every http test uses: whatever a test did, no server may outlive it.
#pragma once

#include <gtest/gtest.h>

#include "tests/unit/http/stub_server_process.h"

namespace pe::testing {

class HttpTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(LiveChildren(), 0); }
  // Servers are stopped by their destructors at the end of the test body; a count above 0
  // here means one was left running or unreaped.
  void TearDown() override { EXPECT_EQ(LiveChildren(), 0) << "a stub server was left behind"; }
};

}  // namespace pe::testing
