// Encoder-decoder (T5), multimodal (LLaVA) and two colocated models.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/workload/workload_test_util.h"

namespace flashsim {
namespace {

using test::all_records;
using test::options;

TEST(EncoderDecoder, EncoderRunsOnceAndCrossPagesAreWrittenOnceReadEveryStep) {
  ServingOptions o = options(1, 1, 6, 3);
  o.page_tokens = 4;
  auto w = make_serving_workload(test::tiny_t5(), "tensor", o, test::test_compute());
  const auto records = all_records(*w);
  const auto catalog = test::by_id(w->meta());
  const auto& ops = w->meta().operators;
  std::map<std::string, int> count;  // page accesses of layer 1 by segment and op
  int decoder_steps_started = 0;      // decoder.embed_tokens runs of the decoder so far
  bool in_embed = false;
  std::vector<int> encoder_records(4, 0);  // by decoder steps started before them
  for (const auto& r : records) {
    if (r.operator_id == kNoOperator) continue;  // the admission copy of the prompt
    const std::string& op = ops.at(r.operator_id).name;
    if (op == "decoder.embed_tokens" && !in_embed) ++decoder_steps_started;
    in_embed = op == "decoder.embed_tokens";
    if (op.starts_with("encoder.")) ++encoder_records[static_cast<std::size_t>(decoder_steps_started)];
    const auto* e = catalog.at(r.block_id);
    if (e->kind != "kv_page" || e->layer != 1) continue;
    const std::string which = e->segment + (r.op == AccessOp::write ? " W" : " R");
    ++count[which];
  }
  // The encoder runs before the first decoder step only.
  EXPECT_EQ(decoder_steps_started, 3);
  EXPECT_GT(encoder_records[0], 0);
  EXPECT_EQ(encoder_records[1] + encoder_records[2] + encoder_records[3], 0);
  // Cross-attention pages of layer 1: ceil(6/4) = 2, written in step 0, read in all 3 steps.
  EXPECT_EQ(count["cross_attention W"], 2);
  EXPECT_EQ(count["cross_attention R"], 6);
  // Self-attention pages of layer 1: decoder positions 0, 1, 2 in one page of 4:
  // a write per step, reads in the two decode steps.
  EXPECT_EQ(count["decoder W"], 3);
  EXPECT_EQ(count["decoder R"], 2);
  EXPECT_EQ(w->requests()[0].encoder_tokens, 6u);
  // The first record is the admission copy of the encoder's prompt: 6 int32
  // input ids, before the encoder's first weight read.
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(catalog.at(records[0].block_id)->name, "input.r0");
  EXPECT_EQ(records[0].bytes, 6u * 4);
  EXPECT_EQ(records[0].phase, Phase::prefill);
  EXPECT_EQ(records[0].request_id, w->requests()[0].id);
  ASSERT_GT(records.size(), 1u);
  EXPECT_TRUE(ops.at(records[1].operator_id).name.starts_with("encoder.")) << ops.at(records[1].operator_id).name;
  EXPECT_EQ(w->requests()[0].cross_pages_per_group, 2u);
  // Cross pages hold K and V of the encoder's tokens for one decoder layer.
  for (const auto& e : w->meta().catalog) {
    if (e.segment == "cross_attention" && e.kind == "kv_page") {
      EXPECT_EQ(e.bytes, 4u * test::tiny_t5().cross_kv_bytes_per_encoder_token() / 2);
    }
  }
}

TEST(Multimodal, VisionRunsForNewConceptsAndFeaturesCarryConceptAndEmbedding) {
  ServingOptions o = options(1, 3, 4, 2);
  o.page_tokens = 8;
  o.concepts.concepts = 1;  // every request shows the same image
  o.concepts.embedding_dim = 5;
  auto count_vision = [&](bool reuse, std::size_t* feature_writes, std::size_t* feature_reads) {
    o.feature_reuse = reuse;
    auto w = make_serving_workload(test::tiny_llava(), "tensor", o, test::test_compute());
    const auto records = all_records(*w);
    const auto catalog = test::by_id(w->meta());
    *feature_writes = *feature_reads = 0;
    for (const auto& r : records) {
      const auto* e = catalog.at(r.block_id);
      if (e->kind == "image_features") {
        EXPECT_EQ(e->concept_id, 0);
        EXPECT_EQ(e->embedding.size(), 5u);
        ++(r.op == AccessOp::write ? *feature_writes : *feature_reads);
      }
    }
    return w;
  };
  std::size_t writes = 0, reads = 0;
  auto reused = count_vision(true, &writes, &reads);
  EXPECT_EQ(writes, 1u);  // only the first request runs the tower
  EXPECT_EQ(reads, 3u);   // every request's prefill reads the features
  count_vision(false, &writes, &reads);
  EXPECT_EQ(writes, 3u);
  EXPECT_EQ(reads, 3u);

  // The language model's prompt is 16 image tokens + 4 text tokens. KV pages
  // are the request's own: they carry no concept (semantic prefetch must not
  // fetch another request's pages), only the shared feature blocks do.
  const RequestPlan& q = reused->requests()[0];
  EXPECT_EQ(q.image_tokens, 16u);
  EXPECT_EQ(q.prompt_tokens, 20u);
  EXPECT_EQ(q.kv_tokens, 21u);
  // Admission copy: 20 int32 input ids (image-token ids expanded) + the
  // image's fp16 pixel values, 3 channels × 32 × 32.
  EXPECT_EQ(q.input_bytes, 20u * 4 + 3u * 32 * 32 * 2);
  std::size_t pages = 0;
  for (const auto& e : reused->meta().catalog) {
    if (e.kind != "kv_page" || e.name.find(".r0.") == std::string::npos) continue;
    ++pages;
    EXPECT_EQ(e.concept_id, -1) << e.name;
    EXPECT_TRUE(e.embedding.empty()) << e.name;
  }
  EXPECT_EQ(pages, 3u * 2);  // 21 tokens in 8-token pages, 2 layers
}

TEST(Multimodal, ConceptsAreClusteredAndPopularityIsSkewed) {
  ConceptOptions c;
  c.concepts = 40;
  c.clusters = 4;
  c.locality = 0.0;
  c.popularity_exponent = 1.5;
  ImageConcepts concepts(c, 3);
  // Nearest neighbours are mostly from the same cluster (concept i is in cluster i % 4).
  std::size_t same = 0, total = 0;
  for (std::uint32_t i = 0; i < 40; ++i) {
    for (std::uint32_t j : concepts.neighbours(i)) {
      same += (j % 4) == (i % 4);
      ++total;
    }
  }
  EXPECT_GT(static_cast<double>(same) / static_cast<double>(total), 0.8);
  const auto seq = concepts.request_concepts(20000, 3);
  std::map<std::uint32_t, std::size_t> freq;
  for (auto x : seq) ++freq[x];
  std::vector<std::size_t> sorted;
  for (auto& [k, n] : freq) sorted.push_back(n);
  std::sort(sorted.rbegin(), sorted.rend());
  const auto p = zipf_probabilities(40, 1.5);
  EXPECT_NEAR(static_cast<double>(sorted[0]) / 20000.0, p[0], 0.02);
}

TEST(Colocated, TwoModelsGetDisjointIdsAndTheirOwnStreams) {
  test::TempDir dir;
  std::ofstream(dir / "a.json") << R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,
    "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":256,"torch_dtype":"float16"})";
  std::ofstream(dir / "b.json") << R"({"model_type":"mixtral","hidden_size":64,"intermediate_size":96,
    "num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":4,"vocab_size":128,"torch_dtype":"float16",
    "num_local_experts":4,"num_experts_per_tok":2})";
  WorkloadContext context;
  context.base_dir = dir.path();
  context.compute = test::test_compute();
  const std::map<std::string, std::string> params = {{"model", "a.json"},       {"model_b", "b.json"},
                                                     {"granularity", "tensor"}, {"concurrency", "2"},
                                                     {"prompt_tokens", "3"},    {"output_tokens", "4"}};
  auto both = make_workload("colocated", params, context);
  auto params_a = params;
  params_a["only"] = "a";
  auto params_b = params;
  params_b["only"] = "b";
  auto only_a = make_workload("colocated", params_a, context);
  auto only_b = make_workload("colocated", params_b, context);

  const auto& meta = both->meta();
  std::set<BlockId> ids;
  for (const auto& e : meta.catalog) EXPECT_TRUE(ids.insert(e.id).second) << e.name;
  EXPECT_EQ(meta.catalog.size(), only_a->meta().catalog.size() + only_b->meta().catalog.size());
  EXPECT_EQ(meta.operators.size(), only_a->meta().operators.size() + only_b->meta().operators.size());
  const auto records = all_records(*both);
  std::map<std::uint32_t, Nanoseconds> last;
  std::map<std::uint32_t, std::size_t> per_stream;
  std::map<BlockId, std::string> names;
  for (const auto& e : meta.catalog) names[e.id] = e.name;
  for (const auto& r : records) {
    EXPECT_GE(r.time_ns, last[r.stream_id]);
    last[r.stream_id] = r.time_ns;
    ++per_stream[r.stream_id];
    EXPECT_EQ(names.at(r.block_id).substr(0, 2), r.stream_id == 0 ? "a/" : "b/");
    if (r.operator_id == kNoOperator) {  // a request's admission copy of its prompt
      EXPECT_TRUE(names.at(r.block_id).substr(2).starts_with("input.r")) << names.at(r.block_id);
      continue;
    }
    ASSERT_LT(r.operator_id, meta.operators.size());
    EXPECT_EQ(meta.operators[r.operator_id].name.substr(0, 2), r.stream_id == 0 ? "a/" : "b/");
  }
  EXPECT_EQ(per_stream[0], all_records(*only_a).size());
  EXPECT_EQ(per_stream[1], all_records(*only_b).size());
  // One model alone keeps the very same block ids.
  const auto rb = all_records(*only_b);
  std::size_t k = 0;
  for (const auto& r : records) {
    if (r.stream_id != 1) continue;
    EXPECT_EQ(r.block_id, rb[k++].block_id);
  }
}

TEST(Registry, GeneratorsAreRegisteredWithDeclaredParameters) {
  for (const char* name : {"serving", "decode", "colocated"}) {
    EXPECT_NO_THROW(WorkloadRegistry::instance().find(name)) << name;
  }
  WorkloadContext context;
  EXPECT_THROW(make_workload("serving", {{"model", "x.json"}, {"colour", "red"}}, context), InputError);
  EXPECT_THROW(make_workload("serving", {{"model", "no-such-model"}}, context), InputError);
  EXPECT_THROW(make_workload("nope", {}, context), UnknownNameError);
}

}  // namespace
}  // namespace flashsim
