#include "sim/model/block_split.h"

#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "tests/model/model_test_util.h"

namespace flashsim {
namespace {

using test::tiny_llama;

TEST(BlockSplit, TensorGranularityIsOneBlockPerTensor) {
  const auto tensors = weight_tensors(tiny_llama());
  const ModelBlocks b = split_into_blocks(tensors, BlockGranularity::tensor(), 100);
  ASSERT_EQ(b.catalog.size(), 21u);
  EXPECT_EQ(b.total_bytes, 173'696u);
  EXPECT_EQ(b.catalog[0].id, 100u);
  EXPECT_EQ(b.catalog[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(b.catalog[0].kind, "embedding");
  EXPECT_EQ(b.catalog[2].layer, 0);
  EXPECT_EQ(b.catalog[2].segment, "decoder");
  // Addresses: tensors back to back on 256 B boundaries: embed 12800 B
  // (a multiple of 256), then the 128 B norm padded to 256.
  EXPECT_EQ(b.catalog[1].address_begin, 12800u);
  EXPECT_EQ(b.catalog[1].address_end, 12928u);
  EXPECT_EQ(b.catalog[2].address_begin, 13056u);
  for (std::size_t i = 0; i < tensors.size(); ++i) EXPECT_EQ(b.tensor_blocks[i], std::make_pair(i, i + 1));
}

TEST(BlockSplit, FourKiBByHand) {
  const auto tensors = weight_tensors(tiny_llama());
  const ModelBlocks b = split_into_blocks(tensors, BlockGranularity::parse("4KiB", tiny_llama()));
  // embed 12800 B -> 4 blocks (3 · 4096 + 512); per layer: norm 1, q 2, k 1,
  // v 1, o 2, norm 1, gate 4, up 4, down 4 = 20; final norm 1; lm_head 4.
  ASSERT_EQ(b.catalog.size(), 4u + 2 * 20 + 1 + 4);
  EXPECT_EQ(b.catalog[3].bytes, 512u);
  EXPECT_EQ(b.catalog[3].name, "model.embed_tokens.weight#3");
  EXPECT_EQ(b.catalog[4].name, "model.layers.0.input_layernorm.weight");  // one block: no suffix
  EXPECT_EQ(b.catalog[4].bytes, 128u);
  EXPECT_EQ(b.tensor_blocks[0], std::make_pair(std::size_t{0}, std::size_t{4}));
  EXPECT_EQ(b.tensor_blocks[2], std::make_pair(std::size_t{5}, std::size_t{7}));  // q_proj
  EXPECT_EQ(b.tensor_blocks[20], std::make_pair(std::size_t{45}, std::size_t{49}));  // lm_head
  ByteCount sum = 0;
  for (const auto& e : b.catalog) {
    EXPECT_LE(e.bytes, 4096u);
    EXPECT_GT(e.bytes, 0u);
    sum += e.bytes;
  }
  EXPECT_EQ(sum, 173'696u);
}

TEST(BlockSplit, SeedFormulaLlama2) {
  // 4096 · 11008 · 2 / 1024 = 88,064 B: neither the seed's 384 KB nor 1.2 MB.
  const ModelConfig llama = test::shipped("llama-2-7b");
  EXPECT_EQ(seed_block_bytes(llama), 88'064u);
  const BlockGranularity g = BlockGranularity::parse("seed", llama);
  EXPECT_EQ(g.mode, BlockGranularity::Mode::seed);
  EXPECT_EQ(g.block_bytes, 88'064u);
  EXPECT_EQ(g.describe(), "seed (88064 B)");
  // Tiny: 64 · 128 · 2 / 1024 = 16 B.
  EXPECT_EQ(seed_block_bytes(tiny_llama()), 16u);
}

TEST(BlockSplit, TooFineAGranularityIsRefusedBeforeAllocating) {
  // Llama-2-7B: 13,476,839,424 B in 256 B blocks = 52.6 M catalog entries > 2^24.
  const auto tensors = weight_tensors(test::shipped("llama-2-7b"));
  try {
    split_into_blocks(tensors, BlockGranularity::fixed(256));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than the 16777216 a catalog may hold"), std::string::npos) << e.what();
  }
  // T5-base (0.9 GB) at 256 B stays under the bound.
  const ModelBlocks t5 = split_into_blocks(weight_tensors(test::shipped("t5-base")), BlockGranularity::fixed(256));
  EXPECT_LE(t5.catalog.size(), kMaxModelBlocks);
  EXPECT_GT(t5.catalog.size(), 3'000'000u);
}

TEST(BlockSplit, ParseErrors) {
  EXPECT_EQ(BlockGranularity::parse("2MiB", tiny_llama()).block_bytes, 2u * kMiB);
  EXPECT_EQ(BlockGranularity::parse("256B", tiny_llama()).block_bytes, 256u);
  EXPECT_THROW(BlockGranularity::parse("layer", tiny_llama()), UnitError);
  EXPECT_THROW(BlockGranularity::parse("0B", tiny_llama()), InputError);
  EXPECT_THROW(split_into_blocks({}, BlockGranularity::fixed(0)), InputError);
}

TEST(BlockSplit, TwoMiBOfLlama2CoversEveryByte) {
  const auto tensors = weight_tensors(test::shipped("llama-2-7b"));
  const ModelBlocks b = split_into_blocks(tensors, BlockGranularity::fixed(2 * kMiB));
  // Per layer: q,k,v,o 32 MiB = 16 blocks each; gate/up/down 90,177,536 B
  // = 43 blocks each (43 · 2 MiB = 90,177,536 exactly); 2 norms. 64 + 129 + 2 = 195.
  // embed/lm_head 262,144,000 B = 125 blocks each; final norm 1.
  EXPECT_EQ(b.catalog.size(), 32u * 195 + 2 * 125 + 1);
  EXPECT_EQ(b.total_bytes, 2 * 6'738'415'616u);
}

}  // namespace
}  // namespace flashsim
