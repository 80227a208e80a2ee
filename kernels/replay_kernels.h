// Kernels the GPU replay (hw/replay) launches per access, and the
// microbenchmark kernels of the calibration (hw/calibrate). Host-callable
// launchers only: every function returns the launch status
// (cudaGetLastError) and throws nothing; callers check it.
//
// Clocks: "GPU time" is %globaltimer (ns, device-wide; it advances in
// steps of up to 1 µs on some parts, so holds shorter than that are coarse).
// Per-access stamps are written with atomicMin/atomicMax so that the first
// CTA to start and the last to finish define the kernel's span.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace flashsim::kernels {

/// What the per-access kernel does with the block's bytes.
enum class ConsumeMode : int {
  read = 0,  ///< read every byte once (streaming loads), fold into a checksum
  gemv = 1,  ///< treat the block as a row-major bf16 matrix [rows x 4096] (tail rows
             ///< shorter) and multiply it by a device vector; the checksum is still
             ///< taken over every 8-byte word so both modes verify the data
};

/// Columns of the bf16 GEMV view of a block (8 KiB rows).
inline constexpr std::size_t kGemvColumns = 4096;

/// Arguments of one per-access kernel launch.
struct ConsumeArgs {
  const void* data = nullptr;          ///< 16-byte aligned device pointer
  std::size_t bytes = 0;               ///< any size > 0 (a tail < 8 B is zero-padded into one word)
  unsigned long long* checksum = nullptr;  ///< += wrapping sum of the block's words; may be null
  unsigned long long* start_ns = nullptr;  ///< atomicMin(globaltimer at CTA start); may be null
  unsigned long long* end_ns = nullptr;    ///< atomicMax(globaltimer at CTA end); may be null
  unsigned long long not_before_ns = 0;    ///< spin until globaltimer >= this before reading (0 = no wait)
  unsigned long long hold_ns = 0;          ///< after reading, spin until CTA start + hold_ns
  ConsumeMode mode = ConsumeMode::read;
  const std::uint16_t* gemv_x = nullptr;   ///< kGemvColumns bf16 values (mode gemv)
  float* gemv_sink = nullptr;              ///< += sum of the GEMV outputs (mode gemv; keeps them live)
  int max_ctas = 132 * 4;                  ///< grid cap (a few waves of the H200's 132 SMs)
  /// false: streaming loads (ld.global.cs, evict-first: a block read once per
  /// use should not push others out of L2); true: ld.global.cg (cached in
  /// L2), for the L2 mode whose persisting window must keep the lines.
  bool cached_loads = false;
};

/// The host's value of ConsumeArgs::checksum for `bytes` at `data`: the
/// wrapping sum of the 64-bit little-endian words, the last partial word
/// zero-padded.
std::uint64_t replay_checksum_host(const void* data, std::size_t bytes);

/// Launches the per-access kernel on `stream`.
cudaError_t launch_replay_consume(const ConsumeArgs& args, cudaStream_t stream);

/// Sets start[i] = ~0 and end[i] = 0 for i < n (the stamps' neutral values).
cudaError_t launch_init_stamps(unsigned long long* start, unsigned long long* end, std::size_t n,
                               cudaStream_t stream);

/// Copies the first 16 bytes at `data` to `out` (2 words): what a slot
/// holds, read from device memory (the replay's verify mode).
cudaError_t launch_probe16(const void* data, unsigned long long* out, cudaStream_t stream);

/// Writes globaltimer into *out (one thread): anchors events to GPU time.
cudaError_t launch_stamp_now(unsigned long long* out, cudaStream_t stream);

/// Builds a pointer-chasing cycle: node k lives at base + offsets[k]
/// (bytes, 8-aligned) and holds the address of node (k+1) mod n.
cudaError_t launch_build_chain(void* base, const std::uint64_t* offsets_device, std::size_t n, cudaStream_t stream);

/// One thread follows the cycle from `start` for `steps` dependent loads
/// with ld.global.cg (L1 bypassed, cached in L2), after `warm_steps`
/// untimed ones; writes the elapsed SM cycles (clock64) to out[0], the
/// elapsed globaltimer ns to out[1] and the final pointer to out[2] (so
/// the loads cannot be removed).
cudaError_t launch_chase(const void* start, std::uint64_t warm_steps, std::uint64_t steps, unsigned long long* out,
                         cudaStream_t stream);

}  // namespace flashsim::kernels
