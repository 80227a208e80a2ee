#include "sim/cli/output_dir.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "sim/core/errors.h"
#include "traces/atomic_file.h"

namespace flashsim::cli {

OutputDir::OutputDir(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  // The folders that do not exist yet, outermost first: the ones to remove on failure.
  const std::filesystem::path absolute = std::filesystem::absolute(dir_, ec).lexically_normal();
  for (std::filesystem::path p = absolute; !ec && p.has_relative_path(); p = p.parent_path()) {
    std::error_code missing;
    if (std::filesystem::symlink_status(p, missing).type() != std::filesystem::file_type::not_found) break;
    created_.insert(created_.begin(), p);
  }
  ec.clear();
  std::filesystem::create_directories(dir_, ec);
  if (ec || !std::filesystem::is_directory(dir_, ec)) {
    created_.clear();
    throw InputError("results folder '" + dir_.string() + "': cannot create it" +
                     (ec ? ": " + ec.message() : ": not a directory"));
  }
  if (access(dir_.c_str(), W_OK | X_OK) != 0) {
    const std::string why = std::strerror(errno);
    throw InputError("results folder '" + dir_.string() + "': not writable: " + why);
  }
  for (const auto& p : created_) on_signal_.push_back(std::make_unique<SignalCleanupGuard>(p));
  const std::string removed = describe_removed(remove_stale_temp_files(dir_, ".tmp-"));
  if (!removed.empty()) std::cerr << "flashsim: " << removed << "\n";
}

OutputDir::~OutputDir() {
  if (kept_) return;
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    std::error_code ec;
    std::filesystem::remove(*it, ec);  // only removes an empty folder
    if (ec) break;
  }
}

void check_output_path(const char* option, const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (std::filesystem::is_directory(p, ec)) throw InputError(std::string(option) + " " + path + ": is a folder, not a file");
  if (std::filesystem::exists(p, ec) && !std::filesystem::is_regular_file(p, ec)) {
    throw InputError(std::string(option) + " " + path + ": exists and is not a regular file");
  }
  const std::filesystem::path parent = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  if (!std::filesystem::is_directory(parent, ec)) {
    throw InputError(std::string(option) + " " + path + ": the folder " + parent.string() + " does not exist");
  }
}

namespace {

// The parsed JSON of `path`, or null when it is not JSON (or unreadable).
nlohmann::json read_json_quietly(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  return nlohmann::json::parse(in, nullptr, false);  // a discarded value on bad JSON
}

std::string rerun_advice(const nlohmann::json& j) {
  const auto it = j.find("scenario_source");
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty()) return "";
  const std::string source = it->get<std::string>();
  if (source == "<builtin:default.yaml>") return "; its scenario was the embedded default: `flashsim run` runs it again";
  std::error_code ec;
  if (source.front() == '<' || !std::filesystem::is_regular_file(source, ec)) return "; its scenario came from " + source;
  return "; its scenario was " + source + ": `flashsim run " + source + "` runs it again";
}

// A results folder as a scenario folder (or its results.h5 as a scenario):
// what reads it. A folder of shards alone has no summary.json yet.
std::string describe_results_folder(const std::filesystem::path& dir, const std::string& given) {
  std::error_code ec;
  const std::filesystem::path summary = dir / "summary.json", sweep = dir / "sweep.json";
  const bool merged = std::filesystem::is_regular_file(summary, ec);
  if (!merged && !std::filesystem::is_regular_file(sweep, ec)) return "";
  const nlohmann::json j = read_json_quietly(merged ? summary : sweep);
  const std::string rerun = j.is_object() ? rerun_advice(j) : std::string();
  const std::string what = "'" + given + "' is " + (given == dir.string() ? "a results folder" : "in a results folder") +
                           " of `flashsim run`, not a scenario";
  if (!merged) {
    return what + ": its points were run as shards and are not merged yet: `flashsim sweep merge " + dir.string() +
           "` merges them once every shard has finished" + rerun;
  }
  return what + ": `flashsim report " + summary.string() + "` makes a page of it, `flashsim results export " +
         dir.string() + " --format csv` writes its tables" + rerun;
}

}  // namespace

std::string describe_flashsim_output(const std::filesystem::path& path) {
  std::error_code ec;
  const std::string folder = path.parent_path().empty() ? "." : path.parent_path().string();
  if (std::filesystem::is_directory(path, ec)) {
    if (std::filesystem::is_regular_file(path / "validation.json", ec)) {
      return "'" + path.string() + "' is an output folder of `flashsim validate`, not a scenario folder: `flashsim "
             "report " + (path / "validation.json").string() + "` makes a page of it";
    }
    return describe_results_folder(path, path.string());
  }
  if (path.filename() == "results.h5") return describe_results_folder(folder, path.string());
  if (path.extension() != ".json") return "";
  const nlohmann::json j = read_json_quietly(path);
  if (!j.is_object()) return "";
  if (j.contains("results_schema_version")) {
    return "'" + path.string() + "' is the summary a `flashsim run` wrote (results folder " + folder +
           "), not a scenario: `flashsim report " + path.string() + "` makes a page of it, `flashsim results export " +
           folder + " --format csv` writes its tables, `flashsim compare " + path.string() +
           " OTHER` compares it" + rerun_advice(j);
  }
  if (j.contains("sweep_store_version")) return describe_results_folder(folder, path.string());
  if (j.contains("schema") && j["schema"].is_string() && j["schema"].get<std::string>().starts_with("flashsim-validation/")) {
    return "'" + path.string() + "' is the output of `flashsim validate`, not a scenario: `flashsim report " +
           path.string() + "` makes a page of it";
  }
  return "";
}

}  // namespace flashsim::cli
