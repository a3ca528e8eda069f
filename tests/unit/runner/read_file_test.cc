#include "engine/runner/read_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/unit/runner/temp_dir.h"

namespace pe::runner {
namespace {

TEST(ReadWholeFile, ReadsEveryByteAndAnUnreadableFileAsEmpty) {
  testing::TempDir dir;
  const std::string bytes("a\0b\r\n\xff", 6);
  std::ofstream(dir / "f", std::ios::binary) << bytes;
  EXPECT_EQ(ReadWholeFile(dir / "f"), bytes);
  EXPECT_EQ(ReadWholeFile(dir / "missing"), "");
  EXPECT_EQ(ReadWholeFile(dir.path()), "");  // a directory
}

}  // namespace
}  // namespace pe::runner
