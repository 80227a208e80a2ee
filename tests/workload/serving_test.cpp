// Serving workloads: hand-counted record sequences on a 2-layer model, KV
// pages against the closed formulas, requests, phases, token indices,
// chunked prefill, continuous batching, loading modes and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "sim/core/errors.h"
#include "tests/workload/workload_test_util.h"

namespace flashsim {
namespace {

using test::all_records;
using test::options;

TEST(Serving, TwoLayerModelOneRequestHandCounted) {
  // 1 request, prompt 2, output 2, pages of 2 tokens, whole-tensor blocks.
  ServingOptions o = options(1, 1, 2, 2);
  o.page_tokens = 2;
  auto w = make_serving_workload(test::tiny_llama(), "tensor", o, test::test_compute());
  const auto records = all_records(*w);
  const auto names = test::by_id(w->meta());
  const auto& ops = w->meta().operators;
  ASSERT_EQ(ops.size(), 7u);  // embed, 2 × (attn, mlp), norm, lm_head

  const std::string L = "model.layers.";
  auto layer_weights = [&](int layer, bool attn) {
    std::vector<std::string> out;
    const std::string p = L + std::to_string(layer) + ".";
    if (attn) {
      for (const char* t : {"input_layernorm", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                            "self_attn.o_proj"}) {
        out.push_back(p + t + ".weight");
      }
    } else {
      for (const char* t : {"post_attention_layernorm", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}) {
        out.push_back(p + t + ".weight");
      }
    }
    return out;
  };
  // Expected (block name, op, operator index, request?) in order.
  struct Row {
    std::string name;
    AccessOp op;
    std::uint32_t operator_id;
    bool request;
  };
  std::vector<Row> expected;
  auto weights = [&](const std::vector<std::string>& names_, std::uint32_t op_id) {
    for (const auto& n : names_) expected.push_back({n, AccessOp::read, op_id, false});
  };
  // Admission: the prompt's 2 int32 input ids (8 B) copied H2D before the first weight read.
  expected.push_back({"input.r0", AccessOp::read, kNoOperator, true});
  for (int step = 0; step < 2; ++step) {
    weights({"model.embed_tokens.weight"}, 0);
    for (int layer = 0; layer < 2; ++layer) {
      const std::uint32_t attn_op = 1 + 2 * static_cast<std::uint32_t>(layer);
      weights(layer_weights(layer, true), attn_op);
      const std::string page = "kv.r0.l" + std::to_string(layer) + ".p";
      if (step == 0) {  // prefill of positions 0,1: page 0 written, no earlier context read
        expected.push_back({page + "0", AccessOp::write, attn_op, true});
      } else {  // decode of position 2: page 1 written, pages 0 and 1 read
        expected.push_back({page + "1", AccessOp::write, attn_op, true});
        expected.push_back({page + "0", AccessOp::read, attn_op, true});
        expected.push_back({page + "1", AccessOp::read, attn_op, true});
      }
      weights(layer_weights(layer, false), attn_op + 1);
    }
    weights({"model.norm.weight"}, 5);
    weights({"lm_head.weight"}, 6);
    expected.push_back({"logits.r0", AccessOp::write, 6, true});
  }
  ASSERT_EQ(records.size(), expected.size());
  ASSERT_EQ(records.size(), 53u);
  EXPECT_EQ(records[0].bytes, 8u);
  EXPECT_EQ(records[0].time_ns, 0);
  EXPECT_EQ(records[0].compute_ns, 0);
  EXPECT_EQ(w->requests()[0].input_bytes, 8u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    const AccessRecord& r = records[i];
    EXPECT_EQ(names.at(r.block_id)->name, expected[i].name);
    EXPECT_EQ(r.op, expected[i].op);
    EXPECT_EQ(r.operator_id, expected[i].operator_id);
    EXPECT_EQ(r.bytes, names.at(r.block_id)->bytes);
    EXPECT_EQ(r.stream_id, 0u);
    const bool decode = i >= 25;  // step 0: 1 input copy + 21 weights + 2 page writes + 1 logits write
    EXPECT_EQ(r.phase, decode ? Phase::decode : Phase::prefill);
    if (expected[i].request) {
      EXPECT_EQ(r.request_id, 0u);
      // The last position fed in the step; the input copy carries the first.
      EXPECT_EQ(r.token_index, i == 0 ? 0 : decode ? 2 : 1);
    } else {
      EXPECT_EQ(r.request_id, kNoRequest);
      EXPECT_EQ(r.token_index, -1);
    }
  }
  // Pages: 3 tokens of KV (2 prompt + 1 fed-back output) in pages of 2: 2 per layer.
  EXPECT_EQ(w->requests()[0].kv_tokens, 3u);
  EXPECT_EQ(w->requests()[0].pages_per_group, 2u);
}

TEST(Serving, ComputeTimeIsOnEachOperatorsLastRecordAndTimeAdvancesByIt) {
  auto w = make_serving_workload(test::tiny_llama(), "tensor", options(2, 3, 4, 3), test::test_compute());
  const auto records = all_records(*w);
  Nanoseconds t = 0, total = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].time_ns, t) << i;
    t += records[i].compute_ns;
    total += records[i].compute_ns;
    // compute only where the operator changes next (or at the end)
    if (records[i].compute_ns > 0 && i + 1 < records.size()) {
      EXPECT_TRUE(records[i + 1].operator_id != records[i].operator_id || records[i + 1].time_ns > records[i].time_ns)
          << i;
    }
  }
  EXPECT_GT(total, 0);
}

