// Internal to traces/: thin RAII and helpers over the HDF5 C API (1.10+),
// and the table of AccessRecord fields as HDF5 datasets. Used by
// hdf5_trace.cpp and next_use.cpp (and, for closing files being written,
// sim/results/results_h5.cpp); not a public interface.
#pragma once
#include <hdf5.h>

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "traces/access_record.h"

namespace flashsim::h5 {

bool abandon_file_of(hid_t object) noexcept;  // below, "closing files being written"

/// Owns one hid_t and closes it with the matching H5?close. Destroyed by an
/// exception, it first abandons the file its object lives in if that file is
/// being written (abandon_file_of): the output is deleted anyway, and a close
/// that fails half-way corrupts HDF5's id table.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() {
    if (id_ >= 0 && std::uncaught_exceptions() > 0) abandon_file_of(id_);
    reset();
  }
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

/// The innermost message of HDF5's current error stack ("" if none), on one
/// line (HDF5's file-driver messages embed ctime()'s newline).
std::string last_error();

/// Throw Error(`what` + HDF5's message) when an id is invalid / a call failed.
hid_t check_id(hid_t id, const std::string& what);
void check_status(herr_t status, const std::string& what);

// --- files and groups (object timestamps off, so the same input gives the same bytes) ---
/// Creates (truncating) a file for writing; its Handle closes it with
/// close_written_file. Objects in it are closed with the file (H5F_CLOSE_STRONG).
Handle create_file(const std::string& path);
Handle open_file_read(const std::string& path);  ///< Throws InputError naming the path.
Handle create_group(hid_t loc, const char* name);
Handle open_group(hid_t loc, const char* name);
bool link_exists(hid_t loc, const char* name);

// --- closing files being written ---
// HDF5 1.10 cannot recover from an H5Fclose (or H5Dclose) whose final flush
// fails, e.g. on a full disk: it frees the file but leaves its id in the id
// table, and the library's atexit clean-up then crashes on it (HDFFV-11052,
// fixed in HDF5 1.14.1). So a writer (1) flushes the whole file while every
// object is still open, and closes only after that succeeded; (2) on any
// failure, *abandons* the file before closing anything: its output is
// deleted anyway, so the remaining writes may go nowhere.

/// Checks that `path` (an existing empty file about to be created by HDF5)
/// can take a first few KiB, by writing and truncating them: a failed
/// H5Fcreate (e.g. on a full disk) leaves HDF5 1.10 with a half-open file it
/// cannot close ("HDF5: infinite loop closing library" at exit). Throws
/// Error(what + ": " + the system's reason) if not.
void check_room_to_create(const std::string& path, const std::string& what);

/// Flushes every object of `file` (datasets' chunk caches, metadata) to
/// disk. Throws Error(what + HDF5's message) on failure; the file stays open.
void flush_file(hid_t file, const std::string& what);

/// Points the OS descriptor of `file` (POSIX "sec2" driver, HDF5's default)
/// at an anonymous in-memory file (memfd), so that the writes of the later
/// closes succeed and are dropped, and flushes once into it (which clears the
/// state a failed flush leaves in HDF5 1.10's metadata cache): closing the
/// file and its objects then leaves nothing in HDF5's id table. For files whose output is being
/// discarded only. Returns false (and changes nothing) if `file` is not a
/// sec2 file open for writing or no memfd could be made. Never throws.
bool abandon_file(hid_t file) noexcept;
/// abandon_file for the file holding `object` (a file, group, dataset,
/// attribute or committed datatype id); false for any other id.
bool abandon_file_of(hid_t object) noexcept;

/// Handle closer for files being written: flushes, then H5Fclose; if the
/// flush fails, abandons the file first, so that the close completes.
/// Returns a negative value if either failed (the id is closed either way).
herr_t close_written_file(hid_t file);

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
/// An integer attribute's value; nullopt when absent or not an integer.
/// Throws InputError when it holds other than one value (an array).
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
