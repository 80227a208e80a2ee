// The fuzz targets in every build (CI's short fuzzing run): each committed
// corpus input, then deterministic mutations of it (bit flips, boundary
// bytes, truncations, duplicated and deleted spans), and every input that
// once crashed a reader (tests/fuzz/regressions/). A finding aborts the
// test; the input that did it is left at /dev/shm/flashsim-fuzz-PID.EXT.
// Long runs use the libFuzzer executables (tests/fuzz/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "tests/fuzz/fuzz_targets.h"

namespace flashsim::fuzz {
namespace {

const std::filesystem::path kFuzzDir = std::filesystem::path(FLASHSIM_SOURCE_DIR) / "tests/fuzz";

// The inputs in tests/fuzz/<folder>/<target>/, in name order (none if absent).
std::vector<std::vector<std::uint8_t>> inputs_of(std::string_view folder, std::string_view target) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(kFuzzDir / folder / target, ec), end; !ec && it != end; it.increment(ec)) {
    files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::vector<std::uint8_t>> out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return out;
}

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> b, std::mt19937_64& rng) {
  static constexpr std::uint8_t kBoundary[] = {0x00, 0xff, 0x7f, 0x80, '\n', '\r', ',', '"', '-', '9', '{', '[', ':', '&', '*'};
  auto pick = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < edits; ++k) {
    const std::size_t at = pick(b.size() + 1);
    switch (rng() % 6) {
      case 0:
        if (at < b.size()) b[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        if (at < b.size()) b[at] = kBoundary[pick(std::size(kBoundary))];
        break;
      case 2:
        b.resize(at);  // truncation
        break;
      case 3: {  // duplicate a span
        const std::size_t from = pick(b.size()), len = std::min<std::size_t>(pick(64) + 1, b.size() - from);
        if (len > 0) b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(from),
                              b.begin() + static_cast<std::ptrdiff_t>(from + len));
        break;
      }
      case 4: {  // delete a span
        const std::size_t len = std::min<std::size_t>(pick(64) + 1, b.size() - std::min(at, b.size()));
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(std::min(at, b.size())),
                b.begin() + static_cast<std::ptrdiff_t>(std::min(at, b.size()) + len));
        break;
      }
      case 5:  // 8 random bytes (lengths, offsets, counts)
        for (std::size_t i = at; i < std::min(at + 8, b.size()); ++i) b[i] = static_cast<std::uint8_t>(rng());
        break;
    }
  }
  return b;
}

class FuzzReplay : public ::testing::TestWithParam<std::string_view> {};

TEST_P(FuzzReplay, CorpusAndMutationsAreReadOrRefused) {
  const Target& t = target(GetParam());
  const auto seeds = inputs_of("corpus", t.name);
  ASSERT_FALSE(seeds.empty()) << "no corpus for " << t.name;
  std::mt19937_64 rng(20261201);
  for (const auto& s : seeds) EXPECT_TRUE(t.run(s)) << t.name << ": a corpus input is refused";
  constexpr int kMutationsPerSeed = 300;
  int accepted = 0, refused = 0;
  for (const auto& s : seeds) {
    for (int i = 0; i < kMutationsPerSeed; ++i) (t.run(mutate(s, rng)) ? accepted : refused)++;
  }
  EXPECT_FALSE(t.run({})) << "the empty input is accepted";
  // Both outcomes occur: the mutations reach past the first check.
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
  std::printf("%s: %d mutations accepted, %d refused\n", std::string(t.name).c_str(), accepted, refused);
}

// Inputs that once crashed a reader (found by the libFuzzer runs), and the
// corpus the hour-long runs grew (merged to the inputs that add coverage):
// each is read or refused, never a crash.
TEST_P(FuzzReplay, RegressionsAndGrownCorpusAreReadOrRefused) {
  const Target& t = target(GetParam());
  for (const auto& input : inputs_of("regressions", t.name)) t.run(input);
  int accepted = 0, refused = 0;
  for (const auto& input : inputs_of("grown", t.name)) (t.run(input) ? accepted : refused)++;
  std::printf("%s: grown corpus %d accepted, %d refused\n", std::string(t.name).c_str(), accepted, refused);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplay,
                         ::testing::Values("csv", "oracle_general", "kineto", "hdf5", "scenario", "program"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace flashsim::fuzz
