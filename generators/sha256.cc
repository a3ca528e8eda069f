#include "generators/sha256.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace pe::gen {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("cannot initialise SHA-256");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::Update(std::string_view bytes) { EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()); }

std::array<std::uint8_t, 32> Sha256::Digest() {
  std::array<std::uint8_t, 32> out{};
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx_, out.data(), &size);
  return out;
}

std::string Sha256::HexDigest() {
  const auto digest = Digest();
  return ToHex(digest.data(), digest.size());
}

std::string ToHex(const std::uint8_t* bytes, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(size * 2, '0');
  for (std::size_t i = 0; i < size; ++i) {
    hex[2 * i] = kDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return hex;
}

std::string Sha256Hex(std::string_view bytes) {
  std::uint8_t digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr);
  return ToHex(digest, size);
}

std::string Sha256FileHex(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::runtime_error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  }
  Sha256 hash;
  // One buffer per thread, reused: a fresh zero-filled megabyte per file cost more than the
  // hashing when a cached fixture of 160,000 small files is verified on every run (issue 27).
  thread_local std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      throw std::runtime_error(fmt::format("cannot read {}: {}", path.string(), std::strerror(error)));
    }
    hash.Update(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  ::close(fd);
  return hash.HexDigest();
}

}  // namespace pe::gen
