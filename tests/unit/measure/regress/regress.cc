// A small program with a regression planted by a compile-time switch, for the measure tests:
//   -DPLANTED_WORK    ParseRecords parses everything four times (extra work, same output)
//   -DPLANTED_ALLOCS  BuildIndex boxes every key on the heap (one extra allocation per record)
// regress N: parses N records, indexes them and prints a checksum.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace {

struct Record {
  std::uint64_t key;
  std::uint64_t value;
};

[[gnu::noinline]] std::vector<Record> ParseRecords(int n) {
  std::vector<Record> records(static_cast<std::size_t>(n));
  // Raw pointers, so at -O1 the cost stays in this function rather than in vector helpers.
  Record* out = records.data();
  int passes = 1;
#ifdef PLANTED_WORK
  passes = 4;
#endif
  for (int pass = 0; pass < passes; ++pass) {
    std::uint64_t state = 88172645463325252ull;
    for (int i = 0; i < n; ++i) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      out[i] = {state, state >> 11};
    }
  }
  return records;
}

[[gnu::noinline]] std::uint64_t BuildIndex(const std::vector<Record>& records) {
  constexpr std::size_t kBuckets = 1024;
  std::vector<std::uint64_t> bucket_storage(kBuckets);
  std::uint64_t* buckets = bucket_storage.data();
  const Record* in = records.data();
  const std::size_t n = records.size();
#ifdef PLANTED_ALLOCS
  std::vector<std::unique_ptr<std::uint64_t>> boxes(n);
  for (std::size_t i = 0; i < n; ++i) boxes[i].reset(new std::uint64_t(in[i].key));
  for (std::size_t i = 0; i < n; ++i) buckets[*boxes[i] % kBuckets] += 1;
#else
  for (std::size_t i = 0; i < n; ++i) buckets[in[i].key % kBuckets] += 1;
#endif
  std::uint64_t checksum = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) checksum = checksum * 31 + buckets[i] * i;
  return checksum;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::vector<Record> records = ParseRecords(n);
  std::printf("%llu\n", static_cast<unsigned long long>(BuildIndex(records)));
  return 0;
}
