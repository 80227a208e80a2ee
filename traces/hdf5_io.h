// Internal to traces/: thin RAII and helpers over the HDF5 C API (1.10+),
// and the table of AccessRecord fields as HDF5 datasets. Used by
// hdf5_trace.cpp and next_use.cpp; not a public interface.
#pragma once
#include <hdf5.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "traces/access_record.h"

namespace flashsim::h5 {

/// Owns one hid_t and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = other.id_;
      closer_ = other.closer_;
      other.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  /// Gives up ownership without closing.
  hid_t release() {
    const hid_t id = id_;
    id_ = -1;
    return id;
  }
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

/// Turns off HDF5's printing of its error stack while alive; we throw our
/// own errors, which quote the innermost HDF5 message (last_error()).
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// The innermost message of HDF5's current error stack ("" if none).
std::string last_error();

/// Throw Error(`what` + HDF5's message) when an id is invalid / a call failed.
hid_t check_id(hid_t id, const std::string& what);
void check_status(herr_t status, const std::string& what);

// --- files and groups (object timestamps off, so the same input gives the same bytes) ---
Handle create_file(const std::string& path);
Handle open_file_read(const std::string& path);  ///< Throws InputError naming the path.
Handle create_group(hid_t loc, const char* name);
Handle open_group(hid_t loc, const char* name);
bool link_exists(hid_t loc, const char* name);

// --- 1-D datasets ---
/// Chunked (chunk elements), shuffled and deflated (level 0 = no deflate),
/// unlimited, initially empty dataset whose unwritten elements read as `fill`.
Handle create_extendible(hid_t loc, const char* name, hid_t file_type, hid_t mem_type, hsize_t chunk,
                         int deflate_level, const void* fill);
Handle open_dataset(hid_t loc, const char* name);
hsize_t length(hid_t dataset, const std::string& what);  ///< Throws InputError if not 1-D.
void set_length(hid_t dataset, hsize_t n);
void write_range(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t n, const void* data);
void read_range(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t n, void* data);

/// Whole string datasets (variable-length UTF-8 on write; fixed or variable on read).
void write_strings(hid_t loc, const char* name, const std::vector<std::string>& values);
std::vector<std::string> read_strings(hid_t dataset, hsize_t n);

// --- attributes on an object ---
void write_attr_string(hid_t obj, const char* name, const std::string& value);
void write_attr_int(hid_t obj, const char* name, hid_t file_type, std::int64_t value);
std::optional<std::string> read_attr_string(hid_t obj, const char* name);
std::optional<std::int64_t> read_attr_int(hid_t obj, const char* name);

// --- the AccessRecord fields ---
/// One AccessRecord field stored as dataset /records/<name>.
struct RecordField {
  const char* name;
  bool core;                 ///< always written; optional fields may be absent (read as defaults)
  std::size_t element_size;  ///< bytes per element in memory
  hid_t (*mem_type)();
  hid_t (*file_type)();
  /// Copies field values of n records into a packed array, and back.
  void (*gather)(const AccessRecord* records, std::size_t n, void* packed);
  void (*scatter)(const void* packed, std::size_t n, AccessRecord* records);
  bool (*is_default)(const AccessRecord& record);
  void (*default_value)(void* packed_one);
};

/// The 13 fields of schema v1 in file order: time_ns, block_id, bytes, op,
/// stream_id (core), request_id, token_index, phase, operator_id,
/// compute_ns, address, offset, next_use_index (optional).
const std::vector<RecordField>& record_fields();
/// Index of `next_use_index` in record_fields().
std::size_t next_use_field_index();
/// Largest element_size over record_fields() (8).
inline constexpr std::size_t kMaxElementSize = 8;

}  // namespace flashsim::h5
