#include "engine/run/byte_difference.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>

namespace pe::run {

namespace fs = std::filesystem;

bool LooksBinary(std::string_view head) {
  return std::any_of(head.begin(), head.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b;
  });
}

std::string FileHead(const fs::path& file, std::size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  std::string head(bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(bytes));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

namespace {

std::string Window(std::istream& in, std::uint64_t offset, std::size_t bytes) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  std::string out(bytes, '\0');
  in.read(out.data(), static_cast<std::streamsize>(bytes));
  out.resize(in ? bytes : static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return out;
}

std::uintmax_t SizeOf(const fs::path& file) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  return ec ? 0 : size;
}

}  // namespace

bool EitherLooksBinary(const fs::path& a, const fs::path& b) {
  constexpr std::size_t kHead = 64 << 10;
  return LooksBinary(FileHead(a, kHead)) || LooksBinary(FileHead(b, kHead));
}

std::string HexRow(std::uint64_t offset, std::string_view bytes) {
  std::string hex, ascii;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 8) hex += ' ';
    if (i < bytes.size()) {
      const auto c = static_cast<unsigned char>(bytes[i]);
      hex += fmt::format("{:02x} ", c);
      ascii += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '.';
    } else {
      hex += "   ";
    }
  }
  hex.pop_back();
  return fmt::format("{:08x}: {}  |{}|", offset, hex, ascii);
}

std::string ByteDifference(const fs::path& a, const fs::path& b, const std::string& a_name, const std::string& b_name) {
  std::ifstream x(a, std::ios::binary), y(b, std::ios::binary);
  return ByteDifference(x, SizeOf(a), y, SizeOf(b), a_name, b_name);
}

std::string ByteDifference(std::istream& x, std::uintmax_t size_a, std::istream& y, std::uintmax_t size_b,
                           const std::string& a_name, const std::string& b_name) {
  std::array<char, 1 << 16> bx{}, by{};
  std::uint64_t offset = 0;
  bool found = false;
  while (!found) {
    x.read(bx.data(), bx.size());
    y.read(by.data(), by.size());
    const auto nx = static_cast<std::size_t>(x.gcount());
    const auto ny = static_cast<std::size_t>(y.gcount());
    const std::size_t common = std::min(nx, ny);
    const auto mismatch = std::mismatch(bx.begin(), bx.begin() + common, by.begin());
    const auto at = static_cast<std::size_t>(mismatch.first - bx.begin());
    if (at < common || nx != ny) {
      offset += at;
      found = true;
    } else if (nx == 0) {
      return "outputs are byte-for-byte equal";
    } else {
      offset += common;
    }
  }
  const std::uint64_t row = offset / 16 * 16;
  const std::size_t width = std::max(a_name.size(), b_name.size());
  std::string out = fmt::format("first difference at byte {} (0x{:x}); {}: {} bytes, {}: {} bytes", offset, offset,
                                a_name, size_a, b_name, size_b);
  const std::string wa = Window(x, row, 32), wb = Window(y, row, 32);
  for (std::uint64_t r = 0; r < 32; r += 16) {
    const std::string_view ra = r < wa.size() ? std::string_view(wa).substr(r, 16) : std::string_view();
    const std::string_view rb = r < wb.size() ? std::string_view(wb).substr(r, 16) : std::string_view();
    if (ra.empty() && rb.empty()) break;
    out += fmt::format("\n  {:<{}}  {}", a_name, width,
                       ra.empty() ? fmt::format("{:08x}: <end of output>", row + r) : HexRow(row + r, ra));
    out += fmt::format("\n  {:<{}}  {}", b_name, width,
                       rb.empty() ? fmt::format("{:08x}: <end of output>", row + r) : HexRow(row + r, rb));
  }
  return out;
}

}  // namespace pe::run
