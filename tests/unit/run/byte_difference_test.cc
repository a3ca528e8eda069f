// Binary outputs differ as an offset and hex, never as raw bytes.
#include "engine/run/byte_difference.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace pe::run {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

TEST(ByteDifference, TextIsNotBinaryButNulAndControlBytesAre) {
  EXPECT_FALSE(LooksBinary("plain text\twith tabs\r\n\x1b[1mand escapes\x1b[0m\n"));
  EXPECT_TRUE(LooksBinary(std::string("a\0b", 3)));
  EXPECT_TRUE(LooksBinary("\x1f\x8b\x08"));
}

TEST(ByteDifference, OffsetSizesAndTwoHexRowsPerSide) {
  const fs::path dir = fs::temp_directory_path() / ("pe-bytediff-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string a(40, '\0'), b(41, '\0');
  for (int i = 0; i < 40; ++i) a[i] = b[i] = static_cast<char>(i);
  b[20] = 'X';
  b[40] = '!';
  Write(dir / "a", a);
  Write(dir / "b", b);
  EXPECT_EQ(ByteDifference(dir / "a", dir / "b", "old", "rewrite"),
            "first difference at byte 20 (0x14); old: 40 bytes, rewrite: 41 bytes\n"
            "  old      00000010: 10 11 12 13 14 15 16 17  18 19 1a 1b 1c 1d 1e 1f  |................|\n"
            "  rewrite  00000010: 10 11 12 13 58 15 16 17  18 19 1a 1b 1c 1d 1e 1f  |....X...........|\n"
            "  old      00000020: 20 21 22 23 24 25 26 27                           | !\"#$%&'|\n"
            "  rewrite  00000020: 20 21 22 23 24 25 26 27  21                       | !\"#$%&'!|");
  Write(dir / "c", a + "tail");
  EXPECT_EQ(ByteDifference(dir / "a", dir / "c", "old", "new").substr(0, 60),
            "first difference at byte 40 (0x28); old: 40 bytes, new: 44 b");
  EXPECT_EQ(ByteDifference(dir / "a", dir / "a", "old", "new"), "outputs are byte-for-byte equal");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pe::run
