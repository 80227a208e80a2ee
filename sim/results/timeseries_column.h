// Reading one dataset of a run's /timeseries group in results.h5
// (sim/results/results_writer.h): one rule for the report and the timeline.
#pragma once
#include <hdf5.h>

#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "traces/hdf5_io.h"

namespace flashsim {

/// Dataset `name` of `group` as T (HDF5 converts to `mem_type`, e.g.
/// H5T_NATIVE_DOUBLE for integers read as doubles). `where` names the
/// group in messages. Throws InputError "<where> lacks '<name>'" when it is
/// missing, and what traces/hdf5_io.h throws on a damaged dataset.
template <class T>
std::vector<T> read_timeseries_column(hid_t group, const char* name, hid_t mem_type, const std::string& where) {
  if (!h5::link_exists(group, name)) throw InputError(where + " lacks '" + name + "'");
  auto ds = h5::open_dataset(group, name);
  const hsize_t n = h5::length(ds.get(), where + "/" + name);
  std::vector<T> v(n);
  if (n > 0) h5::read_range(ds.get(), mem_type, 0, n, v.data());
  return v;
}

}  // namespace flashsim
