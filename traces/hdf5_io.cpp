#include "traces/hdf5_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <type_traits>
#include <utility>

#include "sim/core/errors.h"
#include "sim/core/utf8.h"

namespace flashsim::h5 {

namespace {

// HDF5 closes itself at exit; after an error on a damaged file that close
// loops and prints its id table ("infinite loop closing library"). Every
// file flashsim writes is closed explicitly before it is renamed into
// place, so nothing is lost by skipping it. Must precede any other HDF5 call.
const bool kNoCloseAtExit = H5dont_atexit() >= 0;

}  // namespace

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

namespace {

herr_t innermost(unsigned n, const H5E_error2_t* err, void* client) {
  if (n == 0 && err->desc != nullptr) *static_cast<std::string*>(client) = err->desc;
  return 0;
}

}  // namespace

std::string last_error() {
  std::string raw;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &raw);
  // The sec2 driver's "file write failed: time = <ctime()>\n, filename = ..."
  // carries ctime's newline: one line, without the space it would leave.
  std::string message;
  message.reserve(raw.size());
  for (char c : raw) {
    if (c == '\n' || c == '\r') c = ' ';
    if (c == ' ' && !message.empty() && message.back() == ' ') continue;
    message.push_back(c);
  }
  for (std::size_t at; (at = message.find(" ,")) != std::string::npos;) message.erase(at, 1);
  while (!message.empty() && message.back() == ' ') message.pop_back();
  // "file write failed: time = ..., filename = ..., errno = 28, error message
  // = 'No space left on device', buf = 0x..." -> "file write failed: No space
  // left on device" (our messages name the file already).
  const std::size_t colon = message.find(": time = ");
  const std::size_t quoted = message.find("error message = '");
  if (colon != std::string::npos && quoted != std::string::npos) {
    const std::size_t begin = quoted + std::strlen("error message = '");
    const std::size_t end = message.find('\'', begin);
    if (end != std::string::npos) message = message.substr(0, colon) + ": " + message.substr(begin, end - begin);
  }
  return message;
}

hid_t check_id(hid_t id, const std::string& what) {
  if (id < 0) {
    const std::string detail = last_error();
    throw Error(what + (detail.empty() ? "" : ": " + detail));
  }
  return id;
}

void check_status(herr_t status, const std::string& what) {
  if (status < 0) {
    const std::string detail = last_error();
    throw Error(what + (detail.empty() ? "" : ": " + detail));
  }
}

namespace {

Handle plist(hid_t cls) { return Handle(check_id(H5Pcreate(cls), "H5Pcreate"), H5Pclose); }

}  // namespace

Handle create_file(const std::string& path) {
  check_room_to_create(path, "cannot create HDF5 file '" + path + "'");
  Handle fcpl = plist(H5P_FILE_CREATE);
  check_status(H5Pset_obj_track_times(fcpl.get(), 0), "H5Pset_obj_track_times");
  Handle fapl = plist(H5P_FILE_ACCESS);
  check_status(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), "H5Pset_fclose_degree");
  return Handle(check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()),
                         "cannot create HDF5 file '" + path + "'"),
                close_written_file);
}

Handle open_file_read(const std::string& path) {
  Handle fapl = plist(H5P_FILE_ACCESS);
  check_status(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), "H5Pset_fclose_degree");
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (id < 0) {
    const std::string detail = last_error();
    throw InputError("cannot open HDF5 trace '" + path + "'" + (detail.empty() ? "" : ": " + detail));
  }
  return Handle(id, H5Fclose);
}

