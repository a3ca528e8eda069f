#include "flat_hashes.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string_view>

namespace pe::refdiff {
namespace {

// Thrown when the text is not in a shape the scan reads; ParseHashFile then reads it.
struct NotFlat {};

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  // After JSON whitespace: true, and past it, when the next byte is `c`.
  bool Consume(char c) {
    SkipSpace();
    if (pos_ == text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  void Expect(char c) {
    if (!Consume(c)) throw NotFlat{};
  }

  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }

  // A string whose bytes are its value: printable ASCII, no escapes. Others need decoding (and
  // nlohmann checks UTF-8), which is ParseHashFile's job.
  std::string_view PlainString() {
    Expect('"');
    const char* begin = text_.data() + pos_;
    const void* quote = std::memchr(begin, '"', text_.size() - pos_);
    if (quote == nullptr) throw NotFlat{};
    std::string_view value(begin, static_cast<std::size_t>(static_cast<const char*>(quote) - begin));
    auto plain = [](char c) {
      auto byte = static_cast<unsigned char>(c);
      return byte >= 0x20 && byte < 0x80 && byte != '\\';
    };
    if (!std::all_of(value.begin(), value.end(), plain)) throw NotFlat{};
    pos_ += value.size() + 1;
    return value;
  }

  // The text of the JSON value that starts here, found by matching brackets outside strings;
  // whether it is valid JSON is for the caller's parser to say.
  std::string_view SkipValue() {
    SkipSpace();
    std::size_t begin = pos_;
    int depth = 0;
    bool in_string = false;
    for (; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (in_string) {
        if (c == '\\') {
          ++pos_;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']' || c == ',') {
        if (depth == 0) break;
        if (c != ',') --depth;
      }
    }
    if (in_string || depth != 0 || pos_ > text_.size()) throw NotFlat{};
    return text_.substr(begin, pos_ - begin);
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// The entries of an object of label -> hash string whose '{' has been read, through its '}'.
// `first` is a label already read (its ':' too), or empty.
void ReadEntries(Scanner& scanner, std::optional<std::string_view> first, HashEntryViews& out) {
  if (!first && scanner.Consume('}')) return;
  do {
    std::string_view label = first ? *first : scanner.PlainString();
    if (!first) scanner.Expect(':');
    first.reset();
    // Both keys at the top level make it the bzlmod shape, which ParseHashFile sorts out.
    if (label == "hashes" || label == "metadata") throw NotFlat{};
    out.emplace_back(label, scanner.PlainString());
  } while (scanner.Consume(','));
  scanner.Expect('}');
}

// {"hashes": {...}, "metadata": ...} in the order generate-hashes writes them; its '"hashes":'
// has been read.
std::optional<std::string> ReadBzlmodRest(Scanner& scanner, HashEntryViews& out) {
  scanner.Expect('{');
  ReadEntries(scanner, std::nullopt, out);
  scanner.Expect(',');
  if (scanner.PlainString() != "metadata") throw NotFlat{};
  scanner.Expect(':');
  std::string_view text = scanner.SkipValue();
  scanner.Expect('}');
  nlohmann::json metadata = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (metadata.is_discarded()) throw NotFlat{};  // not JSON: ParseHashFile names the byte
  if (metadata.is_null()) return std::nullopt;
  if (!metadata.is_object()) throw NotFlat{};
  auto graph = metadata.find("moduleGraphJson");
  if (graph == metadata.end() || graph->is_null()) return std::nullopt;
  if (!graph->is_string()) throw NotFlat{};
  return graph->get<std::string>();
}

// Sorts by label and keeps the last of equal labels, as reading into a JSON object does.
// generate-hashes writes them sorted and unique, so usually this only checks.
void SortAndDeduplicate(HashEntryViews& entries) {
  auto less = [](const auto& a, const auto& b) { return a.first < b.first; };
  auto not_less = [](const auto& a, const auto& b) { return !(a.first < b.first); };
  if (std::adjacent_find(entries.begin(), entries.end(), not_less) == entries.end()) return;
  std::stable_sort(entries.begin(), entries.end(), less);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i + 1 < entries.size() && entries[i + 1].first == entries[i].first) continue;
    entries[kept++] = entries[i];
  }
  entries.resize(kept);
}

}  // namespace

FlatHashesFile ParseFlatHashFile(std::string text, const std::string& source) {
  FlatHashesFile file;
  file.text_ = std::make_unique<const std::string>(std::move(text));
  try {
    Scanner scanner(*file.text_);
    // Every generate-hashes entry has 129 bytes of hex, so this holds them all in one go.
    file.hashes.reserve(file.text_->size() / 129);
    scanner.Expect('{');
    if (!scanner.Consume('}')) {
      std::string_view first = scanner.PlainString();
      scanner.Expect(':');
      if (first == "hashes") {
        file.module_graph_json = ReadBzlmodRest(scanner, file.hashes);
      } else {
        ReadEntries(scanner, first, file.hashes);
      }
    }
    if (!scanner.AtEnd()) throw NotFlat{};
  } catch (const NotFlat&) {
    HashesFile read = ParseHashFile(*file.text_, source);
    file.decoded_ = std::make_unique<const HashEntries>(std::move(read.hashes));
    file.hashes.assign(file.decoded_->begin(), file.decoded_->end());
    file.module_graph_json = std::move(read.module_graph_json);
    return file;
  }
  SortAndDeduplicate(file.hashes);
  for (const auto& [label, value] : file.hashes) CheckHashValue(label, value, source);
  return file;
}

}  // namespace pe::refdiff
