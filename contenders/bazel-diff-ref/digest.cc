#include "digest.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "error.h"

namespace pe::refdiff {
namespace {

// Fetched once: EVP_sha256() would look the algorithm up again on every EVP_DigestInit_ex.
const EVP_MD* Sha256Algorithm() {
  static const EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string ToHex(const Digest& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(digest.size() * 2, '0');
  for (size_t i = 0; i < digest.size(); ++i) {
    hex[2 * i] = kDigits[digest[i] >> 4];
    hex[2 * i + 1] = kDigits[digest[i] & 0xf];
  }
  return hex;
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || Sha256Algorithm() == nullptr || EVP_DigestInit_ex(ctx_, Sha256Algorithm(), nullptr) != 1) {
    throw RefDiffError("OpenSSL cannot provide SHA-256");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

Sha256& Sha256::Update(std::string_view bytes) {
  EVP_DigestUpdate(ctx_, bytes.data(), bytes.size());
  return *this;
}

Sha256& Sha256::Update(const Digest& digest) {
  EVP_DigestUpdate(ctx_, digest.data(), digest.size());
  return *this;
}

Sha256& Sha256::Field(std::string_view bytes) {
  Int(static_cast<std::int64_t>(bytes.size()));
  return Update(bytes);
}

Sha256& Sha256::Int(std::int64_t value) {
  std::uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(value) >> (8 * i));
  EVP_DigestUpdate(ctx_, le, sizeof le);
  return *this;
}

Digest Sha256::Finish() {
  Digest digest;
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx_, digest.data(), &size);
  EVP_DigestInit_ex(ctx_, Sha256Algorithm(), nullptr);
  return digest;
}

Digest Sha256Of(std::string_view bytes) {
  Sha256 hasher;
  return hasher.Update(bytes).Finish();
}

namespace {

bool ReadInto(int fd, const std::filesystem::path& path, Sha256& hasher);

}  // namespace

bool HashFileInto(const std::filesystem::path& path, Sha256& hasher, bool& owner_exec) {
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    throw RefDiffError("cannot read " + path.string() + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) throw RefDiffError("cannot stat " + path.string() + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return false;
  owner_exec = (st.st_mode & S_IXUSR) != 0;
  return ReadInto(fd.get(), path, hasher);
}

bool HashFile(const std::filesystem::path& path, Sha256& hasher, Digest& digest) {
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    throw RefDiffError("cannot read " + path.string() + ": " + std::strerror(errno));
  }
  if (!ReadInto(fd.get(), path, hasher)) return false;
  digest = hasher.Finish();
  return true;
}

namespace {

bool ReadInto(int fd, const std::filesystem::path& path, Sha256& hasher) {
  // No fstat: a directory shows itself by failing the first read with EISDIR, and with a
  // hundred thousand source files every syscall saved is measurable.
  thread_local std::vector<char> buffer(1 << 16);
  for (bool first = true;; first = false) {
    ssize_t got = read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR && first) return false;
      throw RefDiffError("cannot read " + path.string() + ": " + std::strerror(errno));
    }
    if (got == 0) break;
    hasher.Update(std::string_view(buffer.data(), static_cast<size_t>(got)));
  }
  return true;
}

}  // namespace

}  // namespace pe::refdiff
