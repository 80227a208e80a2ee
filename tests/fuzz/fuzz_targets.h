// Fuzz targets: one function per input reader (issue 14). Each takes raw
// bytes, feeds them to the reader as a user's file would reach it, and
// returns when the reader accepted the input or refused it with flashsim's
// Error (what the CLI prints as "error: ..."). Anything else — another
// exception ("internal error" in the CLI), a signal, exhausted memory — is
// a finding: the target aborts so that libFuzzer (libfuzzer/*.cpp, built
// with -DFLASHSIM_FUZZ=ON under clang) and the corpus replay test
// (fuzz_replay_test.cpp, every build) both see it.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

namespace flashsim::fuzz {

using Input = std::span<const std::uint8_t>;

struct Target {
  std::string_view name;  ///< also the corpus folder: tests/fuzz/corpus/<name>/
  bool (*run)(Input data);  ///< true: accepted; false: refused with flashsim's Error
};

/// csv, oracle_general, kineto, hdf5, scenario, program.
std::span<const Target> targets();

/// The target named `name`; throws std::invalid_argument if none.
const Target& target(std::string_view name);

}  // namespace flashsim::fuzz
