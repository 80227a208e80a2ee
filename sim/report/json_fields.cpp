#include "sim/report/json_fields.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"

namespace flashsim::report {

JsonFields::JsonFields(std::filesystem::path file) : file_(std::move(file)) {
  errno = 0;
  std::ifstream in(file_, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw InputError("'" + file_.string() + "': cannot read" + (error ? std::string(": ") + std::strerror(error) : ""));
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    root_ = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::ordered_json::parse_error& e) {
    throw InputError("'" + file_.string() + "': invalid JSON: " + e.what());
  }
  if (!root_.is_object()) throw InputError("'" + file_.string() + "': the top level is not a JSON object");
}

void JsonFields::fail(std::string_view where, std::string_view key, std::string_view what) const {
  throw InputError("'" + file_.string() + "': key '" + std::string(where) + std::string(key) + "' " + std::string(what));
}

const Json& JsonFields::need(const Json& obj, std::string_view key, std::string_view where) const {
  if (!obj.is_object()) fail(where, key, "is missing (its parent is not an object)");
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) fail(where, key, "is missing");
  return *it;
}

std::string JsonFields::need_string(const Json& obj, std::string_view key, std::string_view where) const {
  const Json& v = need(obj, key, where);
  if (!v.is_string()) fail(where, key, "is not a string");
  return v.get<std::string>();
}

double JsonFields::need_number(const Json& obj, std::string_view key, std::string_view where) const {
  const Json& v = need(obj, key, where);
  if (!v.is_number()) fail(where, key, "is not a number");
  return v.get<double>();
}

bool JsonFields::need_bool(const Json& obj, std::string_view key, std::string_view where) const {
  const Json& v = need(obj, key, where);
  if (!v.is_boolean()) fail(where, key, "is not true or false");
  return v.get<bool>();
}

const Json& JsonFields::need_array(const Json& obj, std::string_view key,
                                             std::string_view where) const {
  const Json& v = need(obj, key, where);
  if (!v.is_array()) fail(where, key, "is not a list");
  return v;
}

namespace {
const Json* present(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}
}  // namespace

std::optional<double> JsonFields::opt_number(const Json& obj, std::string_view key,
                                             std::string_view where) const {
  const Json* v = present(obj, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) fail(where, key, "is not a number");
  return v->get<double>();
}

std::optional<bool> JsonFields::opt_bool(const Json& obj, std::string_view key, std::string_view where) const {
  const Json* v = present(obj, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) fail(where, key, "is not true or false");
  return v->get<bool>();
}

std::string JsonFields::opt_string(const Json& obj, std::string_view key, std::string_view where) const {
  const Json* v = present(obj, key);
  if (v == nullptr) return "";
  if (!v->is_string()) fail(where, key, "is not a string");
  return v->get<std::string>();
}

const Json* JsonFields::opt_object(const Json& obj, std::string_view key,
                                             std::string_view where) const {
  const Json* v = present(obj, key);
  if (v != nullptr && !v->is_object()) fail(where, key, "is not an object");
  return v;
}

const Json* JsonFields::opt_array(const Json& obj, std::string_view key,
                                            std::string_view where) const {
  const Json* v = present(obj, key);
  if (v != nullptr && !v->is_array()) fail(where, key, "is not a list");
  return v;
}

}  // namespace flashsim::report
