// Issue #28: the candidate's get-impacted-targets was slower than the baseline's because reading
// a hashes file allocated a JSON node, a key and a value per entry (and copied both out again),
// and on that machine mimalloc served those allocations slower than glibc malloc. The candidate
// now reads the file's bytes in place. These tests count what each build's code path allocates,
// in this process, with operator new replaced below: a count, not a time, so they hold on any
// machine and under any load. (LD_PRELOAD counting cannot see the candidate executable's
// allocations: mimalloc defines operator new itself.)
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <string>
#include <vector>

#include "cli.h"
#include "flat_hashes.h"
#include "hash_json.h"
#include "temp_file.h"

namespace {

std::atomic<std::uint64_t> allocations{0};

}  // namespace

// Every C++ allocation of this test program goes through these two (the array and nothrow
// forms call them).
void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  std::size_t alignment = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace pe::refdiff {
namespace {

constexpr int kEntries = 20000;
constexpr int kChanged = 100;  // in FINAL: the first kChanged labels get new hashes

std::string Hex64(int seed) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(64, '0');
  unsigned x = static_cast<unsigned>(seed) * 2654435761u + 1;
  for (char& c : out) {
    x = x * 1103515245u + 12345u;
    c = kDigits[(x >> 16) & 0xf];
  }
  return out;
}

// A hashes file as generate-hashes writes it, kEntries labels long.
std::string HashesText(bool final_side) {
  std::string out = "{";
  for (int i = 0; i < kEntries; ++i) {
    int seed = final_side && i < kChanged ? i + kEntries : i;
    out += i == 0 ? "\n  " : ",\n  ";
    out += "\"//pkg" + std::to_string(i / 40) + ":t" + std::to_string(i) + "\": \"" + Hex64(seed) + "~" +
           Hex64(seed + 7) + "\"";
  }
  out += "\n}\n";
  return out;
}

template <typename Body>
std::uint64_t CountAllocations(Body body) {
  std::uint64_t before = allocations.load();
  body();
  return allocations.load() - before;
}

TEST(FlatHashFileAllocations, AFewPerFileNotOnePerEntry) {
  std::string text = HashesText(false);
  std::uint64_t dom = CountAllocations([&] { ParseHashFile(text, "h.json"); });
  std::uint64_t flat = CountAllocations([&] { ParseFlatHashFile(text, "h.json"); });
  // The judge: the JSON document allocates more than once per entry.
  EXPECT_GT(dom, 2u * kEntries);
  // The flat reader: the bytes it holds, the entries' array, their owner. Not one per entry.
  EXPECT_LE(flat, 8u) << "ParseHashFile: " << dom;
}

class GetImpactedTargetsAllocations : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(start_.path(), HashesText(false));
    WriteFile(final_.path(), HashesText(true));
  }

  // Allocations of one whole get-impacted-targets as `flavour` runs it; its answer in *answer.
  std::uint64_t Run(const Flavour& flavour, std::string* answer) {
    std::vector<std::string> args = {"get-impacted-targets",
                                     "-w",
                                     std::filesystem::temp_directory_path().string(),
                                     "-b",
                                     REFDIFF_REPLAY_BAZEL,
                                     "--excludeExternalTargets",
                                     "-sh",
                                     start_.path().string(),
                                     "-fh",
                                     final_.path().string(),
                                     "-o",
                                     out_.path().string()};
    int exit_code = 0;
    std::uint64_t count = CountAllocations([&] { exit_code = pe::refdiff::Run(args, flavour); });
    EXPECT_EQ(exit_code, 0);
    *answer = ReadFile(out_.path());
    return count;
  }

  TempFile start_{"start"}, final_{"final"}, out_{"out"};
};

TEST_F(GetImpactedTargetsAllocations, TheCandidateAllocatesPerChangedTargetNotPerEntry) {
  std::string baseline_answer, candidate_answer;
  std::uint64_t baseline = Run(BaselineFlavour(), &baseline_answer);
  std::uint64_t candidate = Run(CandidateFlavour(), &candidate_answer);
  EXPECT_EQ(std::count(candidate_answer.begin(), candidate_answer.end(), '\n'), kChanged);
  EXPECT_EQ(candidate_answer, baseline_answer);
  // The baseline, kept as the original: a JSON document per file, several allocations an entry.
  EXPECT_GT(baseline, 2u * 2 * kEntries);
  // The candidate: a few per file and thread, and a few per impacted label (its string, the
  // sorting), far below one per entry.
  EXPECT_LE(candidate, 200u + 10u * kChanged) << "baseline: " << baseline;
}

}  // namespace
}  // namespace pe::refdiff
