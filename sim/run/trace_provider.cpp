#include "sim/run/trace_provider.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>

#include "traces/prefetching_trace_source.h"
#include "sim/core/errors.h"
#include "sim/scenario/embedded_files.h"
#include "sim/workload/workload_io.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

constexpr std::size_t kChunk = 64 * 1024;

// Readers of a trace held in memory, shared by every run.
class SharedMemorySource final : public ITraceSource {
 public:
  SharedMemorySource(std::shared_ptr<const TraceMeta> meta, std::shared_ptr<const std::vector<AccessRecord>> records)
      : meta_(std::move(meta)), records_(std::move(records)) {}
  const TraceMeta& meta() const override { return *meta_; }
  std::size_t read(std::span<AccessRecord> out) override {
    const std::size_t n = std::min(out.size(), records_->size() - position_);
    std::copy_n(records_->begin() + static_cast<std::ptrdiff_t>(position_), n, out.begin());
    position_ += n;
    return n;
  }
  void rewind() override { position_ = 0; }

 private:
  std::shared_ptr<const TraceMeta> meta_;
  std::shared_ptr<const std::vector<AccessRecord>> records_;
  std::size_t position_ = 0;
};

// HDF5 may be built without its thread-safe option (then concurrent calls
// corrupt its state); every HDF5 trace reader here runs under one lock.
std::mutex& hdf5_mutex() {
  static std::mutex m;
  return m;
}

class LockedSource final : public ITraceSource {
 public:
  LockedSource(const std::filesystem::path& path, const std::string& format,
               const std::map<std::string, std::string>& options) {
    std::lock_guard lock(hdf5_mutex());
    inner_ = open_trace(path, format, options);
  }
  ~LockedSource() override {
    std::lock_guard lock(hdf5_mutex());
    inner_.reset();
  }
  const TraceMeta& meta() const override { return inner_->meta(); }
  std::size_t read(std::span<AccessRecord> out) override {
    std::lock_guard lock(hdf5_mutex());
    return inner_->read(out);
  }
  void rewind() override {
    std::lock_guard lock(hdf5_mutex());
    inner_->rewind();
  }

 private:
  std::unique_ptr<ITraceSource> inner_;
};

void write_file(const std::filesystem::path& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.flush();
  if (!out) throw Error("cannot write '" + path.string() + "'");
}

std::filesystem::path make_temp_dir() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  // Folders of killed runs are removed first (a builtin trace is 70-100 MB).
  const std::string removed = describe_removed(remove_stale_temp_files(base, "flashsim-builtin-"));
  if (!removed.empty()) std::cerr << "flashsim: " << removed << "\n";
  std::string pattern = (base / ("flashsim-builtin-" + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw Error("cannot create a temporary folder in '" + base.string() + "': " + std::strerror(errno));
  }
  return pattern;
}

}  // namespace

std::string trace_key(const WorkloadSpec& workload) {
  if (workload.generated) {
    const WorkloadContext& c = workload.generator_context;
    std::string key = "generator:" + workload.generator + "\nseed=" + std::to_string(c.seed) +
                      "\npeak_flops=" + std::to_string(c.compute.peak_flops) +
                      "\nhbm_bandwidth=" + std::to_string(c.compute.hbm_bandwidth) + "\nbase=" + c.base_dir.string();
    for (const auto& [k, v] : workload.generator_params) key += "\n" + k + "=" + v;
    return key;
  }
  std::string key = workload.trace + "\n" + workload.format;
  for (const auto& [k, v] : workload.import_options) key += "\n" + k + "=" + v;
  return key;
}

