#include "sim/model/layer_packing.h"

#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "sim/model/operator_graph.h"
#include "tests/model/model_test_util.h"

namespace flashsim {
namespace {

// 5 tiny layers of 73,984 B each (see weight_catalog_test), K = 3:
// slices layers 0-2 (221,952 B) and 3-4 (147,968 B), plus embed (12,800),
// final norm (128) and lm_head (12,800) alone. Read order: embed, 0-2, 3-4, norm, lm_head.
TEST(LayerPacking, ThreeLayersBytesAllocatorByHand) {
  const ModelConfig m = test::tiny_llama(5);
  const auto tensors = weight_tensors(m);
  const LayerPackingReport r = pack_layers(m, tensors, 3, 64 * kKiB, "bytes", 0, 7);
  ASSERT_EQ(r.slices.size(), 5u);
  EXPECT_EQ(r.layer_slice_count, 2u);
  EXPECT_EQ(r.slices[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(r.slices[1].name, "model.layers.0-2");
  EXPECT_EQ(r.slices[2].name, "model.layers.3-4");
  EXPECT_EQ(r.slices[1].payload_bytes, 221'952u);
  EXPECT_EQ(r.slices[2].payload_bytes, 147'968u);
  EXPECT_EQ(r.slices[2].first_layer, 3);
  EXPECT_EQ(r.slices[2].last_layer, 5);
  // Slots of 65,536 B: 221,952 -> 4 slots (262,144); 147,968 -> 3 (196,608);
  // each lone tensor one slot.
  EXPECT_EQ(r.slices[1].reserved_bytes, 262'144u);
  EXPECT_EQ(r.slices[2].reserved_bytes, 196'608u);
  EXPECT_EQ(r.reserved_bytes, 262'144u + 196'608u + 3 * 65'536u);
  EXPECT_EQ(r.payload_bytes, 395'648u);
  EXPECT_DOUBLE_EQ(r.layer_slice_utilisation, (221'952.0 / 262'144 + 147'968.0 / 196'608) / 2);
  EXPECT_DOUBLE_EQ(r.utilisation, 395'648.0 / 655'360);
  // Unpacked: 5 · 9 + 3 = 48 tensors, each <= 64 KiB: one slot each.
  EXPECT_EQ(r.unpacked_reserved_bytes, 48u * 65'536u);
  EXPECT_DOUBLE_EQ(r.space_overhead, 655'360.0 / (48 * 65'536.0) - 1.0);
  ASSERT_EQ(r.slice_catalog.size(), 5u);
  EXPECT_EQ(r.slice_catalog[1].id, 8u);
  EXPECT_EQ(r.slice_catalog[1].kind, "slice");
  EXPECT_EQ(r.slice_catalog[1].bytes, 221'952u);
  EXPECT_EQ(r.tensor_slice[1], 1u);   // layer 0's norm
  EXPECT_EQ(r.tensor_slice[28], 2u);  // layer 3's first tensor (1 + 3·9)
}

TEST(LayerPacking, SizeClassRoundsToPowersOfTwo) {
  const ModelConfig m = test::tiny_llama(5);
  const LayerPackingReport r = pack_layers(m, weight_tensors(m), 3, 0, "size_class");
  // 221,952 and 147,968 -> 262,144; 12,800 -> 16,384; 128 -> 256 (min class).
  EXPECT_EQ(r.slices[1].reserved_bytes, 262'144u);
  EXPECT_EQ(r.slices[2].reserved_bytes, 262'144u);
  EXPECT_EQ(r.slices[0].reserved_bytes, 16'384u);
  EXPECT_EQ(r.slices[3].reserved_bytes, 256u);
  EXPECT_EQ(r.reserved_bytes, 2 * 262'144u + 2 * 16'384u + 256u);
}

TEST(LayerPacking, ChurnProperties) {
  const ModelConfig m = test::tiny_llama(8);
  const auto tensors = weight_tensors(m);
  // Fast tier for about half the model.
  for (const char* alloc : {"bytes", "first_fit", "size_class"}) {
    SCOPED_TRACE(alloc);
    const LayerPackingReport r = pack_layers(m, tensors, 1, 0, alloc, 300'000, 0, 3);
    EXPECT_EQ(r.passes, 3u);
    EXPECT_EQ(r.placements + r.unplaceable, 3 * r.slices.size());
    EXPECT_GT(r.evictions, 0u);
    EXPECT_GE(r.external_fragmentation, 0.0);
    EXPECT_LT(r.external_fragmentation, 1.0);
    EXPECT_GT(r.mean_occupancy, 0.0);
    EXPECT_LE(r.mean_occupancy, 1.0);
    // The idealised pool has no extents: never externally fragmented.
    if (std::string(alloc) == "bytes") {
      EXPECT_EQ(r.external_fragmentation, 0.0);
    }
  }
  EXPECT_THROW(pack_layers(m, tensors, 0, 0, "bytes"), InputError);
  EXPECT_THROW(pack_layers(m, tensors, 3, 0, "no_such_allocator"), UnknownNameError);
}

TEST(LayerPacking, PackedBlocksFeedTheOperatorGraph) {
  const ModelConfig m = test::tiny_llama(5);
  const LayerPackingReport r = pack_layers(m, weight_tensors(m), 3, 0, "bytes");
  const ModelBlocks blocks = packed_blocks(r);
  ASSERT_EQ(blocks.catalog.size(), 5u);
  const auto order = per_token_order(build_operator_graph(m, blocks));
  // embed, 5 · (attn, mlp), norm, lm_head; layers 0-2 read slice 1, 3-4 slice 2.
  ASSERT_EQ(order.size(), 13u);
  EXPECT_EQ(order[0].blocks, std::vector<BlockId>{0});
  for (int l = 0; l < 5; ++l) {
    const BlockId slice = l < 3 ? 1 : 2;
    EXPECT_EQ(order[1 + 2 * l].blocks, std::vector<BlockId>{slice});
    EXPECT_EQ(order[2 + 2 * l].blocks, std::vector<BlockId>{slice});
  }
  EXPECT_EQ(order[11].blocks, std::vector<BlockId>{3});
  EXPECT_EQ(order[12].blocks, std::vector<BlockId>{4});
}

// The seed's "63% single-slice utilisation" with K = 3 (docs/models.md):
// in power-of-two size classes, Llama-2-7B's 3-layer slice (3 · 404,766,720
// = 1,214,300,160 B) takes a 2 GiB class: 56.5%; Phi-3-mini's (3 ·
// 226,504,704 = 679,514,112 B) takes 1 GiB: 63.3%; Qwen2-7B's (3 ·
// 466,115,584 = 1,398,346,752 B) takes 2 GiB: 65.1%.
TEST(LayerPacking, SeedSixtyThreePercentInPowerOfTwoClasses) {
  struct Case {
    const char* model;
    ByteCount slice;
    double utilisation;
  };
  for (const Case& c : {Case{"llama-2-7b", 1'214'300'160u, 1'214'300'160.0 / (2.0 * kGiB)},
                        Case{"phi-3-mini", 679'514'112u, 679'514'112.0 / kGiB},
                        Case{"qwen2-7b", 1'398'346'752u, 1'398'346'752.0 / (2.0 * kGiB)}}) {
    SCOPED_TRACE(c.model);
    const ModelConfig m = test::shipped(c.model);
    const LayerPackingReport r = pack_layers(m, weight_tensors(m), 3, 0, "size_class");
    EXPECT_EQ(r.slices[1].payload_bytes, c.slice);
    EXPECT_DOUBLE_EQ(static_cast<double>(r.slices[1].payload_bytes) / r.slices[1].reserved_bytes, c.utilisation);
  }
}

}  // namespace
}  // namespace flashsim
