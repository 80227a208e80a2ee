// libFuzzer entry for the program reader (the execution model on a capture) (tests/fuzz/fuzz_targets.h).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const flashsim::fuzz::Target& target = flashsim::fuzz::target("program");
  target.run({data, size});
  return 0;
}
