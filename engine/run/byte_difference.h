// Where two binary outputs differ, shown as a byte offset and a hex dump of the bytes around
// it: raw bytes of a compressed file would garble the terminal (or a CI log) that shows them.
#pragma once

#include <filesystem>
#include <istream>
#include <string>
#include <string_view>

namespace pe::run {

// True when `head` (the first bytes of an output) is not text: it holds a NUL or a control
// byte other than tab, newline, carriage return, form feed, vertical tab and escape.
bool LooksBinary(std::string_view head);

// True when either file's first 64 KiB LooksBinary. Unreadable files count as text.
bool EitherLooksBinary(const std::filesystem::path& a, const std::filesystem::path& b);

// Reads both files as streams and describes their first differing byte:
//   first difference at byte 4660 (0x1234); baseline: 9000 bytes, candidate: 9001 bytes
//     baseline   00001230: 1f 8b 08 00 00 00 00 00  00 03 ed c1 01 0d 00 00  |................|
//     candidate  00001230: 1f 8b 08 00 00 00 00 00  00 03 ed c1 01 0d 00 01  |................|
// (two 16-byte rows from the row holding the offset), or says they are equal.
std::string ByteDifference(const std::filesystem::path& a, const std::filesystem::path& b, const std::string& a_name,
                           const std::string& b_name);
// The same over two seekable streams of `size_a` and `size_b` bytes (parity keeps the
// baseline's output in memory, not in a file another contender could read).
std::string ByteDifference(std::istream& a, std::uintmax_t size_a, std::istream& b, std::uintmax_t size_b,
                           const std::string& a_name, const std::string& b_name);

// The first `bytes` bytes of `file` (fewer when it is shorter or unreadable).
std::string FileHead(const std::filesystem::path& file, std::size_t bytes);

// One hex-dump row: offset, 16 bytes in hex (fewer at the end), and their printable ASCII.
std::string HexRow(std::uint64_t offset, std::string_view bytes);

}  // namespace pe::run
