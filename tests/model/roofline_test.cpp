#include "sim/model/roofline.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/scenario/hardware_loader.h"
#include "tests/model/model_test_util.h"

namespace flashsim {
namespace {

ComputeSpec spec(double flops, double bandwidth) {
  ComputeSpec c;
  c.peak_flops = flops;
  c.hbm_bandwidth = bandwidth;
  return c;
}

const ComputeSpec kH200Measured = spec(790e12, 4.47e12);  // ../shared/hw/H200.md

TEST(Roofline, ClosedForm) {
  const ComputeSpec c = spec(1e12, 1e9);
  EXPECT_EQ(roofline_ns(2e6, 1000, c), 2000);   // compute-bound: 2e6 / 1e12 s = 2 us; memory 1 us
  EXPECT_EQ(roofline_ns(1e3, 5000, c), 5000);   // memory-bound: 5000 B / 1e9 B/s = 5 us
  EXPECT_EQ(roofline_ns(1, 0, c), 1);           // 0.001 ns rounds up
  EXPECT_EQ(roofline_ns(0, 0, c), 0);
  EXPECT_EQ(roofline_ns(1e9, 1000, spec(0, 1e9)), 1000);  // unknown peak: memory term only
}

TEST(Roofline, HardwareProfilesCarryComputeFigures) {
  // h200.yaml: measured (../shared/hw/H200.md); seed-defaults.yaml: H200 datasheet.
  const ComputeSpec h200 = load_hardware_profile("builtin:h200").compute;
  EXPECT_DOUBLE_EQ(h200.peak_flops, 790e12);
  EXPECT_DOUBLE_EQ(h200.hbm_bandwidth, 4.47e12);
  const ComputeSpec pageable = load_hardware_profile("builtin:h200-pageable").compute;  // inherits h200
  EXPECT_DOUBLE_EQ(pageable.hbm_bandwidth, 4.47e12);
  const ComputeSpec seed = load_hardware_profile("builtin:seed-defaults").compute;
  EXPECT_DOUBLE_EQ(seed.peak_flops, 989e12);
  EXPECT_DOUBLE_EQ(seed.hbm_bandwidth, 4.8e12);
}

TEST(Roofline, ExpectedDistinctExperts) {
  EXPECT_DOUBLE_EQ(expected_distinct_experts(8, 2, 1), 2.0);          // 8 · (1 - 0.75)
  EXPECT_DOUBLE_EQ(expected_distinct_experts(8, 2, 2), 8 * (1 - 0.5625));
  EXPECT_DOUBLE_EQ(expected_distinct_experts(8, 2, 0), 0.0);
  EXPECT_NEAR(expected_distinct_experts(8, 2, 1000), 8.0, 1e-9);
}

TEST(Roofline, TinyAttentionByHand) {
  const ModelConfig m = test::tiny_llama();
  const OperatorGraph g = build_operator_graph(m, split_into_blocks(weight_tensors(m), {}));
  auto order = per_token_order(g);
  const OperatorNode& attn = g[1];
  ASSERT_EQ(attn.name, "model.layers.0.self_attn");
  // Context 10: FLOPs 24,576 + 256 · 10 = 27,136. Bytes: weights 24,704 +
  // activations in and out 2 · 128 + KV 10 · 128 = 26,240.
  EXPECT_DOUBLE_EQ(operator_flops(attn, 10), 27'136.0);
  EXPECT_EQ(operator_bytes(attn, 1, 10), 26'240u);
  // H200 measured: memory 26,240 / 4.47e12 s = 5.87 ns -> 6; compute 0.034 ns.
  EXPECT_EQ(operator_time_ns(attn, 1, 10, kH200Measured), 6);
  // Batch 4: bytes 24,704 + 4 · (256 + 1280) = 30,848 -> 6.9 ns -> 7.
  EXPECT_EQ(operator_bytes(attn, 4, 10), 30'848u);
  EXPECT_EQ(operator_time_ns(attn, 4, 10, kH200Measured), 7);
  // Embedding lookup reads one row per token: 128 B + 2 · 128 B.
  EXPECT_EQ(operator_bytes(g[0], 1, 0), 384u);

  fill_compute_ns(order, g, kH200Measured, 1, 10);
  EXPECT_EQ(order[1].compute_ns, 6);
  for (const auto& e : order) EXPECT_GT(e.compute_ns, 0);
}

TEST(Roofline, Llama2DecodeIsMemoryBound) {
  const ModelConfig m = test::shipped("llama-2-7b");
  const OperatorGraph g = build_operator_graph(m, split_into_blocks(weight_tensors(m), {}));
  const OperatorNode& mlp = g[2];
  ASSERT_EQ(mlp.name, "model.layers.0.mlp");
  // Weights 3 · 4096 · 11008 · 2 + norm 8192 = 270,540,800 B; activations 2 · 8192.
  const ByteCount bytes = 270'540'800u + 16'384u;
  EXPECT_EQ(operator_bytes(mlp, 1, 0), bytes);
  const auto expect_ns = static_cast<Nanoseconds>(std::ceil(static_cast<double>(bytes) * 1e9 / 4.47e12));
  EXPECT_EQ(operator_time_ns(mlp, 1, 0, kH200Measured), expect_ns);  // 60,524 ns
  // Batch 512 becomes compute-bound: 512 · 2 · 3 · 4096 · 11008 FLOPs / 790e12.
  const double flops = 512.0 * 2 * 3 * 4096 * 11008;
  const double mem_ns = static_cast<double>(270'540'800u + 512u * 16'384u) * 1e9 / 4.47e12;
  const double cmp_ns = flops * 1e9 / 790e12;
  ASSERT_GT(cmp_ns, mem_ns);
  EXPECT_EQ(operator_time_ns(mlp, 512, 0, kH200Measured), static_cast<Nanoseconds>(std::ceil(cmp_ns)));
}

TEST(Roofline, MixtralBatchReadsExpectedDistinctExperts) {
  const ModelConfig m = test::shipped("mixtral-8x7b");
  const OperatorGraph g = build_operator_graph(m, split_into_blocks(weight_tensors(m), {}));
  const OperatorNode& moe = g[2];
  ASSERT_EQ(moe.kind, "moe");
  const double expert = 3.0 * 4096 * 14336 * 2;
  const double fixed = 8192 + 8.0 * 4096 * 2;  // norm + router
  EXPECT_EQ(operator_bytes(moe, 1, 0), static_cast<ByteCount>(fixed + 2 * expert + 2 * 8192));
  EXPECT_EQ(operator_bytes(moe, 2, 0), static_cast<ByteCount>(std::ceil(fixed + 3.5 * expert + 4 * 8192)));
}

}  // namespace
}  // namespace flashsim
