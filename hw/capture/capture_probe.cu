// The capture probe (flashsim_capture_probe): times short loops of one CUDA
// API call each, so that `flashsim capture` can measure the capture's own
// per-call cost on the host it captures on. `flashsim capture` runs it
// without and under the injection library, before and after the program
// (docs/capture.md, "The capture's own cost"); the converter reads the
// timing files and, from the captured runs' raw records, the recorded gaps
// between consecutive calls (traces/importers/capture_host_facts.h).
//
// Usage: flashsim_capture_probe OUT.txt [CALLS]   (CALLS per loop, default 2000)
// Writes "flashsim-capture-probe 1", then "CALL NS_PER_CALL CALLS" per loop
// (host steady clock over the whole loop, after a warm-up of CALLS / 10).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

__global__ void empty_kernel() {}

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "flashsim_capture_probe: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

double time_loop(const std::function<void()>& call, int calls) {
  for (int i = 0; i < calls / 10; ++i) call();
  cudaDeviceSynchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  const auto t1 = std::chrono::steady_clock::now();
  cudaDeviceSynchronize();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: flashsim_capture_probe OUT.txt [CALLS]\n");
    return 2;
  }
  const int calls = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (calls < 10 || calls > 1000000) {
    std::fprintf(stderr, "flashsim_capture_probe: CALLS must be in [10, 1000000]\n");
    return 2;
  }
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr, done = nullptr;
  void* device = nullptr;
  void* pinned = nullptr;
  if (!ok(cudaSetDevice(0), "cudaSetDevice") || !ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream") ||
      !ok(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "event") ||
      !ok(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "event") ||
      !ok(cudaMalloc(&device, 4096), "cudaMalloc") || !ok(cudaMallocHost(&pinned, 4096), "cudaMallocHost")) {
    return 1;
  }
  cudaEventRecord(done, stream);
  cudaStreamSynchronize(stream);
  int dev = 0;
  // The call kinds of the execution model (sim/engine/program/program_executor.h);
  // each loop leaves the GPU idle, so synchronisations return at once.
  const std::vector<std::pair<const char*, std::function<void()>>> loops = {
      {"launch", [&] { empty_kernel<<<1, 1, 0, stream>>>(); }},
      {"copy_async", [&] { cudaMemcpyAsync(device, pinned, 4, cudaMemcpyHostToDevice, stream); }},
      {"sync_copy", [&] { cudaMemcpy(pinned, device, 4, cudaMemcpyDeviceToHost); }},
      {"event_record", [&] { cudaEventRecord(event, stream); }},
      {"stream_wait_event", [&] { cudaStreamWaitEvent(stream, done, 0); }},
      {"stream_sync", [&] { cudaStreamSynchronize(stream); }},
      {"event_sync", [&] { cudaEventSynchronize(done); }},
      {"device_sync", [&] { cudaDeviceSynchronize(); }},
      {"host_call", [&] { cudaGetDevice(&dev); }},
  };
  std::string text = "flashsim-capture-probe 1\n";
  for (const auto& [name, call] : loops) {
    const double ns = time_loop(call, calls);
    if (!ok(cudaGetLastError(), name)) return 1;
    char line[128];
    std::snprintf(line, sizeof line, "%s %.1f %d\n", name, ns, calls);
    text += line;
  }
  const std::string temp = std::string(argv[1]) + ".tmp";
  std::FILE* f = std::fopen(temp.c_str(), "w");
  if (f == nullptr || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0 || std::rename(temp.c_str(), argv[1]) != 0) {
    std::fprintf(stderr, "flashsim_capture_probe: cannot write %s\n", argv[1]);
    return 1;
  }
  cudaFreeHost(pinned);
  cudaFree(device);
  return 0;
}
