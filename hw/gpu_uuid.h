// GPU UUIDs in nvidia-smi's form, "GPU-" + 8-4-4-4-12 lowercase hex digits
// of the 16 bytes in order (e.g. GPU-5f4d2e1c-0a9b-4c3d-8e7f-112233445566):
// what NVML's nvmlDeviceGetUUID returns and what cudaDeviceProp::uuid holds
// as raw bytes. Header-only and CUDA-free, so CPU-side code (baseline
// provenance checks, tests) can use it.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace flashsim::hw {

/// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 UUID bytes
/// (cudaDeviceProp::uuid.bytes), lowercase hex, bytes in order.
inline std::string format_gpu_uuid(const std::array<unsigned char, 16>& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "GPU-";
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    if (k == 4 || k == 6 || k == 8 || k == 10) out += '-';
    out += kHex[bytes[k] >> 4];
    out += kHex[bytes[k] & 0xf];
  }
  return out;
}

/// True for exactly "GPU-" followed by 8-4-4-4-12 hex digits (either case).
inline bool is_gpu_uuid(std::string_view s) {
  if (s.size() != 40 || s.substr(0, 4) != "GPU-") return false;
  for (std::size_t k = 4; k < s.size(); ++k) {
    const char c = s[k];
    const bool dash = k == 12 || k == 17 || k == 22 || k == 27;
    if (dash) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

}  // namespace flashsim::hw