Handle create_group(hid_t loc, const char* name) {
  Handle gcpl = plist(H5P_GROUP_CREATE);
  check_status(H5Pset_obj_track_times(gcpl.get(), 0), "H5Pset_obj_track_times");
  return Handle(check_id(H5Gcreate2(loc, name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                         std::string("cannot create group ") + name),
                H5Gclose);
}

Handle open_group(hid_t loc, const char* name) {
  return Handle(check_id(H5Gopen2(loc, name, H5P_DEFAULT), std::string("cannot open group ") + name), H5Gclose);
}

bool link_exists(hid_t loc, const char* name) { return H5Lexists(loc, name, H5P_DEFAULT) > 0; }

void check_room_to_create(const std::string& path, const std::string& what) {
  // More than H5Fcreate writes (superblock, root group: about 2 KiB).
  static const char zeros[16384] = {};
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(what + ": " + std::strerror(errno));
  const ssize_t written = ::pwrite(fd, zeros, sizeof zeros, 0);
  const int write_errno = errno;
  const bool truncated = ::ftruncate(fd, 0) == 0;
  const int truncate_errno = errno;
  ::close(fd);
  if (written != static_cast<ssize_t>(sizeof zeros)) {
    throw Error(what + ": " + std::strerror(written < 0 ? write_errno : ENOSPC));
  }
  if (!truncated) throw Error(what + ": " + std::strerror(truncate_errno));
}

void flush_file(hid_t file, const std::string& what) {
  check_status(H5Fflush(file, H5F_SCOPE_GLOBAL), what);
}

namespace {

extern "C" void silence_hdf5_at_exit() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

}  // namespace

bool abandon_file(hid_t file) noexcept {
  QuietErrors quiet;
  if (file < 0 || H5Iget_type(file) != H5I_FILE) return false;
  unsigned intent = 0;
  if (H5Fget_intent(file, &intent) < 0 || (intent & H5F_ACC_RDWR) == 0) return false;  // reading: closes write nothing
  const hid_t fapl = H5Fget_access_plist(file);
  if (fapl < 0) return false;
  const hid_t driver = H5Pget_driver(fapl);
  H5Pclose(fapl);
  if (driver != H5FD_SEC2) return false;
  void* handle = nullptr;
  if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || handle == nullptr) return false;
  const int fd = *static_cast<const int*>(handle);
  const int scratch = ::memfd_create("flashsim-abandoned-hdf5", MFD_CLOEXEC);
  if (scratch < 0) return false;
  // dup2 swaps the open file behind `fd` atomically; the driver keeps using `fd`.
  const bool ok = ::dup2(scratch, fd) >= 0;
  ::close(scratch);
  if (!ok) return false;
  // The HDF5 call that failed may have leaked library memory (1.10.8 loses a
  // free-list block when an unfiltered chunked H5Dwrite fails); the library's
  // own atexit clean-up then prints "HDF5: infinite loop closing library"
  // unless error printing is off. Registered after HDF5's handler (the library
  // is initialised by now), this one runs first and turns printing off.
  static const bool silenced = std::atexit(silence_hdf5_at_exit) == 0;
  (void)silenced;
  // HDF5 1.10.8 leaves the metadata cache's skip list enabled after a failed
  // flush ("slist not empty"), and every later flush, the close's included,
  // then fails ("slist already enabled?"). A flush that succeeds in writing
  // (into the scratch file) empties and disables it again, although it
  // reports the stale error itself; after it the close succeeds.
  H5Fflush(file, H5F_SCOPE_GLOBAL);
  return true;
}

bool abandon_file_of(hid_t object) noexcept {
  QuietErrors quiet;
  switch (H5Iget_type(object)) {
    case H5I_FILE:
      return abandon_file(object);
    case H5I_GROUP:
    case H5I_DATASET:
    case H5I_ATTR:
    case H5I_DATATYPE: {
      const hid_t file = H5Iget_file_id(object);  // fails for transient datatypes
      if (file < 0) return false;
      const bool ok = abandon_file(file);
      H5Fclose(file);  // drops the reference H5Iget_file_id added; the file stays open
      return ok;
    }
    default:
      return false;
  }
}

herr_t close_written_file(hid_t file) {
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
    abandon_file(file);
    H5Fclose(file);
    return -1;
  }
  return H5Fclose(file);
}

