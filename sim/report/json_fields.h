// Checked reads of a JSON document that `flashsim report` takes as input:
// every failure is an InputError naming the file and the key's full path
// ("'out/validation.json': key 'entries[3].rows[0].sim' is not a number").
#pragma once
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace flashsim::report {

/// Keys in file order, so that provenance reads as written.
using Json = nlohmann::ordered_json;

class JsonFields {
 public:
  /// Reads and parses `file`. Throws InputError naming it when it cannot be
  /// read, is not JSON (with the parser's byte position) or is not an object.
  explicit JsonFields(std::filesystem::path file);

  const Json& root() const { return root_; }
  const std::filesystem::path& file() const { return file_; }

  /// obj[key], which must exist and not be null. `where` is the path of
  /// `obj` ("" for the top level, "entries[3]." below it).
  const Json& need(const Json& obj, std::string_view key, std::string_view where) const;
  /// obj[key] as text / number / bool / object / array; the value must exist.
  std::string need_string(const Json& obj, std::string_view key, std::string_view where) const;
  double need_number(const Json& obj, std::string_view key, std::string_view where) const;
  bool need_bool(const Json& obj, std::string_view key, std::string_view where) const;
  const Json& need_array(const Json& obj, std::string_view key, std::string_view where) const;
  /// Absent or null: nullopt (or "" / false / empty); present with another type: InputError.
  std::optional<double> opt_number(const Json& obj, std::string_view key, std::string_view where) const;
  std::optional<bool> opt_bool(const Json& obj, std::string_view key, std::string_view where) const;
  std::string opt_string(const Json& obj, std::string_view key, std::string_view where) const;
  const Json* opt_object(const Json& obj, std::string_view key, std::string_view where) const;
  const Json* opt_array(const Json& obj, std::string_view key, std::string_view where) const;

  /// InputError("'<file>': key '<where><key>' <what>").
  [[noreturn]] void fail(std::string_view where, std::string_view key, std::string_view what) const;

 private:
  std::filesystem::path file_;
  Json root_;
};

}  // namespace flashsim::report
