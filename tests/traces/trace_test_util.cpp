#include "tests/traces/trace_test_util.h"

#include <fstream>

namespace flashsim::test {

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace flashsim::test
