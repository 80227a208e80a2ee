// Results folders of the subcommands, checked before any work is done.
#pragma once
#include <filesystem>

namespace flashsim::cli {

/// Creates `dir` if needed and checks that files can be created in it.
/// Throws InputError naming it otherwise (a file in the way, no permission).
void check_output_dir(const std::filesystem::path& dir);

}  // namespace flashsim::cli
