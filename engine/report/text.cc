#include "engine/report/text.h"

namespace pe::report {

namespace {

// The length of the UTF-8 sequence at `text` if it encodes a C1 control (U+0080-U+009F: 0x9B
// is CSI on some terminals) or a bidirectional control (U+061C, U+200E-U+200F, U+202A-U+202E,
// U+2066-U+2069: an override reorders what follows it on screen), else 0.
std::size_t InvisibleControl(std::string_view text) {
  const auto byte = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u; };
  if (byte(0) == 0xC2 && byte(1) >= 0x80 && byte(1) <= 0x9F) return 2;
  if (byte(0) == 0xD8 && byte(1) == 0x9C) return 2;
  if (byte(0) == 0xE2 && byte(1) == 0x80 &&
      ((byte(2) >= 0x8E && byte(2) <= 0x8F) || (byte(2) >= 0xAA && byte(2) <= 0xAE))) {
    return 3;
  }
  if (byte(0) == 0xE2 && byte(1) == 0x81 && byte(2) >= 0xA6 && byte(2) <= 0xA9) return 3;
  return 0;
}

}  // namespace

std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    if (const std::size_t n = InvisibleControl(text.substr(i)); n > 0) {
      out.push_back('?');
      i += n - 1;
      continue;
    }
    bool control = (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
    out.push_back(control ? '?' : c);
  }
  return out;
}

std::string OneLine(std::string_view text) {
  std::string out = Printable(text);
  for (char& c : out) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  return out;
}

std::string Indented(std::string_view text, std::string_view indent) {
  std::string out;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty()) out.append(indent).append(line);
    out.push_back('\n');
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace pe::report