Handle create_extendible(hid_t loc, const char* name, hid_t file_type, hid_t mem_type, hsize_t chunk,
                         int deflate_level, const void* fill) {
  const hsize_t dims[1] = {0};
  const hsize_t max_dims[1] = {H5S_UNLIMITED};
  Handle space(check_id(H5Screate_simple(1, dims, max_dims), "H5Screate_simple"), H5Sclose);
  Handle dcpl = plist(H5P_DATASET_CREATE);
  const hsize_t chunk_dims[1] = {chunk == 0 ? 1 : chunk};
  check_status(H5Pset_chunk(dcpl.get(), 1, chunk_dims), "H5Pset_chunk");
  check_status(H5Pset_obj_track_times(dcpl.get(), 0), "H5Pset_obj_track_times");
  if (fill != nullptr) check_status(H5Pset_fill_value(dcpl.get(), mem_type, fill), "H5Pset_fill_value");
  check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_IFSET), "H5Pset_fill_time");
  if (deflate_level > 0) {
    check_status(H5Pset_shuffle(dcpl.get()), "H5Pset_shuffle");
    check_status(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(deflate_level)), "H5Pset_deflate");
  }
  return Handle(check_id(H5Dcreate2(loc, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                         std::string("cannot create dataset ") + name),
                H5Dclose);
}

Handle open_dataset(hid_t loc, const char* name) {
  return Handle(check_id(H5Dopen2(loc, name, H5P_DEFAULT), std::string("cannot open dataset ") + name),
                H5Dclose);
}

hsize_t length(hid_t dataset, const std::string& what) {
  Handle space(check_id(H5Dget_space(dataset), "H5Dget_space"), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != 1) throw InputError(what + " is not one-dimensional (rank " + std::to_string(rank) + ")");
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  // A corrupt dataspace can claim 2^60 elements, and reading them would
  // exhaust memory. Deflate compresses at most 1032:1 (zlib's technical
  // details), so more elements than that many times the stored bytes hold
  // is corruption.
  Handle type(check_id(H5Dget_type(dataset), "H5Dget_type"), H5Tclose);
  const std::uint64_t element_bytes = std::max<std::size_t>(1, H5Tget_size(type.get()));
  const std::uint64_t stored = H5Dget_storage_size(dataset);
  const std::uint64_t most = (stored > (UINT64_MAX >> 11) ? UINT64_MAX : stored * 1032 + (1u << 20)) / element_bytes;
  if (dims[0] > most) {
    throw InputError(what + " claims " + std::to_string(dims[0]) + " elements but stores " + std::to_string(stored) +
                     " bytes (corrupt)");
  }
  return dims[0];
}

void set_length(hid_t dataset, hsize_t n) {
  const hsize_t dims[1] = {n};
  check_status(H5Dset_extent(dataset, dims), "H5Dset_extent");
}

namespace {

Handle select_range(hid_t dataset, hsize_t offset, hsize_t n) {
  Handle space(check_id(H5Dget_space(dataset), "H5Dget_space"), H5Sclose);
  const hsize_t start[1] = {offset};
  const hsize_t count[1] = {n};
  check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
               "H5Sselect_hyperslab");
  return space;
}

}  // namespace

void write_range(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t n, const void* data) {
  if (n == 0) return;
  Handle file_space = select_range(dataset, offset, n);
  const hsize_t count[1] = {n};
  Handle mem_space(check_id(H5Screate_simple(1, count, nullptr), "H5Screate_simple"), H5Sclose);
  check_status(H5Dwrite(dataset, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data), "H5Dwrite");
}

std::string object_where(hid_t object) {
  std::string file, path;
  if (const ssize_t n = H5Fget_name(object, nullptr, 0); n > 0) {
    file.assign(static_cast<std::size_t>(n) + 1, '\0');
    H5Fget_name(object, file.data(), file.size());
    file.resize(static_cast<std::size_t>(n));
  }
  if (const ssize_t n = H5Iget_name(object, nullptr, 0); n > 0) {
    path.assign(static_cast<std::size_t>(n) + 1, '\0');
    H5Iget_name(object, path.data(), path.size());
    path.resize(static_cast<std::size_t>(n));
  }
  return (file.empty() ? "(unnamed file)" : file) + ": " + (path.empty() ? "(unnamed object)" : path);
}