TraceProvider::TraceProvider(const WorkloadSpec& workload, std::uint64_t memory_limit_records)
    : workload_(workload), path_(workload.path) {
  if (workload.generated) {
    generator_ = make_workload(workload.generator, workload.generator_params, workload.generator_context);
    std::unique_ptr<ITraceSource> source = generator_->open();
    auto records = std::make_shared<std::vector<AccessRecord>>();
    std::vector<AccessRecord> buffer(kChunk);
    while (const std::size_t n = source->read(buffer)) {
      records->insert(records->end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
      if (records->size() > memory_limit_records) return;  // too long to keep: every run generates its own
    }
    auto meta = std::make_shared<TraceMeta>(generator_->meta());
    meta->record_count = records->size();
    records->shrink_to_fit();
    records_ = std::move(records);
    meta_ = std::move(meta);
    return;
  }
  if (workload.builtin) {
    const EmbeddedFile* file = find_embedded_data(workload.builtin_name);
    if (!file) throw InputError("no built-in trace '" + workload.builtin_name + "'");
    temp_dir_ = make_temp_dir();
    signal_cleanup_.push_back(std::make_unique<SignalCleanupGuard>(temp_dir_));
    path_ = temp_dir_ / workload.builtin_file;
    signal_cleanup_.push_back(std::make_unique<SignalCleanupGuard>(path_));
    write_file(path_, file->data);
    // Its catalog, if the binary carries one (NAME.catalog.csv beside NAME.csv).
    const std::string stem = workload.builtin_file.substr(0, workload.builtin_file.find('.'));
    if (const EmbeddedFile* catalog = find_embedded_file("data/" + stem + ".catalog.csv")) {
      const std::filesystem::path catalog_path = temp_dir_ / (stem + ".catalog.csv");
      signal_cleanup_.push_back(std::make_unique<SignalCleanupGuard>(catalog_path));
      write_file(catalog_path, catalog->data);
    }
  }
  std::unique_ptr<ITraceSource> source =
      workload.format == "hdf5" ? std::make_unique<LockedSource>(path_, workload.format, workload.import_options)
                                : open_trace(path_, workload.format, workload.import_options);
  // An HDF5 trace says its length: a long one is not read here at all.
  if (workload.format == "hdf5" && source->meta().record_count > memory_limit_records) return;
  auto records = std::make_shared<std::vector<AccessRecord>>();
  std::vector<AccessRecord> buffer(buffer_records_for(source->meta(), kChunk));
  while (const std::size_t n = source->read(buffer)) {
    records->insert(records->end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
    if (records->size() > memory_limit_records) return;  // too long to share: every run streams its own
  }
  auto meta = std::make_shared<TraceMeta>(source->meta());
  meta->record_count = records->size();
  // Messages name what the user wrote, not the temp copy ("csv:/tmp/flashsim-builtin-...").
  if (workload.builtin) meta->source = workload.trace;
  records->shrink_to_fit();
  records_ = std::move(records);
  meta_ = std::move(meta);
}

TraceProvider::~TraceProvider() {
  if (!temp_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir_, ignored);
  }
}

std::unique_ptr<ITraceSource> TraceProvider::open() const {
  if (records_) return std::make_unique<SharedMemorySource>(meta_, records_);
  if (generator_) return std::make_unique<PrefetchingTraceSource>(generator_->open());
  // Streamed traces decode one chunk ahead on a second thread.
  if (workload_.format == "hdf5") {
    return std::make_unique<PrefetchingTraceSource>(
        std::make_unique<LockedSource>(path_, workload_.format, workload_.import_options));
  }
  return std::make_unique<PrefetchingTraceSource>(open_trace(path_, workload_.format, workload_.import_options));
}

std::shared_ptr<TraceProvider> TraceProviderCache::get(const WorkloadSpec& workload,
                                                       std::uint64_t memory_limit_records) {
  std::lock_guard lock(mutex_);
  auto& slot = providers_[trace_key(workload) + "\nmemory_limit_records=" + std::to_string(memory_limit_records)];
  if (!slot) slot = std::make_shared<TraceProvider>(workload, memory_limit_records);
  return slot;
}

TraceFootprint TraceProvider::footprint() const {
  std::lock_guard lock(mutex_);
  if (!footprint_known_) {
    std::unique_ptr<ITraceSource> source = open();
    footprint_ = measure_footprint(*source);
    footprint_known_ = true;
  }
  return footprint_;
}

}  // namespace flashsim
