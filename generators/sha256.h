// SHA-256 via OpenSSL's EVP interface, as lowercase hex.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace pe::gen {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view bytes);
  std::array<std::uint8_t, 32> Digest();  // finishes; the object is then spent
  std::string HexDigest();

 private:
  evp_md_ctx_st* ctx_;
};

std::string Sha256Hex(std::string_view bytes);
std::string ToHex(const std::uint8_t* bytes, std::size_t size);
// Streams the file; throws std::runtime_error if it cannot be read.
std::string Sha256FileHex(const std::filesystem::path& path);

}  // namespace pe::gen
