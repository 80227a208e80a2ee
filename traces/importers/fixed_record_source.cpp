#include "traces/importers/fixed_record_source.h"

#include <algorithm>
#include <limits>

#include "sim/core/errors.h"

namespace flashsim {

namespace {
constexpr std::size_t kBatchRecords = 4096;
}  // namespace

std::optional<AccessOp> libcachesim_op(std::uint32_t code) {
  if (code == 1 || code == 2 || code == 12 || code == 0 || code == 15) return AccessOp::read;
  if ((code >= 3 && code <= 11) || code == 13 || code == 14) return AccessOp::write;
  return std::nullopt;
}

FixedRecordTraceSource::FixedRecordTraceSource(std::filesystem::path path, std::string format)
    : stream_(std::move(path)), format_(std::move(format)) {}

FixedRecordTraceSource::~FixedRecordTraceSource() = default;

void FixedRecordTraceSource::start(std::uint64_t header_bytes, std::size_t record_bytes,
                                   std::optional<std::uint64_t> declared_records, bool skip_zero_size) {
  header_bytes_ = header_bytes;
  record_bytes_ = record_bytes;
  declared_records_ = declared_records;
  skip_zero_size_ = skip_zero_size;
  raw_.resize(kBatchRecords * record_bytes_);
  if (const auto size = stream_.size_bytes()) {
    const std::uint64_t data = *size - std::min(*size, header_bytes_);
    if (data % record_bytes_ != 0) {
      const std::string what = header_bytes_ == 0 ? std::to_string(*size) + " bytes"
                                                  : std::to_string(data) + " bytes after the " +
                                                        std::to_string(header_bytes_) + "-byte header";
      throw InputError(where() + ": truncated " + format_ + " trace: " + what + " is not a multiple of " +
                       std::to_string(record_bytes_) + "; record " + std::to_string(data / record_bytes_) +
                       " is incomplete (" + std::to_string(data % record_bytes_) + " of " +
                       std::to_string(record_bytes_) + " bytes)");
    }
    file_records_ = data / record_bytes_;
    if (declared_records_ && *declared_records_ != *file_records_) {
      throw InputError(where() + ": " + format_ + " header says " + std::to_string(*declared_records_) +
                       " requests but the file holds " + std::to_string(*file_records_) +
                       (*file_records_ < *declared_records_ ? " (truncated?)" : ""));
    }
  } else {
    file_records_ = declared_records_;
  }
  meta_.record_count = skip_zero_size_ ? 0 : file_records_.value_or(0);
  if (meta_.source.empty()) meta_.source = format_ + ":" + where();
  rewind();
}

void FixedRecordTraceSource::skip_header() {
  std::vector<unsigned char> scratch(static_cast<std::size_t>(std::min<std::uint64_t>(header_bytes_, 1 << 16)));
  for (std::uint64_t left = header_bytes_; left > 0;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, scratch.size()));
    if (stream_.read(scratch.data(), n) != n) throw InputError(where() + ": short " + format_ + " header");
    left -= n;
  }
}

void FixedRecordTraceSource::rewind() {
  stream_.rewind();
  skip_header();
  index_ = 0;
  ended_ = false;
  validator_.reset();
}

void FixedRecordTraceSource::fail(std::uint64_t index, const std::string& problem) const {
  throw InputError(where() + ": record " + std::to_string(index) + ": " + problem);
}

std::uint64_t FixedRecordTraceSource::next_use_from_vtime(std::int64_t vtime, std::uint64_t index) const {
  if (vtime == -1 || vtime == std::numeric_limits<std::int64_t>::max()) return kNeverAccessedAgain;
  if (vtime <= 0 || static_cast<std::uint64_t>(vtime) - 1 <= index) {
    fail(index, "next_access_vtime " + std::to_string(vtime) + " is not after this request (vtime " +
                    std::to_string(index + 1) + "; libCacheSim counts requests from 1)");
  }
  const std::uint64_t next = static_cast<std::uint64_t>(vtime) - 1;
  // Beyond this file (a prefix of a longer trace): not used again here.
  if (file_records_ && next >= *file_records_) return kNeverAccessedAgain;
  return next;
}

std::size_t FixedRecordTraceSource::read(std::span<AccessRecord> out) {
  std::size_t filled = 0;
  while (filled < out.size() && !ended_) {
    const std::size_t want = std::min(kBatchRecords, out.size() - filled);
    const std::size_t got = stream_.read(raw_.data(), want * record_bytes_);
    const std::size_t whole = got / record_bytes_;
    for (std::size_t i = 0; i < whole; ++i, ++index_) {
      AccessRecord& r = out[filled];
      r = AccessRecord{};
      if (!decode(raw_.data() + i * record_bytes_, index_, r)) continue;
      const std::string problem = validator_.check(r);
      if (!problem.empty()) fail(index_, problem);
      ++filled;
    }
    if (got % record_bytes_ != 0) {
      fail(index_, "incomplete record (" + std::to_string(got % record_bytes_) + " of " +
                       std::to_string(record_bytes_) + " bytes): the " + format_ + " data is truncated");
    }
    if (got < want * record_bytes_) {
      ended_ = true;
      if (declared_records_ && index_ != *declared_records_) {
        fail(index_, "the data ends here, but the " + format_ + " header says " +
                         std::to_string(*declared_records_) + " requests (truncated?)");
      }
    }
  }
  return filled;
}

}  // namespace flashsim
