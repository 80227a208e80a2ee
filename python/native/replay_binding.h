// The GPU replay (`flashsim replay`) callable from Python.
#pragma once
#include <string>
#include <vector>

namespace flashsim::python {

/// True when the module was built with the CUDA replay (hw/).
bool have_replay();

/// Runs `flashsim replay ARGS...` in this process (argv as the command
/// line's, without the program and command names) and returns its exit
/// code. Throws InputError / Error as the command does, and Error when the
/// module has no replay.
int replay(const std::vector<std::string>& args);

}  // namespace flashsim::python
