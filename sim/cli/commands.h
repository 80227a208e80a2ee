// The `flashsim` subcommands; main() dispatches on the first argument.
// Each returns the process exit code and throws flashsim::Error on failure.
#pragma once

namespace flashsim::cli {

int run_command(int argc, char** argv);       ///< flashsim run [SCENARIO] [options]
int trace_command(int argc, char** argv);     ///< flashsim trace import|convert|stats ...
int policies_command(int argc, char** argv);  ///< flashsim policies: list registered policies and params

}  // namespace flashsim::cli
