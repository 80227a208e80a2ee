// Helpers of the app tests: scenario files and small traces in a temp folder.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/scenario/scenario_document.h"

namespace flashsim::test {

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// A CSV trace (time_ns,block_id,bytes,stream_id): `cycles` passes over
/// blocks 0..blocks-1 of `bytes` each, 1 µs apart.
inline std::string cyclic_csv(int blocks, int cycles, unsigned long long bytes) {
  std::string text = "time_ns,block_id,bytes,stream_id\n";
  long long t = 0;
  for (int c = 0; c < cycles; ++c) {
    for (int b = 0; b < blocks; ++b) {
      text += std::to_string(t) + "," + std::to_string(b) + "," + std::to_string(bytes) + ",0\n";
      t += 1000;
    }
  }
  return text;
}

/// The message of the exception `fn` throws, checked to be of type E.
template <class E, class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw the wrong type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "did not throw";
  return "";
}

#ifdef FLASHSIM_BINARY
/// What the flashsim binary did: exit code, stdout, stderr.
struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs `flashsim ARGS` in `cwd` (outputs captured in files there).
inline Outcome run_flashsim(const std::filesystem::path& cwd, const std::string& args) {
  const std::filesystem::path out = cwd / "stdout.txt";
  const std::filesystem::path err = cwd / "stderr.txt";
  const std::string command = "cd '" + cwd.string() + "' && '" + std::string(FLASHSIM_BINARY) + "' " + args + " > '" +
                              out.string() + "' 2> '" + err.string() + "'";
  const int status = std::system(command.c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = read_file(out);
  o.err = read_file(err);
  return o;
}
#endif

/// Writes `text` as s.yaml in `dir` beside a small trace.csv and resolves its
/// first sweep point: the error's message, or "" when it resolves.
inline std::string resolve_error(const std::filesystem::path& dir, const std::string& text) {
  write_file(dir / "trace.csv", cyclic_csv(3, 2, 1024));
  write_file(dir / "s.yaml", text);
  try {
    const ScenarioDocument doc = ScenarioDocument::from_file(dir / "s.yaml", {});
    (void)doc.resolve(doc.points().front());
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace flashsim::test