namespace {

/// HDF5 calls this on a conversion that would lose the value (a negative
/// into unsigned, a fraction into an integer, beyond the range or the
/// precision): abort the read, so that no value is clipped or truncated.
H5T_conv_ret_t abort_inexact(H5T_conv_except_t, hid_t, hid_t, void*, void*, void* hit) {
  *static_cast<bool*>(hit) = true;
  return H5T_CONV_ABORT;
}

const char* class_name(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER: return "integers";
    case H5T_FLOAT: return "floating-point numbers";
    case H5T_STRING: return "strings";
    case H5T_COMPOUND: return "compound records";
    case H5T_ENUM: return "enumerations";
    case H5T_ARRAY: return "arrays";
    case H5T_VLEN: return "variable-length sequences";
    case H5T_OPAQUE: return "opaque bytes";
    case H5T_BITFIELD: return "bit fields";
    case H5T_TIME: return "times";
    case H5T_REFERENCE: return "references";
    default: return "values of an unknown class";
  }
}

/// The first element of [offset, offset + n) whose value does not convert
/// exactly into `mem_type`, said as "[row] = value: why". Read again in a
/// type that holds every file value exactly (double for floats up to 64
/// bits, int64/uint64 for integers).
std::string first_inexact(hid_t dataset, hid_t file_type, hid_t mem_type, hsize_t offset, hsize_t n) {
  const bool to_float = H5Tget_class(mem_type) == H5T_FLOAT;
  const bool to_signed = !to_float && H5Tget_sign(mem_type) == H5T_SGN_2;
  const std::size_t to_bits = 8 * H5Tget_size(mem_type);
  const double hi = to_float ? 0 : to_signed ? std::ldexp(1.0, static_cast<int>(to_bits) - 1) : std::ldexp(1.0, static_cast<int>(to_bits));
  const double lo = to_signed ? -hi : 0;
  const hsize_t count[1] = {n};
  Handle mem_space(check_id(H5Screate_simple(1, count, nullptr), "H5Screate_simple"), H5Sclose);
  Handle file_space = select_range(dataset, offset, n);
  auto at = [&](hsize_t i) { return "[" + std::to_string(offset + i) + "] = "; };
  if (H5Tget_class(file_type) == H5T_FLOAT) {
    std::vector<double> v(n);
    check_status(H5Dread(dataset, H5T_NATIVE_DOUBLE, mem_space.get(), file_space.get(), H5P_DEFAULT, v.data()), "H5Dread");
    for (hsize_t i = 0; i < n; ++i) {
      const double x = v[i];
      if (to_float) continue;
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", x);
      if (!std::isfinite(x)) return at(i) + text + ": not a finite number";
      if (x != std::floor(x)) return at(i) + text + ": not a whole number";
      if (x < lo) return at(i) + text + (lo == 0 ? ": negative" : ": below the range");
      if (x >= hi) return at(i) + text + ": beyond the range of " + std::to_string(to_bits) + "-bit integers";
    }
    return "";
  }
  const bool from_signed = H5Tget_sign(file_type) == H5T_SGN_2;
  std::vector<std::uint64_t> raw(n);
  check_status(H5Dread(dataset, from_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64, mem_space.get(), file_space.get(),
                       H5P_DEFAULT, raw.data()),
               "H5Dread");
  for (hsize_t i = 0; i < n; ++i) {
    const std::int64_t s = static_cast<std::int64_t>(raw[i]);
    const std::string text = from_signed ? std::to_string(s) : std::to_string(raw[i]);
    if (to_float) {
      const double x = from_signed ? static_cast<double>(s) : static_cast<double>(raw[i]);
      const bool exact = from_signed ? x < 0x1p63 && static_cast<std::int64_t>(x) == s : x < 0x1p64 && static_cast<std::uint64_t>(x) == raw[i];
      if (!exact) return at(i) + text + ": not exact as a floating-point number";
      continue;
    }
    if (from_signed && s < 0) {
      if (!to_signed) return at(i) + text + ": negative";
      if (to_bits < 64 && static_cast<double>(s) < lo) return at(i) + text + ": below the range";
    } else {
      const double x = static_cast<double>(raw[i]);
      if (x >= hi) return at(i) + text + ": beyond the range of " + std::string(to_signed ? "signed " : "") +
                          std::to_string(to_bits) + "-bit integers";
    }
  }
  return "";
}

}  // namespace

