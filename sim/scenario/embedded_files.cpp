#include "sim/scenario/embedded_files.h"

#include <algorithm>

namespace flashsim {

// Defined in the generated embedded_files_data.cpp (build directory).
namespace embedded_detail {
extern const EmbeddedFile kFiles[];
extern const std::size_t kFileCount;
}  // namespace embedded_detail

namespace {

std::string_view stem_of(std::string_view file_name) {
  const std::size_t dot = file_name.find('.');
  return dot == std::string_view::npos ? file_name : file_name.substr(0, dot);
}

bool is_catalog(std::string_view path) { return path.find(".catalog.") != std::string_view::npos; }

}  // namespace

std::span<const EmbeddedFile> embedded_files() {
  return {embedded_detail::kFiles, embedded_detail::kFileCount};
}

const EmbeddedFile* find_embedded_file(std::string_view relative_path) {
  for (const auto& f : embedded_files()) {
    if (f.path == relative_path) return &f;
  }
  return nullptr;
}

const EmbeddedFile* find_embedded_data(std::string_view name) {
  constexpr std::string_view prefix = "data/";
  if (const EmbeddedFile* exact = find_embedded_file(std::string(prefix) + std::string(name))) return exact;
  for (const auto& f : embedded_files()) {
    if (!f.path.starts_with(prefix) || is_catalog(f.path)) continue;
    if (stem_of(f.path.substr(prefix.size())) == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> embedded_data_names() {
  constexpr std::string_view prefix = "data/";
  std::vector<std::string> names;
  for (const auto& f : embedded_files()) {
    if (f.path.starts_with(prefix) && !is_catalog(f.path)) names.emplace_back(stem_of(f.path.substr(prefix.size())));
  }
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

const EmbeddedFile* find_embedded_hardware(std::string_view name) {
  const std::string base = "hardware/" + std::string(name);
  if (const EmbeddedFile* f = find_embedded_file(base)) return f;
  return find_embedded_file(base + ".yaml");
}

std::vector<std::string> embedded_hardware_names() {
  constexpr std::string_view prefix = "hardware/";
  std::vector<std::string> names;
  for (const auto& f : embedded_files()) {
    if (!f.path.starts_with(prefix) || !f.path.ends_with(".yaml")) continue;
    const std::string_view rest = f.path.substr(prefix.size());
    names.emplace_back(rest.substr(0, rest.size() - 5));
  }
  return names;
}

}  // namespace flashsim