TEST(Serving, KvBytesPerTokenAndPageBytesMatchTheClosedFormula) {
  // 2 · layers · kv_heads · head_dim · dtype bytes.
  const ModelConfig tiny = test::tiny_llama();
  EXPECT_EQ(tiny.kv_bytes_per_token(), 2u * 2 * 2 * 16 * 2);
  KvGeometry g;
  g.layers = 32;
  g.bytes_per_token = 2ull * 32 * 8 * 128 * 2;  // Mixtral-8x7B, bf16: 131,072 B per token
  g.page_tokens = 16;
  EXPECT_EQ(g.page_bytes(), 16u * 131072 / 32);  // 64 KiB per layer page
  EXPECT_EQ(g.pages_for_tokens(1), 1u);
  EXPECT_EQ(g.pages_for_tokens(16), 1u);
  EXPECT_EQ(g.pages_for_tokens(17), 2u);
  EXPECT_EQ(g.request_pages(100), 7u * 32);
  EXPECT_EQ(g.allocated_bytes(100), 7u * 32 * 65536);
  g.layout = KvLayout::per_request;
  EXPECT_EQ(g.page_bytes(), 16u * 131072);
  EXPECT_EQ(g.request_pages(100), 7u);

  // The generated catalog: pages per request = layers · ceil((prompt + output - 1) / page_tokens).
  ServingOptions o = options(3, 5, 7, 6);
  o.page_tokens = 4;
  auto w = make_serving_workload(tiny, "tensor", o, test::test_compute());
  std::size_t pages = 0;
  for (const auto& e : w->meta().catalog) {
    if (e.kind != "kv_page") continue;
    ++pages;
    EXPECT_EQ(e.bytes, 4u * tiny.kv_bytes_per_token() / 2);
    EXPECT_EQ(e.segment, "decoder");
  }
  EXPECT_EQ(pages, 5u * 2 * ((7 + 6 - 1 + 3) / 4));
  // Every page's first access is a write (allocation), and the bytes written
  // per request equal the closed form.
  const auto records = all_records(*w);
  std::set<BlockId> seen;
  const auto catalog = test::by_id(w->meta());
  std::map<std::uint64_t, std::uint64_t> page_writes;
  for (const auto& r : records) {
    const auto* e = catalog.at(r.block_id);
    if (e->kind != "kv_page") continue;
    if (seen.insert(r.block_id).second) {
      EXPECT_EQ(r.op, AccessOp::write) << e->name;
    }
    if (r.op == AccessOp::write) ++page_writes[r.request_id];
  }
  EXPECT_EQ(seen.size(), pages);
  // Writes per request: the prefill step writes ceil(7/4) = 2 pages per layer,
  // decode steps (positions 7..11) one page each: 5 per layer.
  for (const auto& [request, writes] : page_writes) EXPECT_EQ(writes, 2u * (2 + 5)) << request;
}

