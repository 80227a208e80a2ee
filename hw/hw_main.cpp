// flashsim-hw: the hardware backend's command line. `info` lists the GPUs
// with the properties the fast-tier model needs; `selftest` checks the
// consumer kernel against the host checksum.
#include <cstdio>
#include <cstring>
#include <exception>

#include "hw/device_info.h"

int main(int argc, char** argv) {
  try {
    const char* verb = argc > 1 ? argv[1] : "info";
    const auto devices = flashsim::hw::list_devices();
    if (devices.empty()) {
      std::fprintf(stderr, "flashsim-hw: no CUDA device visible\n");
      return 3;
    }
    if (std::strcmp(verb, "info") == 0) {
      for (const auto& d : devices) {
        std::printf("device %d: %s (sm_%d%d), %d SMs\n", d.ordinal, d.name.c_str(), d.compute_major,
                    d.compute_minor, d.sm_count);
        std::printf("  global memory        %llu B\n", static_cast<unsigned long long>(d.global_memory_bytes));
        std::printf("  L2                   %llu B\n", static_cast<unsigned long long>(d.l2_bytes));
        std::printf("  persisting L2 max    %llu B\n", static_cast<unsigned long long>(d.persisting_l2_max_bytes));
        std::printf("  access window max    %llu B\n",
                    static_cast<unsigned long long>(d.access_policy_max_window_bytes));
      }
      return 0;
    }
    if (std::strcmp(verb, "selftest") == 0) {
      const bool ok = flashsim::hw::consume_self_test(0, std::size_t{64} << 20);
      std::printf("consume kernel self-test: %s\n", ok ? "pass" : "FAIL");
      return ok ? 0 : 1;
    }
    std::fprintf(stderr, "usage: flashsim-hw [info|selftest]\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flashsim-hw: %s\n", e.what());
    return 1;
  }
}
