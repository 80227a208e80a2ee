// flashsim-hw: the hardware backend's command line. `info` lists the GPUs
// with the properties the fast-tier model needs; `selftest` checks the
// consumer kernel against the host checksum; every other verb is a command
// of the registry (hw/cli: replay, calibrate), so the backend runs where
// the `flashsim` executable is not built.
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>

#include "hw/device_info.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "traces/atomic_file.h"

int main(int argc, char** argv) {
  flashsim::remove_temp_files_on_signals();
  const char* verb = argc > 1 ? argv[1] : "info";
  try {
    if (const auto* command = flashsim::cli::CommandRegistry::instance().find(verb)) {
      return command->run(argc - 1, argv + 1);
    }
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
    std::fprintf(stderr, "usage: flashsim-hw [info|selftest|replay|calibrate] ...\n");
    return 2;
  } catch (const flashsim::InputError& e) {
    std::cerr << "flashsim-hw " << verb << ": error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "flashsim-hw " << verb << ": error: " << e.what() << "\n";
    return 1;
  }
}