TEST(Serving, RequestsPhasesTokenIndicesAndContinuousBatching) {
  auto w = make_serving_workload(test::tiny_llama(), "tensor", options(2, 3, 4, 3), test::test_compute());
  const auto records = all_records(*w);
  const auto catalog = test::by_id(w->meta());
  std::map<std::uint64_t, std::vector<std::int32_t>> logits;  // request -> token indices of its logits writes
  std::map<std::uint64_t, std::pair<std::size_t, std::size_t>> span;  // first and last record
  std::map<std::uint64_t, Phase> first_phase;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    if (r.request_id == kNoRequest) continue;
    if (!span.count(r.request_id)) {
      span[r.request_id] = {i, i};
      first_phase[r.request_id] = r.phase;
    }
    span[r.request_id].second = i;
    if (catalog.at(r.block_id)->name.starts_with("logits.")) logits[r.request_id].push_back(r.token_index);
  }
  ASSERT_EQ(logits.size(), 3u);
  for (const auto& [request, tokens] : logits) {
    // One logits write per output token: prefill (last prompt position 3), then positions 4, 5.
    EXPECT_EQ(tokens, (std::vector<std::int32_t>{3, 4, 5})) << request;
    EXPECT_EQ(first_phase[request], Phase::prefill);
    // Its first record is the admission copy of its 4-token prompt (16 B), at token 0.
    const AccessRecord& first = records[span[request].first];
    EXPECT_EQ(catalog.at(first.block_id)->name, "input.r" + std::to_string(request));
    EXPECT_EQ(first.bytes, 16u);
    EXPECT_EQ(first.token_index, 0);
    EXPECT_EQ(first.op, AccessOp::read);
  }
  // Requests 0 and 1 run together; request 2 joins when they finish.
  EXPECT_LT(span[0].first, span[1].first);
  EXPECT_LT(span[1].first, span[0].second);
  EXPECT_GT(span[2].first, std::max(span[0].second, span[1].second));
  // A step with a prefilling request tags the shared weight reads prefill.
  EXPECT_EQ(records.front().phase, Phase::prefill);
  EXPECT_EQ(records.back().phase, Phase::decode);
}

TEST(Serving, ChunkedPrefillSplitsThePrompt) {
  ServingOptions o = options(1, 1, 5, 2);
  o.prefill = PrefillMode::chunked;
  o.chunk_tokens = 2;
  o.page_tokens = 1;
  auto w = make_serving_workload(test::tiny_llama(), "tensor", o, test::test_compute());
  const auto records = all_records(*w);
  const auto catalog = test::by_id(w->meta());
  // Steps: chunks [0,2), [2,4), [4,5) then one decode of position 5: 4 steps.
  std::size_t embed_reads = 0, writes = 0, reads = 0;
  std::vector<std::int32_t> write_tokens;
  for (const auto& r : records) {
    const auto* e = catalog.at(r.block_id);
    if (e->name == "model.embed_tokens.weight") ++embed_reads;
    if (e->kind != "kv_page" || e->layer != 0) continue;
    if (r.op == AccessOp::write) {
      ++writes;
      write_tokens.push_back(r.token_index);
    } else {
      ++reads;
    }
  }
  EXPECT_EQ(embed_reads, 4u);
  EXPECT_EQ(writes, 6u);  // one page per token (page_tokens 1), positions 0..5
  // Reads: chunk 2 reads context [0,2): 2 pages; chunk 3 [0,4): 4; decode [0,6): 6.
  EXPECT_EQ(reads, 12u);
  EXPECT_EQ(write_tokens, (std::vector<std::int32_t>{1, 1, 3, 3, 4, 5}));
}

TEST(Serving, DecodeOnlyReadsThePromptPagesItNeverWrote) {
  ServingOptions o = options(1, 1, 4, 2);
  o.prefill = PrefillMode::none;
  o.page_tokens = 1;
  auto w = make_serving_workload(test::tiny_llama(), "tensor", o, test::test_compute());
  const auto records = all_records(*w);
  const auto catalog = test::by_id(w->meta());
  std::vector<std::string> layer0;
  for (const auto& r : records) {
    const auto* e = catalog.at(r.block_id);
    if (e->kind == "kv_page" && e->layer == 0) layer0.push_back((r.op == AccessOp::write ? "W" : "R") + e->name.substr(9));
    EXPECT_NE(r.phase, Phase::prefill);
  }
  // Step 1 feeds position 3 (writes p3, reads p0..p3); step 2 feeds 4.
  EXPECT_EQ(layer0, (std::vector<std::string>{"Wp3", "Rp0", "Rp1", "Rp2", "Rp3", "Wp4", "Rp0", "Rp1", "Rp2", "Rp3",
                                              "Rp4"}));
}

