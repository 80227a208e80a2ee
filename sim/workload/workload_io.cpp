#include "sim/workload/workload_io.h"

#include <vector>

namespace flashsim {

std::unique_ptr<IWorkloadGenerator> make_workload(const std::string& name,
                                                  const std::map<std::string, std::string>& params,
                                                  const WorkloadContext& context) {
  return WorkloadRegistry::instance().create(name, params, context);
}

std::uint64_t copy_records(ITraceSource& source, ITraceSink& sink, std::size_t chunk_records) {
  std::vector<AccessRecord> buffer(std::max<std::size_t>(1, chunk_records));
  std::uint64_t total = 0;
  while (const std::size_t n = source.read(buffer)) {
    sink.write(std::span<const AccessRecord>(buffer.data(), n));
    total += n;
  }
  return total;
}

std::uint64_t write_workload(const IWorkloadGenerator& generator, const std::filesystem::path& path,
                             Hdf5WriteOptions options) {
  std::unique_ptr<ITraceSource> source = generator.open();
  Hdf5TraceWriter writer(path, generator.meta(), options);
  const std::uint64_t n = copy_records(*source, writer, options.chunk_records);
  writer.finish();
  return n;
}

namespace {

class VectorSink final : public ITraceSink {
 public:
  void write(std::span<const AccessRecord> records) override {
    records_.insert(records_.end(), records.begin(), records.end());
  }
  void finish() override {}
  std::vector<AccessRecord> take() { return std::move(records_); }

 private:
  std::vector<AccessRecord> records_;
};

}  // namespace

std::unique_ptr<MemoryTraceSource> generate_in_memory(const IWorkloadGenerator& generator) {
  std::unique_ptr<ITraceSource> source = generator.open();
  VectorSink sink;
  copy_records(*source, sink);
  TraceMeta meta = generator.meta();
  std::vector<AccessRecord> records = sink.take();
  meta.record_count = records.size();
  return std::make_unique<MemoryTraceSource>(std::move(meta), std::move(records));
}

}  // namespace flashsim
