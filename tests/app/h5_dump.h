// Test helper: a results.h5 file as text, dataset by dataset and attribute
// by attribute, so that two files can be compared by content (and groups
// left out). Handles what the results writer produces: 1-D datasets and
// scalar attributes of integers, floats, variable-length strings, and
// compounds of those.
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace flashsim::test {

namespace h5dump_detail {

inline void value_text(std::ostringstream& out, hid_t type, const unsigned char* p) {
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
      const std::size_t size = H5Tget_size(type);
      if (H5Tget_sign(type) == H5T_SGN_NONE) {
        std::uint64_t v = 0;
        std::memcpy(&v, p, size);
        out << v;
      } else {
        std::int64_t v = 0;
        std::memcpy(&v, p, size);
        if (size < 8 && (v >> (size * 8 - 1)) & 1) v -= (std::int64_t{1} << (size * 8));
        out << v;
      }
      break;
    }
    case H5T_FLOAT: {
      double v = 0;
      if (H5Tget_size(type) == 8) std::memcpy(&v, p, 8);
      out << v;
      break;
    }
    case H5T_STRING: {
      const char* s = nullptr;
      std::memcpy(&s, p, sizeof s);
      out << '"' << (s ? s : "") << '"';
      break;
    }
    case H5T_COMPOUND: {
      out << "{";
      for (int i = 0; i < H5Tget_nmembers(type); ++i) {
        char* name = H5Tget_member_name(type, static_cast<unsigned>(i));
        hid_t member = H5Tget_member_type(type, static_cast<unsigned>(i));
        out << name << "=";
        value_text(out, member, p + H5Tget_member_offset(type, static_cast<unsigned>(i)));
        out << " ";
        H5Tclose(member);
        H5free_memory(name);
      }
      out << "}";
      break;
    }
    default:
      out << "?";
  }
}

struct Visit {
  std::map<std::string, std::string>* out;
  std::string skip_prefix;
};

inline std::string attributes_text(hid_t obj) {
  std::ostringstream out;
  H5O_info_t info;
  H5Oget_info(obj, &info);
  for (hsize_t i = 0; i < info.num_attrs; ++i) {
    hid_t attr = H5Aopen_by_idx(obj, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT);
    char name[256];
    H5Aget_name(attr, sizeof name, name);
    hid_t file_type = H5Aget_type(attr);
    hid_t mem = H5Tget_native_type(file_type, H5T_DIR_ASCEND);
    std::vector<unsigned char> buffer(H5Tget_size(mem));
    H5Aread(attr, mem, buffer.data());
    out << " @" << name << "=";
    value_text(out, mem, buffer.data());
    hid_t space = H5Aget_space(attr);
    H5Dvlen_reclaim(mem, space, H5P_DEFAULT, buffer.data());
    H5Sclose(space);
    H5Tclose(mem);
    H5Tclose(file_type);
    H5Aclose(attr);
  }
  return out.str();
}

inline herr_t visit(hid_t root, const char* name, const H5O_info_t* info, void* data) {
  auto* v = static_cast<Visit*>(data);
  const std::string path = std::string("/") + (std::strcmp(name, ".") == 0 ? "" : name);
  if (!v->skip_prefix.empty() && path.rfind(v->skip_prefix, 0) == 0) return 0;
  std::ostringstream out;
  hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
  out << attributes_text(obj);
  if (info->type == H5O_TYPE_DATASET) {
    hid_t file_type = H5Dget_type(obj);
    hid_t mem = H5Tget_native_type(file_type, H5T_DIR_ASCEND);
    hid_t space = H5Dget_space(obj);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    const std::size_t size = H5Tget_size(mem);
    std::vector<unsigned char> buffer(static_cast<std::size_t>(n) * size + 1);
    if (n > 0) H5Dread(obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data());
    out << " [" << n << "]";
    for (hssize_t i = 0; i < n; ++i) {
      out << " ";
      value_text(out, mem, buffer.data() + static_cast<std::size_t>(i) * size);
    }
    if (n > 0) H5Dvlen_reclaim(mem, space, H5P_DEFAULT, buffer.data());
    H5Sclose(space);
    H5Tclose(mem);
    H5Tclose(file_type);
  }
  H5Oclose(obj);
  (*v->out)[path] = out.str();
  return 0;
}

}  // namespace h5dump_detail

/// Every object of the file (path -> attributes and values), leaving out
/// paths starting with `skip_prefix` (e.g. "/host"). Empty map if the file
/// cannot be opened.
inline std::map<std::string, std::string> dump_h5(const std::string& path, const std::string& skip_prefix = "") {
  std::map<std::string, std::string> out;
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return out;
  h5dump_detail::Visit v{&out, skip_prefix};
  H5Ovisit(file, H5_INDEX_NAME, H5_ITER_INC, h5dump_detail::visit, &v);
  H5Fclose(file);
  return out;
}

}  // namespace flashsim::test