TEST(Serving, EagerLoadingReadsEveryWeightBeforeTokenZero) {
  ServingOptions o = options(1, 1, 2, 2);
  o.load = LoadMode::eager;
  auto eager = make_serving_workload(test::tiny_llama(), "tensor", o, test::test_compute());
  o.load = LoadMode::lazy;
  auto lazy = make_serving_workload(test::tiny_llama(), "tensor", o, test::test_compute());
  const auto e = all_records(*eager);
  const auto l = all_records(*lazy);
  const std::size_t weights = eager->model().blocks.catalog.size();
  ASSERT_EQ(e.size(), l.size() + weights);
  for (std::size_t i = 0; i < weights; ++i) {
    EXPECT_EQ(e[i].block_id, eager->model().blocks.catalog[i].id);
    EXPECT_EQ(e[i].operator_id, kNoOperator);
    EXPECT_EQ(e[i].time_ns, 0);
  }
  for (std::size_t i = 0; i < l.size(); ++i) EXPECT_EQ(e[weights + i].block_id, l[i].block_id);
}

TEST(Serving, FixedGranularitySplitsWeightsAndRecordsCarryBlockBytes) {
  auto w = make_serving_workload(test::tiny_llama(), "4KiB", options(1, 1, 2, 2), test::test_compute());
  const auto records = all_records(*w);
  const auto catalog = test::by_id(w->meta());
  for (const auto& r : records) {
    EXPECT_EQ(r.bytes, catalog.at(r.block_id)->bytes);
    if (catalog.at(r.block_id)->kind != "kv_page" && catalog.at(r.block_id)->kind != "io") {
      EXPECT_LE(r.bytes, 4096u);
    }
  }
  // embed_tokens: 256 × 64 × 2 B = 32 KiB = 8 blocks, all read by the step's embedding operator.
  std::size_t embed = 0;
  for (const auto& r : records) embed += r.operator_id == 0;
  EXPECT_EQ(embed, 2u * 8);
}

TEST(Serving, SameSeedSameTraceDifferentSeedDifferentRouting) {
  auto make = [](std::uint64_t seed) {
    ServingOptions o = options(3, 3, 8, 6);
    o.seed = seed;
    return make_serving_workload(test::tiny_mixtral(8, 2), "tensor", o, test::test_compute());
  };
  auto a = make(7), b = make(7), c = make(8);
  const auto ra = all_records(*a), rb = all_records(*b), rc = all_records(*c);
  ASSERT_EQ(ra.size(), rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) {
    ASSERT_EQ(ra[i].block_id, rb[i].block_id) << i;
    ASSERT_EQ(ra[i].time_ns, rb[i].time_ns) << i;
  }
  bool differs = ra.size() != rc.size();
  for (std::size_t i = 0; !differs && i < ra.size(); ++i) differs = ra[i].block_id != rc[i].block_id;
  EXPECT_TRUE(differs);
  // A rewound reader replays the same records.
  auto source = a->open();
  std::vector<AccessRecord> first(100), again(100);
  source->read(first);
  source->rewind();
  source->read(again);
  for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(first[i].block_id, again[i].block_id);
}

TEST(Serving, MoeStepReadsTheUnionOfRoutedExpertsOnce) {
  // top-2 of 4 experts, one request, decode steps: exactly 2 experts per layer per step.
  ServingOptions o = options(1, 1, 1, 5);
  auto w = make_serving_workload(test::tiny_mixtral(4, 2), "tensor", o, test::test_compute());
  const auto records = all_records(*w);
  const auto catalog = test::by_id(w->meta());
  // Per (step, layer) count expert tensors: 3 per expert (w1, w3, w2).
  std::map<std::pair<int, int>, int> expert_tensors;
  int step = -1;
  for (const auto& r : records) {
    const auto* e = catalog.at(r.block_id);
    if (e->name == "model.embed_tokens.weight") ++step;
    if (e->kind == "expert") ++expert_tensors[{step, e->layer}];
  }
  ASSERT_EQ(expert_tensors.size(), 5u * 2);
  for (const auto& [key, n] : expert_tensors) EXPECT_EQ(n, 6) << key.first << "," << key.second;
  // Every expert's block list is in the operator entry (prefetchers' lookahead).
  EXPECT_EQ(w->meta().operators[2].routed_blocks.size(), 4u * 3);
}

TEST(Serving, BadOptionsAreErrors) {
  EXPECT_THROW(make_serving_workload(test::tiny_llama(), "tensor", options(1, 1, 2, 0), test::test_compute()),
               InputError);
  EXPECT_THROW(make_serving_workload(test::tiny_llama(), "tensor", options(0, 1, 2, 2), test::test_compute()),
               InputError);
  EXPECT_THROW(make_serving_workload(test::tiny_llama(), "12 parsecs", options(1, 1, 2, 2), test::test_compute()),
               InputError);
}

}  // namespace
}  // namespace flashsim
