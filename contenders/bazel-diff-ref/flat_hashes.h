// The candidate's reader of hashes files. ParseHashFile (hash_json.h) builds a JSON document
// first: a tree node, a key string and a value string per entry, then copies both strings out
// again, so 150,000 entries cost about a million allocations, and how fast that goes is mostly
// a property of the allocator (with mimalloc it was slower than with glibc malloc on the
// flagship machine, issue #28). This reader keeps the file's bytes and hands out views into
// them: a handful of allocations per file, whatever the allocator.
//
// It reads the shapes generate-hashes writes in one pass. Anything else (escapes, non-ASCII
// bytes, values that are not strings, malformed JSON, extra keys) is handed to ParseHashFile,
// so every input reads, and every error reads, exactly as the baseline reads it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "hash_json.h"

namespace pe::refdiff {

class FlatHashesFile {
 public:
  // Sorted by label, one entry per label (the last, as a JSON object keeps it); views into
  // storage this object owns, valid as long as it lives (moves included).
  HashEntryViews hashes;
  std::optional<std::string> module_graph_json;  // the bzlmod shape's metadata

 private:
  friend FlatHashesFile ParseFlatHashFile(std::string text, const std::string& source);
  // Heap-held so that moving this object does not move the bytes the views point into.
  std::unique_ptr<const std::string> text_;
  std::unique_ptr<const HashEntries> decoded_;  // only when ParseHashFile read the file
};

// Same entries, module graph and errors (RefDiffError naming `source`) as ParseHashFile.
FlatHashesFile ParseFlatHashFile(std::string text, const std::string& source);

}  // namespace pe::refdiff
