// Helpers shared by the traces tests: record comparison, random traces,
// listing a directory (to check that no output or temp file is left).
#pragma once
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "traces/trace_source.h"

namespace flashsim::test {

inline std::string describe(const AccessRecord& r) {
  return "{t=" + std::to_string(r.time_ns) + " id=" + std::to_string(r.block_id) + " bytes=" + std::to_string(r.bytes) +
         " op=" + std::to_string(int(r.op)) + " stream=" + std::to_string(r.stream_id) +
         " req=" + std::to_string(r.request_id) + " tok=" + std::to_string(r.token_index) +
         " phase=" + std::to_string(int(r.phase)) + " opid=" + std::to_string(r.operator_id) +
         " compute=" + std::to_string(r.compute_ns) + " addr=" + std::to_string(r.address) +
         " off=" + std::to_string(r.offset) + " next=" + std::to_string(r.next_use_index) + "}";
}

inline bool same(const AccessRecord& a, const AccessRecord& b) {
  return a.time_ns == b.time_ns && a.block_id == b.block_id && a.bytes == b.bytes && a.op == b.op &&
         a.stream_id == b.stream_id && a.request_id == b.request_id && a.token_index == b.token_index &&
         a.phase == b.phase && a.operator_id == b.operator_id && a.compute_ns == b.compute_ns &&
         a.address == b.address && a.offset == b.offset && a.next_use_index == b.next_use_index;
}

/// Reads all of `source` (from the start) in reads of `chunk` records.
inline std::vector<AccessRecord> read_all(ITraceSource& source, std::size_t chunk = 1000) {
  source.rewind();
  std::vector<AccessRecord> out, buffer(chunk);
  while (std::size_t n = source.read(buffer)) out.insert(out.end(), buffer.begin(), buffer.begin() + n);
  return out;
}

inline void expect_same_records(const std::vector<AccessRecord>& expected, const std::vector<AccessRecord>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_TRUE(same(expected[i], actual[i])) << "record " << i << ": expected " << describe(expected[i]) << " got "
                                              << describe(actual[i]);
  }
}

/// A random trace: `n` accesses over `blocks` blocks (skewed), each block of
/// a fixed random size in [1, max_bytes], two streams with non-decreasing time.
inline std::vector<AccessRecord> random_trace(std::size_t n, std::uint64_t blocks, std::uint64_t seed,
                                              ByteCount max_bytes = 1000) {
  std::mt19937_64 rng(seed);
  std::vector<ByteCount> size(blocks);
  for (auto& s : size) s = 1 + rng() % max_bytes;
  std::vector<AccessRecord> out(n);
  Nanoseconds t[2] = {0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    // Skew: square a uniform draw so low ids are hot.
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const std::uint64_t b = static_cast<std::uint64_t>(u * u * static_cast<double>(blocks)) % blocks;
    AccessRecord& r = out[i];
    r.stream_id = static_cast<std::uint32_t>(rng() % 2);
    t[r.stream_id] += static_cast<Nanoseconds>(rng() % 100);
    r.time_ns = t[r.stream_id];
    r.block_id = b * 7 + 3;  // sparse ids
    r.bytes = size[b];
    r.op = rng() % 4 == 0 ? AccessOp::write : AccessOp::read;
  }
  return out;
}

/// Names of the entries of `dir`.
inline std::set<std::string> listing(const std::filesystem::path& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

/// Writes `text` to `path`.
void write_text_file(const std::filesystem::path& path, const std::string& text);

/// Asserts that calling `f` throws InputError whose message contains every one of `parts`.
#define EXPECT_INPUT_ERROR(statement, ...)                                                    \
  do {                                                                                        \
    try {                                                                                     \
      statement;                                                                              \
      ADD_FAILURE() << "expected InputError from: " #statement;                               \
    } catch (const ::flashsim::InputError& e) {                                               \
      for (const std::string& part : std::vector<std::string>{__VA_ARGS__}) {                 \
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos)                        \
            << "message '" << e.what() << "' lacks '" << part << "'";                         \
      }                                                                                       \
    }                                                                                         \
  } while (0)

}  // namespace flashsim::test
