#include "engine/run/path_component.h"

#include <fmt/format.h>

#include "generators/sha256.h"

namespace pe::run {

std::string PathComponent(std::string_view name) {
  std::string out;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    out += plain ? std::string(1, ch) : fmt::format("%{:02X}", c);
  }
  if (out.empty() || out.find_first_not_of('.') == std::string::npos) {
    std::string dots;
    for (std::size_t i = 0; i < out.size(); ++i) dots += "%2E";
    out = dots.empty() ? "%" : dots;
  }
  // NAME_MAX is 255 on Linux file systems; keep well inside it.
  constexpr std::size_t kMax = 160;
  if (out.size() > kMax) out = out.substr(0, kMax - 17) + "~" + gen::Sha256Hex(name).substr(0, 16);
  return out;
}

}  // namespace pe::run