void read_range(hid_t dataset, hid_t mem_type, hsize_t offset, hsize_t n, void* data) {
  if (n == 0) return;
  Handle file_type(check_id(H5Dget_type(dataset), "H5Dget_type"), H5Tclose);
  const H5T_class_t file_class = H5Tget_class(file_type.get()), mem_class = H5Tget_class(mem_type);
  const bool numbers = mem_class == H5T_INTEGER || mem_class == H5T_FLOAT;
  if (numbers && file_class != H5T_INTEGER && file_class != H5T_FLOAT) {
    throw InputError(object_where(dataset) + ": holds " + class_name(file_class) +
                     ", not numbers" +
                     (file_class == H5T_STRING ? " (string keys: write each as an integer id, e.g. a 64-bit hash of the key)" : ""));
  }
  if (numbers && file_class == H5T_INTEGER && H5Tget_size(file_type.get()) > 8) {
    throw InputError(object_where(dataset) + ": integers of " + std::to_string(8 * H5Tget_size(file_type.get())) +
                     " bits (at most 64)");
  }
  Handle file_space = select_range(dataset, offset, n);
  const hsize_t count[1] = {n};
  Handle mem_space(check_id(H5Screate_simple(1, count, nullptr), "H5Screate_simple"), H5Sclose);
  bool inexact = false;
  Handle transfer(check_id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"), H5Pclose);
  if (numbers) check_status(H5Pset_type_conv_cb(transfer.get(), abort_inexact, &inexact), "H5Pset_type_conv_cb");
  if (H5Dread(dataset, mem_type, mem_space.get(), file_space.get(), transfer.get(), data) < 0) {
    if (inexact) {
      const std::string why = first_inexact(dataset, file_type.get(), mem_type, offset, n);
      throw InputError(object_where(dataset) + (why.empty() ? ": a value does not convert exactly" : why));
    }
    // Damaged chunks fail here ("inflate() failed"): name the dataset and the range.
    const std::string detail = last_error();
    throw Error(object_where(dataset) + ", elements " + std::to_string(offset) +
                ".." + std::to_string(offset + n - 1) + ": cannot read (damaged data?)" +
                (detail.empty() ? "" : ": " + detail));
  }
}

namespace {

Handle vlen_string_type() {
  Handle type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check_status(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  return type;
}

}  // namespace

void write_strings(hid_t loc, const char* name, const std::vector<std::string>& values) {
  Handle type = vlen_string_type();
  const hsize_t n = values.size();
  const hsize_t dims[1] = {n};
  Handle space(check_id(H5Screate_simple(1, dims, nullptr), "H5Screate_simple"), H5Sclose);
  Handle dcpl = plist(H5P_DATASET_CREATE);
  check_status(H5Pset_obj_track_times(dcpl.get(), 0), "H5Pset_obj_track_times");
  Handle dataset(check_id(H5Dcreate2(loc, name, type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                          std::string("cannot create dataset ") + name),
                 H5Dclose);
  if (n == 0) return;
  // Text from inputs (file names, catalog names) need not be UTF-8; the
  // type says it is, so it is made so (h5py decodes every string).
  std::vector<std::string> texts;
  texts.reserve(values.size());
  for (const auto& v : values) texts.push_back(to_valid_utf8(v));
  std::vector<const char*> pointers;
  pointers.reserve(texts.size());
  for (const auto& v : texts) pointers.push_back(v.c_str());
  check_status(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()), "H5Dwrite");
}

namespace {

std::uint64_t little_endian(const unsigned char* p, std::size_t bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = bytes; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

// HDF5 1.10 copies a global-heap object into a buffer sized by the string's
// own length without checking that the two agree, so a corrupt heap crashed
// `trace stats` inside H5HG_read. Before HDF5 reads a variable-length string
// dataset, the heap objects it points at are checked here against the file
// format (HDF5 File Format Specification v3, "Global Heap" and "Variable-
// length data"): collections inside the file, objects inside collections,
// each string's length equal to its object's size.
void check_vlen_strings(hid_t dataset, hsize_t n) {
  Handle dcpl(check_id(H5Dget_create_plist(dataset), "H5Dget_create_plist"), H5Pclose);
  if (H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS) {
    throw InputError("variable-length strings not stored contiguously (flashsim and h5py write them contiguously)");
  }
  const haddr_t offset = H5Dget_offset(dataset);
  if (offset == HADDR_UNDEF) return;  // never written: HDF5 reads empty strings
  Handle file(check_id(H5Iget_file_id(dataset), "H5Iget_file_id"), H5Fclose);
  Handle fcpl(check_id(H5Fget_create_plist(file.get()), "H5Fget_create_plist"), H5Pclose);
  std::size_t addr_bytes = 0, size_bytes = 0;
  hsize_t userblock = 0;
  check_status(H5Pget_sizes(fcpl.get(), &addr_bytes, &size_bytes), "H5Pget_sizes");
  check_status(H5Pget_userblock(fcpl.get(), &userblock), "H5Pget_userblock");
  const ssize_t name_len = H5Fget_name(file.get(), nullptr, 0);
  if (name_len <= 0) throw Error("H5Fget_name failed");
  std::string name(static_cast<std::size_t>(name_len) + 1, '\0');
  H5Fget_name(file.get(), name.data(), name.size());
  name.resize(static_cast<std::size_t>(name_len));
  std::error_code ec;
  const std::uint64_t file_bytes = std::filesystem::file_size(name, ec);
  if (ec) throw InputError("cannot size the file: " + ec.message());
  std::ifstream in(name, std::ios::binary);
  auto read_at = [&](std::uint64_t at, std::uint64_t bytes, const std::string& what) {
    if (at > file_bytes || bytes > file_bytes - at) throw InputError(what + " lies beyond the end of the file (corrupt)");
    std::vector<unsigned char> out(bytes);
    in.seekg(static_cast<std::streamoff>(at));
    in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(bytes));
    if (!in) throw InputError("cannot read " + what);
    return out;
  };
  const std::size_t element = 4 + addr_bytes + 4;  // length, collection address, object index
  if (n > file_bytes / element) throw InputError("more strings than the file can hold (corrupt)");
  const std::vector<unsigned char> raw = read_at(userblock + offset, n * element, "the string references");
  std::map<std::uint64_t, std::map<std::uint64_t, std::uint64_t>> collections;  // address -> index -> bytes
  auto collection = [&](std::uint64_t address) -> const std::map<std::uint64_t, std::uint64_t>& {
    if (auto it = collections.find(address); it != collections.end()) return it->second;
    const std::string what = "global heap collection at " + std::to_string(address);
    const std::size_t header = 8 + size_bytes;  // "GCOL", version, 3 reserved, collection size
    const std::vector<unsigned char> head = read_at(userblock + address, header, what);
    if (std::memcmp(head.data(), "GCOL", 4) != 0 || head[4] != 1) throw InputError(what + ": bad signature (corrupt)");
    const std::uint64_t size = little_endian(head.data() + 8, size_bytes);
    if (size < header) throw InputError(what + ": size " + std::to_string(size) + " (corrupt)");
    const std::vector<unsigned char> body = read_at(userblock + address, size, what);
    std::map<std::uint64_t, std::uint64_t>& objects = collections[address];
    const std::size_t object_header = 8 + size_bytes;  // index, references, 4 reserved, object size
    for (std::uint64_t at = header; at + object_header <= size;) {
      const std::uint64_t index = little_endian(body.data() + at, 2);
      if (index == 0) break;  // the free space runs to the end
      const std::uint64_t bytes = little_endian(body.data() + at + 8, size_bytes);
      const std::uint64_t begin = at + object_header;
      if (bytes > size - begin) throw InputError(what + ": object " + std::to_string(index) + " overruns it (corrupt)");
      objects[index] = bytes;
      at = begin + (bytes + 7) / 8 * 8;
    }
    return objects;
  };
  for (hsize_t i = 0; i < n; ++i) {
    const unsigned char* e = raw.data() + i * element;
    const std::uint64_t length = little_endian(e, 4);
    if (length == 0) continue;
    const std::uint64_t address = little_endian(e + 4, addr_bytes);
    const std::uint64_t index = little_endian(e + 4 + addr_bytes, 4);
    const auto& objects = collection(address);
    const auto it = objects.find(index);
    if (it == objects.end() || it->second != length) {
      throw InputError("string " + std::to_string(i) + ": its heap object does not match its length " +
                       std::to_string(length) + " (corrupt)");
    }
  }
}

std::vector<std::string> read_strings_unnamed(hid_t dataset, hsize_t n) {
  std::vector<std::string> out(n);
  if (n == 0) return out;
  Handle file_type(check_id(H5Dget_type(dataset), "H5Dget_type"), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_STRING) throw InputError("not a string dataset");
  // The memory type is a copy of the file type, so the character set matches (no conversion).
  Handle type(check_id(H5Tcopy(file_type.get()), "H5Tcopy"), H5Tclose);
  if (H5Tis_variable_str(file_type.get()) > 0) {
    check_vlen_strings(dataset, n);
    std::vector<char*> pointers(n, nullptr);
    check_status(H5Dread(dataset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()), "H5Dread");
    for (hsize_t i = 0; i < n; ++i) out[i] = pointers[i] != nullptr ? pointers[i] : "";
    Handle space(check_id(H5Dget_space(dataset), "H5Dget_space"), H5Sclose);
#if H5_VERSION_GE(1, 12, 0)
    H5Treclaim(type.get(), space.get(), H5P_DEFAULT, pointers.data());
#else
    H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, pointers.data());
#endif
  } else {
    const std::size_t size = H5Tget_size(file_type.get());
    if (size == 0 || size > (1u << 20)) throw InputError("fixed-length strings of " + std::to_string(size) + " bytes (corrupt)");
    std::vector<char> buffer(size * n);
    check_status(H5Dread(dataset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()), "H5Dread");
    for (hsize_t i = 0; i < n; ++i) {
      const char* p = buffer.data() + i * size;
      out[i] = std::string(p, strnlen(p, size));
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> read_strings(hid_t dataset, hsize_t n) {
  try {
    return read_strings_unnamed(dataset, n);
  } catch (const InputError& e) {
    throw InputError(object_where(dataset) + ": " + e.what());
  }
}

void write_attr_string(hid_t obj, const char* name, const std::string& value) {
  std::string padded = to_valid_utf8(value);  // as write_strings
  if (padded.empty()) padded.push_back('\0');
  Handle type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check_status(H5Tset_size(type.get(), padded.size()), "H5Tset_size");
  check_status(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "H5Tset_strpad");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  Handle space(check_id(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
  Handle attr(check_id(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                       std::string("cannot create attribute ") + name),
              H5Aclose);
  check_status(H5Awrite(attr.get(), type.get(), padded.data()), std::string("cannot write attribute ") + name);
}

void write_attr_int(hid_t obj, const char* name, hid_t file_type, std::int64_t value) {
  Handle space(check_id(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
  Handle attr(check_id(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                       std::string("cannot create attribute ") + name),
              H5Aclose);
  check_status(H5Awrite(attr.get(), H5T_NATIVE_INT64, &value), std::string("cannot write attribute ") + name);
}

std::optional<std::string> read_attr_string(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) return std::nullopt;
  Handle attr(check_id(H5Aopen(obj, name, H5P_DEFAULT), std::string("cannot open attribute ") + name), H5Aclose);
  Handle file_type(check_id(H5Aget_type(attr.get()), "H5Aget_type"), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_STRING) return std::nullopt;
  Handle type(check_id(H5Tcopy(file_type.get()), "H5Tcopy"), H5Tclose);
  if (H5Tis_variable_str(file_type.get()) > 0) {
    char* p = nullptr;
    check_status(H5Aread(attr.get(), type.get(), &p), std::string("cannot read attribute ") + name);
    std::string out = p != nullptr ? p : "";
    H5free_memory(p);
    return out;
  }
  const std::size_t size = H5Tget_size(file_type.get());
  std::string buffer(size, '\0');
  check_status(H5Aread(attr.get(), type.get(), buffer.data()), std::string("cannot read attribute ") + name);
  buffer.resize(strnlen(buffer.data(), size));
  return buffer;
}

std::optional<std::int64_t> read_attr_int(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) return std::nullopt;
  Handle attr(check_id(H5Aopen(obj, name, H5P_DEFAULT), std::string("cannot open attribute ") + name), H5Aclose);
  Handle file_type(check_id(H5Aget_type(attr.get()), "H5Aget_type"), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_INTEGER) return std::nullopt;
  // H5Aread writes every element: an array attribute into one int64 would overrun it.
  Handle space(check_id(H5Aget_space(attr.get()), "H5Aget_space"), H5Sclose);
  const hssize_t elements = H5Sget_simple_extent_npoints(space.get());
  if (elements != 1) {
    throw InputError(std::string("attribute ") + name + " holds " + std::to_string(elements) + " values, not one");
  }
  std::int64_t value = 0;
  check_status(H5Aread(attr.get(), H5T_NATIVE_INT64, &value), std::string("cannot read attribute ") + name);
  return value;
}

// --- record fields ---
namespace {

const AccessRecord kDefaultRecord{};

template <auto Member>
using MemberType = std::remove_cvref_t<decltype(std::declval<AccessRecord>().*Member)>;

template <auto Member, class Stored>
RecordField make_field(const char* name, bool core, hid_t (*mem_type)(), hid_t (*file_type)()) {
  RecordField f{};
  f.name = name;
  f.core = core;
  f.element_size = sizeof(Stored);
  f.mem_type = mem_type;
  f.file_type = file_type;
  f.gather = [](const AccessRecord* records, std::size_t n, void* packed) {
    auto* out = static_cast<Stored*>(packed);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<Stored>(records[i].*Member);
  };
  f.scatter = [](const void* packed, std::size_t n, AccessRecord* records) {
    const auto* in = static_cast<const Stored*>(packed);
    for (std::size_t i = 0; i < n; ++i) records[i].*Member = static_cast<MemberType<Member>>(in[i]);
  };
  f.is_default = [](const AccessRecord& r) { return r.*Member == kDefaultRecord.*Member; };
  f.default_value = [](void* packed_one) {
    const Stored value = static_cast<Stored>(kDefaultRecord.*Member);
    std::memcpy(packed_one, &value, sizeof(Stored));
  };
  return f;
}

std::vector<RecordField> build_fields() {
  using R = AccessRecord;
  auto i64 = [] { return H5T_NATIVE_INT64; };
  auto u64 = [] { return H5T_NATIVE_UINT64; };
  auto u32 = [] { return H5T_NATIVE_UINT32; };
  auto i32 = [] { return H5T_NATIVE_INT32; };
  auto u8 = [] { return H5T_NATIVE_UINT8; };
  auto fi64 = [] { return H5T_STD_I64LE; };
  auto fu64 = [] { return H5T_STD_U64LE; };
  auto fu32 = [] { return H5T_STD_U32LE; };
  auto fi32 = [] { return H5T_STD_I32LE; };
  auto fu8 = [] { return H5T_STD_U8LE; };
  return {
      make_field<&R::time_ns, std::int64_t>("time_ns", true, i64, fi64),
      make_field<&R::block_id, std::uint64_t>("block_id", true, u64, fu64),
      make_field<&R::bytes, std::uint64_t>("bytes", true, u64, fu64),
      make_field<&R::op, std::uint8_t>("op", true, u8, fu8),
      make_field<&R::stream_id, std::uint32_t>("stream_id", true, u32, fu32),
      make_field<&R::request_id, std::uint64_t>("request_id", false, u64, fu64),
      make_field<&R::token_index, std::int32_t>("token_index", false, i32, fi32),
      make_field<&R::phase, std::uint8_t>("phase", false, u8, fu8),
      make_field<&R::operator_id, std::uint32_t>("operator_id", false, u32, fu32),
      make_field<&R::compute_ns, std::int64_t>("compute_ns", false, i64, fi64),
      make_field<&R::address, std::uint64_t>("address", false, u64, fu64),
      make_field<&R::offset, std::uint64_t>("offset", false, u64, fu64),
      make_field<&R::next_use_index, std::uint64_t>("next_use_index", false, u64, fu64),
  };
}

}  // namespace

const std::vector<RecordField>& record_fields() {
  static const std::vector<RecordField> fields = build_fields();
  return fields;
}

std::size_t next_use_field_index() { return record_fields().size() - 1; }

}  // namespace flashsim::h5
