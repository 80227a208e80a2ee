// Saving generated workloads: the HDF5 round trip of records, catalog
// segments, concept ids, embeddings and operators, and files without them.
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/workload/workload_test_util.h"
#include "traces/hdf5_io.h"
#include "traces/hdf5_trace.h"

namespace flashsim {
namespace {

using test::TempDir;

void expect_same_records(const std::vector<AccessRecord>& a, ITraceSource& b) {
  std::vector<AccessRecord> got(a.size() + 1);
  ASSERT_EQ(b.read(got), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    EXPECT_EQ(got[i].time_ns, a[i].time_ns);
    EXPECT_EQ(got[i].block_id, a[i].block_id);
    EXPECT_EQ(got[i].bytes, a[i].bytes);
    EXPECT_EQ(got[i].op, a[i].op);
    EXPECT_EQ(got[i].stream_id, a[i].stream_id);
    EXPECT_EQ(got[i].request_id, a[i].request_id);
    EXPECT_EQ(got[i].token_index, a[i].token_index);
    EXPECT_EQ(got[i].phase, a[i].phase);
    EXPECT_EQ(got[i].operator_id, a[i].operator_id);
    EXPECT_EQ(got[i].compute_ns, a[i].compute_ns);
  }
}

TEST(WorkloadTraceIo, GeneratedMultimodalTraceRoundTripsThroughHdf5) {
  TempDir dir;
  ServingOptions o = test::options(2, 3, 4, 3);
  o.concepts.concepts = 3;
  o.concepts.embedding_dim = 4;
  auto w = make_serving_workload(test::tiny_llava(), "1KiB", o, test::test_compute());
  const auto records = test::all_records(*w);
  const std::uint64_t n = write_workload(*w, dir / "mm.h5", Hdf5WriteOptions{1000, 1, true});
  EXPECT_EQ(n, records.size());

  Hdf5TraceSource back(dir / "mm.h5");
  const TraceMeta& meta = back.meta();
  const TraceMeta& want = w->meta();
  EXPECT_EQ(meta.record_count, records.size());
  EXPECT_EQ(meta.source, want.source);
  ASSERT_EQ(meta.catalog.size(), want.catalog.size());
  std::size_t with_embedding = 0, with_segment = 0;
  for (std::size_t i = 0; i < want.catalog.size(); ++i) {
    const auto& a = want.catalog[i];
    const auto& b = meta.catalog[i];
    EXPECT_EQ(b.id, a.id);
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(b.bytes, a.bytes);
    EXPECT_EQ(b.layer, a.layer);
    EXPECT_EQ(b.kind, a.kind);
    EXPECT_EQ(b.segment, a.segment);
    EXPECT_EQ(b.concept_id, a.concept_id);
    EXPECT_EQ(b.embedding, a.embedding);
    with_embedding += !a.embedding.empty();
    with_segment += !a.segment.empty();
  }
  EXPECT_GT(with_embedding, 0u);
  EXPECT_EQ(with_segment, want.catalog.size());
  ASSERT_EQ(meta.operators.size(), want.operators.size());
  std::size_t vision_ops = 0;
  for (std::size_t i = 0; i < want.operators.size(); ++i) {
    const auto& a = want.operators[i];
    const auto& b = meta.operators[i];
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(b.layer, a.layer);
    EXPECT_EQ(b.segment, a.segment);
    EXPECT_EQ(b.blocks, a.blocks);
    EXPECT_EQ(b.routed_blocks, a.routed_blocks);
    EXPECT_EQ(b.compute_ns, a.compute_ns);
    vision_ops += a.segment == "vision";
  }
  EXPECT_GT(vision_ops, 0u);
  expect_same_records(records, back);
}

TEST(WorkloadTraceIo, MoeOperatorsKeepTheirRoutedBlocks) {
  TempDir dir;
  auto w = make_serving_workload(test::tiny_mixtral(4, 2), "tensor", test::options(2, 2, 3, 3), test::test_compute());
  write_workload(*w, dir / "moe.h5");
  Hdf5TraceSource back(dir / "moe.h5");
  std::size_t routed = 0;
  for (std::size_t i = 0; i < w->meta().operators.size(); ++i) {
    EXPECT_EQ(back.meta().operators[i].routed_blocks, w->meta().operators[i].routed_blocks);
    routed += w->meta().operators[i].routed_blocks.size();
  }
  EXPECT_EQ(routed, 2u * 4 * 3);
}

TEST(WorkloadTraceIo, FilesWithoutTheNewFieldsReadBackAsDefaults) {
  TempDir dir;
  TraceMeta meta;
  meta.source = "old style";
  meta.catalog = {{0, "a", 4096, kNoAddress, kNoAddress, 0, "weight"}, {1, "b", 8192, kNoAddress, kNoAddress, 1, "weight"}};
  {
    Hdf5TraceWriter w(dir / "old.h5", meta);
    AccessRecord r;
    r.bytes = 4096;
    w.write(std::span<const AccessRecord>(&r, 1));
    w.finish();
  }
  {
    h5::QuietErrors quiet;
    h5::Handle f = h5::open_file_read((dir / "old.h5").string());
    EXPECT_FALSE(h5::link_exists(f.get(), "operators"));
    h5::Handle catalog = h5::open_group(f.get(), "catalog");
    for (const char* absent : {"segment", "concept_id", "embedding", "embedding_length"}) {
      EXPECT_FALSE(h5::link_exists(catalog.get(), absent)) << absent;
    }
  }
  Hdf5TraceSource back(dir / "old.h5");
  ASSERT_EQ(back.meta().catalog.size(), 2u);
  for (const auto& e : back.meta().catalog) {
    EXPECT_EQ(e.segment, "");
    EXPECT_EQ(e.concept_id, -1);
    EXPECT_TRUE(e.embedding.empty());
  }
  EXPECT_TRUE(back.meta().operators.empty());
}

TEST(WorkloadTraceIo, EmptyListsAndMixedEmbeddingsRoundTrip) {
  TempDir dir;
  TraceMeta meta;
  meta.catalog.resize(3);
  for (std::size_t i = 0; i < 3; ++i) {
    meta.catalog[i].id = i;
    meta.catalog[i].bytes = 100;
  }
  meta.catalog[1].embedding = {0.5f, -1.25f};
  meta.catalog[2].concept_id = 7;
  meta.catalog[2].embedding = {3.0f};
  meta.operators.resize(2);
  meta.operators[0].name = "op0";
  meta.operators[0].blocks = {0, 1};
  meta.operators[1].name = "op1";  // no blocks, no routed blocks
  meta.operators[1].compute_ns = 12345;
  {
    Hdf5TraceWriter w(dir / "x.h5", meta);
    w.finish();
  }
  Hdf5TraceSource back(dir / "x.h5");
  EXPECT_TRUE(back.meta().catalog[0].embedding.empty());
  EXPECT_EQ(back.meta().catalog[1].embedding, (std::vector<float>{0.5f, -1.25f}));
  EXPECT_EQ(back.meta().catalog[2].embedding, (std::vector<float>{3.0f}));
  EXPECT_EQ(back.meta().catalog[1].concept_id, -1);
  EXPECT_EQ(back.meta().catalog[2].concept_id, 7);
  ASSERT_EQ(back.meta().operators.size(), 2u);
  EXPECT_EQ(back.meta().operators[0].blocks, (std::vector<BlockId>{0, 1}));
  EXPECT_TRUE(back.meta().operators[1].blocks.empty());
  EXPECT_EQ(back.meta().operators[1].compute_ns, 12345);
  EXPECT_EQ(back.meta().record_count, 0u);
}

}  // namespace
}  // namespace flashsim
