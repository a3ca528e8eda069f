// SHA-256 digests, through OpenSSL's EVP interface.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace pe::refdiff {

using Digest = std::array<std::uint8_t, 32>;

std::string ToHex(const Digest& digest);

// Incremental SHA-256. Reusable: Finish() returns the digest and starts a fresh one, so a worker
// thread keeps one Sha256 for all its targets instead of allocating a context per hash.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  Sha256& Update(std::string_view bytes);
  Sha256& Update(const Digest& digest);
  // Length-prefixed, so that the fields ("ab", "c") and ("a", "bc") hash differently.
  Sha256& Field(std::string_view bytes);
  Sha256& Int(std::int64_t value);
  Digest Finish();

 private:
  evp_md_ctx_st* ctx_;
};

Digest Sha256Of(std::string_view bytes);

// SHA-256 of a file's bytes. Returns false, leaving `digest` alone, when the path does not name a
// readable regular file (missing, a directory); other read errors throw RefDiffError.
bool HashFile(const std::filesystem::path& path, Sha256& hasher, Digest& digest);

// As HashFile, but leaves the digest unfinished in `hasher` (so the caller can add more) and
// reports whether the file's owner-execute bit is set.
bool HashFileInto(const std::filesystem::path& path, Sha256& hasher, bool& owner_exec);

}  // namespace pe::refdiff
