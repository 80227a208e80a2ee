// The consumer kernel: reads every byte of a block once, as the operator
// that uses a weight block would, and folds it into a checksum so the
// compiler cannot drop the loads. hw/ launches it on each block it replays.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace flashsim::kernels {

/// Checksum `launch_consume` computes, on the host, for checking: the
/// wrapping sum of the 64-bit little-endian words of `data` (`bytes` must be
/// a multiple of 8).
std::uint64_t consume_checksum_host(const void* data, std::size_t bytes);

/// Launches a grid-stride read of `bytes` (a multiple of 16) at `device_ptr`
/// (16-byte aligned) on `stream`, atomically adding the wrapping 64-bit word
/// sum into `*device_sink`. Returns the launch status (cudaGetLastError);
/// throws nothing.
cudaError_t launch_consume(const void* device_ptr, std::size_t bytes, unsigned long long* device_sink,
                           cudaStream_t stream);

}  // namespace flashsim::kernels
