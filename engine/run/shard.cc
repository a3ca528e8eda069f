#include "engine/run/shard.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include "engine/base/error.h"

namespace pe::run {

namespace {

bool ParseInt(std::string_view text, int* value) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && end == text.data() + text.size();
}

// Digits only, too many for an int.
bool TooLarge(std::string_view text) {
  int value = 0;
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos &&
         std::from_chars(text.data(), text.data() + text.size(), value).ec == std::errc::result_out_of_range;
}

}  // namespace

Shard ParseShard(const std::string& text) {
  const auto slash = text.find('/');
  Shard shard;
  if (slash != std::string::npos) {
    // A number too large for an int once got only the K/N form, as if it were not a number.
    const std::string_view k = std::string_view(text).substr(0, slash), n = std::string_view(text).substr(slash + 1);
    if (TooLarge(n)) {
      throw base::UsageError(fmt::format("--shard: '{}': N must be a whole number from 1 to {}, not '{}'", text,
                                         std::numeric_limits<int>::max(), n));
    }
    if (ParseInt(n, &shard.count) && shard.count >= 1 && TooLarge(k)) {
      throw base::UsageError(
          fmt::format("--shard: '{}': K must be a whole number from 1 to {}, not '{}'", text, shard.count, k));
    }
  }
  if (slash == std::string::npos || !ParseInt(std::string_view(text).substr(0, slash), &shard.index) ||
      !ParseInt(std::string_view(text).substr(slash + 1), &shard.count) || shard.count < 1 || shard.index < 1 ||
      shard.index > shard.count) {
    throw base::UsageError(fmt::format("--shard: '{}' must be K/N with 1 <= K <= N, e.g. 2/4", text));
  }
  return shard;
}

std::vector<std::string> ShardNames(const std::vector<std::string>& names, const Shard& shard) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  std::set<std::string> mine;
  for (size_t i = static_cast<size_t>(shard.index - 1); i < sorted.size(); i += static_cast<size_t>(shard.count)) {
    mine.insert(sorted[i]);
  }
  std::vector<std::string> out;
  for (const std::string& name : names) {
    if (mine.count(name)) out.push_back(name);
  }
  return out;
}

}  // namespace pe::run
