// libFuzzer entry for the csv reader (tests/fuzz/fuzz_targets.h).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const flashsim::fuzz::Target& target = flashsim::fuzz::target("csv");
  target.run({data, size});
  return 0;
}
