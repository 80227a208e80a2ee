// flashsim.replay from Python: the `flashsim replay` command itself
// (hw/cli/replay_command.cpp, linked into the module when CUDA is built), run
// in-process so that policies and prefetchers registered from Python drive
// the GPU replay, and its host decision cost is measured like any other's.
#include "python/native/replay_binding.h"

#include <pybind11/pybind11.h>

#include "sim/core/errors.h"

#ifdef FLASHSIM_PYTHON_HAVE_REPLAY
#include "sim/cli/command_registry.h"
#endif

namespace py = pybind11;

namespace flashsim::python {

bool have_replay() {
#ifdef FLASHSIM_PYTHON_HAVE_REPLAY
  return true;
#else
  return false;
#endif
}

int replay(const std::vector<std::string>& args) {
#ifdef FLASHSIM_PYTHON_HAVE_REPLAY
  const cli::Command* command = cli::CommandRegistry::instance().find("replay");
  if (command == nullptr) throw Error("flashsim.replay: the replay command is not linked into this module");
  std::vector<std::string> storage{"replay"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  py::gil_scoped_release release;  // Python components take the GIL back per call
  return command->run(static_cast<int>(storage.size()), argv.data());
#else
  (void)args;
  throw Error("flashsim.replay: this build has no GPU replay (the CUDA toolkit was not found at configure time)");
#endif
}

}  // namespace flashsim::python
