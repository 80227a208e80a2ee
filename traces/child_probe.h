// Running a risky read in a child process first. HDF5 1.10 (Debian 12's
// libhdf5) parses some damaged object headers into a crash (a chunk
// dimension of 0 divides by zero in H5D__chunk_set_info; found by the HDF5
// fuzz target, tests/fuzz/regressions/hdf5/). Nothing before HDF5's own
// parser can see that damage, so the reader opens a file once in a forked
// child: if the child dies by a signal, the parent reports the file as
// damaged instead of dying the same way.
#pragma once
#include <chrono>
#include <functional>
#include <string>

namespace flashsim {

/// Runs `body` in a forked child (exceptions there are ignored: the parent
/// repeats the work and reports them itself) and waits for it, at most
/// `timeout`. Returns "" when the child finished, else what happened: "died
/// of signal 8 (Floating point exception)", or "did not finish in 60 s (an
/// endless loop?) and was stopped" (SIGKILL; the fuzzer found a damaged
/// HDF5 file that loops libhdf5 forever). When fork() is unavailable (no
/// memory for the copy) it returns "" without running anything: the caller
/// proceeds unprotected.
/// The caller must hold every lock other threads take around the library
/// `body` uses (the child inherits a copy of its state).
std::string death_in_child(const std::function<void()>& body,
                           std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace flashsim
