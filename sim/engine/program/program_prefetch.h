// A what-if of the execution model: the program prefetches its host-to-
// device copies. Every H2D copy of a host thread moves to a copy stream of
// that thread's own and is issued `distance` copies early (at the place of
// the copy `distance` before it: distance 1 is double buffering, the next
// layer's weights loading while this one computes); at the copy's original
// place, its stream waits for the copy's event (cudaStreamWaitEvent), so
// kernels after it still see the data. The moved copies are asynchronous
// (cudaMemcpyAsync); combine with pinned host memory (ExecutorOptions::
// host_memory) since pageable copies block the host whatever the call.
// Assumes the device has room for `distance` extra copies in flight (the
// program's buffers are not reused before the prefetched copy lands).
#pragma once
#include <cstddef>

#include "traces/program.h"

namespace flashsim {

/// The transformed program (ops in host order, check_program-clean when the
/// input is). Inserted ops take the host time of the place they are issued
/// at, so the recorded gaps between the program's own calls are unchanged
/// under HostTime::calibrated. Throws InputError when `distance` > 1024.
Program with_prefetch(const Program& program, std::size_t distance);

}  // namespace flashsim
