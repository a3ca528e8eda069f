#include "engine/report/html_page.h"

#include <fmt/format.h>

#include "engine/report/html_escape.h"
#include "engine/report/overview.h"
#include "engine/report/text.h"

namespace pe::report::html {

namespace {

constexpr std::string_view kColors[] = {"#4269d0", "#e8702a", "#3ca951", "#d6336c", "#8a63d2", "#6c757d"};
constexpr std::string_view kDashes[] = {"", "7 4", "2 3", "9 3 2 3", "4 4"};

}  // namespace

std::string_view ColorOf(const model::RunResult& result, std::string_view contender) {
  for (std::size_t i = 0; i < result.contenders.size(); ++i) {
    if (result.contenders[i].name == contender) return kColors[i % std::size(kColors)];
  }
  return kColors[std::size(kColors) - 1];
}

std::string_view DashOf(std::size_t i) { return kDashes[i % std::size(kDashes)]; }

std::string Esc(std::string_view text) { return EscapeHtml(OneLine(text)); }

std::string Note(std::string_view text) { return fmt::format("<p class=\"note\">{}</p>\n", text); }

std::string_view StatusClass(RowStatus status) {
  // The CSS class is the verdict's word (pass, missed, unresolved, failed) where it is one word.
  if (status == RowStatus::kNotGated) return "not-gated";
  if (status == RowStatus::kNone) return "none";
  return VerdictText(status);
}

std::string IdMaker::operator()(std::string_view prefix, std::string_view name) {
  std::string id(prefix);
  id += '-';
  for (char c : name) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (keep) {
      id += c;
    } else if (id.back() != '-') {
      id += '-';
    }
  }
  while (id.size() > prefix.size() + 1 && id.back() == '-') id.pop_back();
  std::string unique = id;
  for (int n = 2; !used_.insert(unique).second; ++n) unique = fmt::format("{}-{}", id, n);
  return unique;
}

}  // namespace pe::report::html
