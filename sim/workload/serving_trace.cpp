#include "sim/workload/serving_trace.h"

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/core/memory_limit.h"
#include "sim/core/saturating.h"
#include "sim/model/block_split.h"
#include "sim/model/roofline.h"

namespace flashsim {

namespace {

constexpr std::int32_t kNone = -1;

}  // namespace

struct ServingWorkload::Plan {
  std::shared_ptr<const WorkloadModel> model;
  ServingOptions options;
  ComputeSpec compute;
  KvGeometry kv;         // decoder self-attention
  KvGeometry cross;      // T5 cross-attention (bytes over encoder tokens)
  std::vector<RequestPlan> requests;
  bool t5 = false;
  bool llava = false;
  std::uint32_t image_tokens = 0;

  // Operators by pass, in per-token order (indices into model->operators).
  std::vector<std::uint32_t> vision_ops, encoder_ops, token_ops;
  std::vector<std::int32_t> kv_group;     // per operator: self-attention KV group accessed there, or -1
  std::vector<std::int32_t> cross_group;  // per operator: cross-attention KV group, or -1
  std::int32_t embed_op = kNone;          // where image features are read
  std::int32_t lm_head_op = kNone;        // where logits are written
  std::int32_t projector_op = kNone;      // where image features are written
  ByteCount logits_bytes = 0;

  // LLaVA image features: blocks of concept c are feature_first + c·feature_blocks + i.
  BlockId feature_first = 0;
  std::uint32_t feature_blocks = 0;
  std::vector<ByteCount> feature_block_bytes;

  std::unique_ptr<IExpertRouter> router_prototype_check;  // validated at construction (routers are per reader)
  BlockId end_id = 0;
  TraceMeta meta;

  std::unique_ptr<IExpertRouter> make_router() const {
    const WorkloadModel& m = *model;
    const std::uint32_t experts = m.config.num_local_experts;
    const std::uint32_t k = m.config.num_experts_per_tok;
    switch (options.routing.mode) {
      case RoutingMode::skewed:
        return make_skewed_router(experts, k, m.moe_layers, options.routing.zipf_exponent, options.routing.locality,
                                  derive_seed(options.seed, 0x70e7));
      case RoutingMode::markov: {
        if (options.routing.transition.n != experts) {
          throw InputError("routing: transition matrix has " + std::to_string(options.routing.transition.n) +
                           " rows, the model has " + std::to_string(experts) + " experts");
        }
        return make_markov_router(options.routing.transition, options.routing.noise, k);
      }
      case RoutingMode::table: {
        if (!options.routing.table) throw InputError("routing: table needs routing_file");
        if (options.routing.table->top_k != k) {
          throw InputError(options.routing.table->source + ": routing trace has top-" +
                           std::to_string(options.routing.table->top_k) + ", the model routes to " +
                           std::to_string(k) + " experts per token");
        }
        return make_table_router(options.routing.table, experts, m.moe_layers);
      }
    }
    return nullptr;
  }
};

namespace {

using Plan = ServingWorkload::Plan;

ByteCount dtype_bytes(const DType& d, std::uint64_t elements) { return d.tensor_bytes(elements); }

/// Throws InputError before the per-request catalog (a name per KV page of
/// every request) is built when it would not fit options.memory_limit_bytes.
void check_catalog_memory(const Plan& p, std::uint64_t blocks_so_far) {
  const ServingOptions& o = p.options;
  if (o.memory_limit_bytes == 0) return;
  const std::uint64_t kv_tokens = p.t5 ? std::uint64_t(o.output_tokens)
                                       : std::uint64_t(o.prompt_tokens) + p.image_tokens + o.output_tokens - 1;
  std::uint64_t per_request = saturating_add(2, saturating_mul(p.kv.groups(), p.kv.pages_for_tokens(kv_tokens)));
  if (p.t5 && p.cross.page_bytes() > 0)
    per_request = saturating_add(per_request, saturating_mul(p.cross.groups(), p.cross.pages_for_tokens(o.prompt_tokens)));
  const std::uint64_t blocks = saturating_add(blocks_so_far, saturating_mul(per_request, o.requests));
  const std::uint64_t bytes = saturating_mul(blocks, kCatalogBytesPerBlock);
  if (bytes <= o.memory_limit_bytes) return;
  throw InputError("requests: " + std::to_string(o.requests) + " requests of " + std::to_string(per_request) +
                   " blocks each (input, logits and KV pages) make a catalog of " + std::to_string(blocks) +
                   " blocks, about " + gib_text(static_cast<double>(bytes)) + " in memory, above the limit of " +
                   gib_text(static_cast<double>(o.memory_limit_bytes)) +
                   "; generate fewer requests or shorter ones, larger KV pages (page_tokens), or " +
                   raise_memory_limit_advice(o.memory_limit_bytes));
}

void build_plan(Plan& p) {
  const WorkloadModel& m = *p.model;
  const ServingOptions& o = p.options;
  if (o.output_tokens == 0) throw InputError("workload: output_tokens must be >= 1");
  if (o.concurrency == 0) throw InputError("workload: concurrency must be >= 1");
  if (o.page_tokens == 0) throw InputError("workload: page_tokens must be >= 1");
  if (o.prefill == PrefillMode::chunked && o.chunk_tokens == 0) throw InputError("workload: chunk_tokens must be >= 1");
  p.t5 = m.config.architecture == Architecture::t5;
  p.llava = m.config.vision.has_value();
  p.image_tokens = p.llava ? static_cast<std::uint32_t>(m.config.vision->image_tokens()) : 0;
  if (!p.t5 && !p.llava && o.prompt_tokens == 0) throw InputError("workload: prompt_tokens must be >= 1");
  if (p.t5 && o.prompt_tokens == 0) throw InputError("workload: prompt_tokens must be >= 1 (the encoder's input)");

  p.kv.layout = o.kv_layout;
  p.kv.page_tokens = o.page_tokens;
  p.kv.layers = m.config.kv_layers();
  p.kv.bytes_per_token = m.config.kv_bytes_per_token();
  p.cross = p.kv;
  p.cross.bytes_per_token = m.config.cross_kv_bytes_per_encoder_token();

  // Operators by pass; where KV, features and logits are touched.
  const std::size_t n_ops = m.operators.size();
  p.kv_group.assign(n_ops, kNone);
  p.cross_group.assign(n_ops, kNone);
  bool first_kv = true, first_cross = true;
  for (std::uint32_t i = 0; i < n_ops; ++i) {
    const OperatorNode& op = m.operators[i];
    switch (m.pass[i]) {
      case OperatorPass::vision: p.vision_ops.push_back(i); break;
      case OperatorPass::encoder: p.encoder_ops.push_back(i); break;
      case OperatorPass::token: p.token_ops.push_back(i); break;
    }
    if (m.pass[i] == OperatorPass::vision && op.kind == "projector") p.projector_op = static_cast<std::int32_t>(i);
    if (m.pass[i] != OperatorPass::token) continue;
    if (op.kind == "attention" && op.layer >= 0 && static_cast<std::uint32_t>(op.layer) < p.kv.layers) {
      if (o.kv_layout == KvLayout::per_layer) p.kv_group[i] = op.layer;
      else if (first_kv) p.kv_group[i] = 0;
      first_kv = false;
    }
    if (op.kind == "cross_attention" && op.layer >= 0 && static_cast<std::uint32_t>(op.layer) < p.kv.layers) {
      if (o.kv_layout == KvLayout::per_layer) p.cross_group[i] = op.layer;
      else if (first_cross) p.cross_group[i] = 0;
      first_cross = false;
    }
    if (op.kind == "embedding" && p.embed_op == kNone) p.embed_op = static_cast<std::int32_t>(i);
    if (op.kind == "lm_head") {
      p.lm_head_op = static_cast<std::int32_t>(i);
      p.logits_bytes = op.activation_bytes;
    }
  }
  if (p.llava && p.projector_op == kNone && !p.vision_ops.empty()) {
    p.projector_op = static_cast<std::int32_t>(p.vision_ops.back());
  }
  if (p.embed_op == kNone && !p.token_ops.empty()) p.embed_op = static_cast<std::int32_t>(p.token_ops.front());
  if (p.lm_head_op == kNone && !p.token_ops.empty()) p.lm_head_op = static_cast<std::int32_t>(p.token_ops.back());
  if (p.logits_bytes == 0) p.logits_bytes = std::max<ByteCount>(1, dtype_bytes(m.config.dtype, m.config.vocab_size));

  // Routers are made per reader; make one now so bad routing input fails here.
  if (m.moe_layers > 0) p.router_prototype_check = p.make_router();

  // Catalog: weights, then image features per concept, then per request
  // logits, KV pages, cross-attention pages.
  TraceMeta& meta = p.meta;
  meta.source = "workload generator: " + m.config.name + " (" + std::string(to_string(m.config.architecture)) +
                "), preset " + o.preset + ", " + std::to_string(o.requests) + " requests, seed " +
                std::to_string(o.seed);
  meta.catalog = m.blocks.catalog;
  for (auto& e : meta.catalog) e.name = o.name_prefix + e.name;
  meta.operators = m.entries;
  for (auto& e : meta.operators) e.name = o.name_prefix + e.name;
  BlockId next = m.end_id();
  std::unique_ptr<ImageConcepts> concepts;
  std::vector<std::uint32_t> request_concept;
  if (p.llava) {
    concepts = std::make_unique<ImageConcepts>(o.concepts, o.seed);
    request_concept = concepts->request_concepts(o.requests, o.seed);
    const ByteCount feature_bytes =
        dtype_bytes(m.config.dtype, std::uint64_t(p.image_tokens) * m.config.hidden_size);
    const ByteCount piece = m.granularity.mode == BlockGranularity::Mode::tensor ? feature_bytes
                                                                                 : m.granularity.block_bytes;
    for (ByteCount at = 0; at < feature_bytes; at += piece) p.feature_block_bytes.push_back(std::min(piece, feature_bytes - at));
    p.feature_blocks = static_cast<std::uint32_t>(p.feature_block_bytes.size());
    p.feature_first = next;
    for (std::uint32_t c = 0; c < concepts->size(); ++c) {
      for (std::uint32_t i = 0; i < p.feature_blocks; ++i) {
        BlockCatalogEntry e;
        e.id = next++;
        e.name = o.name_prefix + "image_features.c" + std::to_string(c) +
                 (p.feature_blocks > 1 ? "#" + std::to_string(i) : "");
        e.bytes = p.feature_block_bytes[i];
        e.kind = "image_features";
        e.segment = "vision";
        e.concept_id = static_cast<std::int32_t>(c);
        e.embedding = concepts->embedding(c);
        meta.catalog.push_back(std::move(e));
      }
    }
  }
  const ByteCount page_bytes = p.kv.page_bytes();
  const ByteCount cross_page_bytes = p.cross.page_bytes();
  if (page_bytes == 0) throw InputError("model " + m.config.name + ": KV page of 0 bytes");
  check_catalog_memory(p, meta.catalog.size());
  const std::uint64_t request_base = std::uint64_t(o.stream_id) << 40;
  for (std::uint32_t r = 0; r < o.requests; ++r) {
    RequestPlan q;
    q.id = request_base + r;
    q.output_tokens = o.output_tokens;
    if (p.t5) {
      q.encoder_tokens = o.prompt_tokens;
      q.prompt_tokens = 1;
    } else {
      q.image_tokens = p.image_tokens;
      q.prompt_tokens = o.prompt_tokens + p.image_tokens;
    }
    if (p.llava) q.concept_id = static_cast<std::int32_t>(request_concept[r]);
    q.kv_tokens = std::uint64_t(q.prompt_tokens) + q.output_tokens - 1;
    // The prompt copied host->device at admission: int32 input ids (T5: the
    // encoder's; LLaVA: text + expanded image-token ids) and, for LLaVA, the
    // image's pixel values (channels · side² in the model dtype).
    q.input_bytes = kInputIdBytes * (p.t5 ? q.encoder_tokens : q.prompt_tokens);
    if (p.llava) {
      const auto& v = *m.config.vision;
      q.input_bytes += dtype_bytes(m.config.dtype, std::uint64_t(v.num_channels) * v.image_size * v.image_size);
    }
    q.input_id = next++;
    {
      BlockCatalogEntry e;
      e.id = q.input_id;
      e.name = o.name_prefix + "input.r" + std::to_string(r);
      e.bytes = q.input_bytes;
      e.kind = "io";
      e.segment = p.t5 ? "encoder" : "decoder";  // the pass that consumes it first (as logits: "decoder")
      meta.catalog.push_back(std::move(e));
    }
    q.logits_id = next++;
    {
      BlockCatalogEntry e;
      e.id = q.logits_id;
      e.name = o.name_prefix + "logits.r" + std::to_string(r);
      e.bytes = p.logits_bytes;
      e.kind = "io";
      e.segment = "decoder";
      meta.catalog.push_back(std::move(e));
    }
    // A request's KV (or T5 cross-attention KV) pages: `pages` per group
    // (layer, or one group for the whole model), numbered from `next`.
    const auto add_pages = [&](const std::string& label, const KvGeometry& geometry, std::uint64_t pages,
                               ByteCount bytes, const char* segment) {
      for (std::uint32_t g = 0; g < geometry.groups(); ++g) {
        for (std::uint64_t i = 0; i < pages; ++i) {
          BlockCatalogEntry e;
          e.id = next++;
          e.name = o.name_prefix + label + ".r" + std::to_string(r) +
                   (o.kv_layout == KvLayout::per_layer ? ".l" + std::to_string(g) : std::string()) + ".p" +
                   std::to_string(i);
          e.bytes = bytes;
          e.layer = o.kv_layout == KvLayout::per_layer ? static_cast<std::int32_t>(g) : -1;
          e.kind = "kv_page";
          e.segment = segment;
          meta.catalog.push_back(std::move(e));
        }
      }
    };
    q.pages_per_group = p.kv.pages_for_tokens(q.kv_tokens);
    q.kv_first = next;
    add_pages("kv", p.kv, q.pages_per_group, page_bytes, "decoder");
    if (p.t5 && cross_page_bytes > 0) {
      q.cross_pages_per_group = p.cross.pages_for_tokens(q.encoder_tokens);
      q.cross_first = next;
      add_pages("cross_kv", p.cross, q.cross_pages_per_group, cross_page_bytes, "cross_attention");
    }
    p.requests.push_back(q);
  }
  p.end_id = next;
}

// ------------------------------------------------------------ the reader

class ServingSource final : public ITraceSource {
 public:
  explicit ServingSource(std::shared_ptr<const Plan> plan) : plan_(std::move(plan)) {
    const WorkloadModel& m = *plan_->model;
    top_k_ = m.config.num_experts_per_tok;
    experts_ = m.config.num_local_experts;
    chosen_.assign(experts_, 0);
    picks_.resize(top_k_);
    buffer_.reserve(1 << 16);
    restart();
  }
  const TraceMeta& meta() const override { return plan_->meta; }

  std::size_t read(std::span<AccessRecord> out) override {
    std::size_t filled = 0;
    while (filled < out.size()) {
      if (position_ == buffer_.size()) {
        buffer_.clear();
        position_ = 0;
        if (!produce()) break;
        continue;
      }
      const std::size_t n = std::min(out.size() - filled, buffer_.size() - position_);
      std::copy_n(buffer_.begin() + static_cast<std::ptrdiff_t>(position_), n, out.begin() + static_cast<std::ptrdiff_t>(filled));
      position_ += n;
      filled += n;
    }
    return filled;
  }

  void rewind() override { restart(); }

 private:
  struct Active {
    std::uint32_t plan = 0;      // index into Plan::requests
    std::uint64_t fed = 0;       // tokens of the token pass fed so far
    std::uint32_t produced = 0;  // output tokens so far
    bool started = false;
    std::vector<ExpertId> previous;  // moe_layers · top_k: last token's experts
    bool has_previous = false;
    // This step:
    std::uint64_t a = 0, b = 0;  // fed range [a, b)
    bool prefill = false;        // phase of this step
    bool produces = false;
    bool vision = false, encoder = false;
    std::uint64_t first_token = 0;  // global routed-token number of position a
  };

  void restart() {
    buffer_.clear();
    position_ = 0;
    time_ns_ = 0;
    next_request_ = 0;
    routed_tokens_ = 0;
    active_.clear();
    encoded_.assign(plan_->llava ? plan_->options.concepts.concepts : 0, 0);
    loaded_ = plan_->options.load == LoadMode::lazy;
    rng_ = Rng(derive_seed(plan_->options.seed, 0x0e7e));
    if (plan_->model->moe_layers > 0) router_ = plan_->make_router();
  }

  AccessRecord& push(BlockId id, ByteCount bytes, AccessOp op, std::uint32_t op_index) {
    AccessRecord& r = buffer_.emplace_back();
    r.time_ns = time_ns_;
    r.block_id = id;
    r.bytes = bytes;
    r.op = op;
    r.stream_id = plan_->options.stream_id;
    r.phase = step_phase_;
    r.operator_id = op_index == kNoOperator ? kNoOperator : op_index + plan_->options.operator_base;
    return r;
  }
  void tag(AccessRecord& r, const Active& q) {
    r.request_id = plan_->requests[q.plan].id;
    r.token_index = static_cast<std::int32_t>(q.b - 1);
    r.phase = q.prefill ? Phase::prefill : Phase::decode;
  }
  // Ends an operator: its roofline time goes on its last record.
  void close_operator(std::size_t first_record, double flops, ByteCount bytes) {
    const Nanoseconds t = roofline_ns(flops, bytes, plan_->compute);
    pending_ns_ += t;
    if (buffer_.size() > first_record) {
      buffer_.back().compute_ns += pending_ns_;
      time_ns_ += pending_ns_;
      pending_ns_ = 0;
    }
  }
  ByteCount weights(const OperatorNode& op, std::uint32_t index) {
    ByteCount sum = 0;
    for (BlockId id : op.blocks) {
      const ByteCount b = plan_->model->bytes_of(id);
      push(id, b, AccessOp::read, index);
      sum += b;
    }
    return sum;
  }

  // Admits requests, runs one step; false when every request is done.
  bool produce() {
    const Plan& p = *plan_;
    if (!loaded_) {  // eager loading: every weight block before token 0
      step_phase_ = Phase::unknown;
      for (const auto& e : p.model->blocks.catalog) push(e.id, e.bytes, AccessOp::read, kNoOperator);
      loaded_ = true;
      return true;
    }
    while (active_.size() < p.options.concurrency && next_request_ < p.requests.size()) {
      Active q;
      q.plan = next_request_++;
      const RequestPlan& rp = p.requests[q.plan];
      if (p.options.prefill == PrefillMode::none) q.fed = rp.prompt_tokens - 1;
      q.previous.assign(std::size_t(p.model->moe_layers) * top_k_, 0);
      active_.push_back(std::move(q));
    }
    if (active_.empty()) return false;

    // This step's work per request.
    bool any_prefill = false;
    step_tokens_ = 0;
    vision_images_ = 0;
    encoder_tokens_ = 0;
    for (Active& q : active_) {
      const RequestPlan& rp = p.requests[q.plan];
      q.a = q.fed;
      if (q.a < rp.prompt_tokens) {
        q.b = p.options.prefill == PrefillMode::chunked ? std::min<std::uint64_t>(rp.prompt_tokens, q.a + p.options.chunk_tokens)
                                                        : rp.prompt_tokens;
        q.prefill = p.options.prefill != PrefillMode::none;
      } else {
        q.b = q.a + 1;
        q.prefill = false;
      }
      q.produces = q.b >= rp.prompt_tokens;
      const bool first = !q.started && p.options.prefill != PrefillMode::none;
      q.encoder = first && p.t5;
      q.vision = false;
      if (first && p.llava) {
        const auto c = static_cast<std::size_t>(rp.concept_id);
        q.vision = !(p.options.feature_reuse && encoded_[c]);
      }
      q.first_token = routed_tokens_;
      routed_tokens_ += q.b - q.a;
      step_tokens_ += q.b - q.a;
      if (q.vision) ++vision_images_;
      if (q.encoder) encoder_tokens_ += rp.encoder_tokens;
      any_prefill |= q.prefill;
    }
    step_phase_ = any_prefill ? Phase::prefill : Phase::decode;

    // Admission: each new request's prompt is copied host->device before the
    // step's first weight access; its TTFT starts at this record.
    for (const Active& q : active_) {
      if (q.started) continue;
      const RequestPlan& rp = p.requests[q.plan];
      AccessRecord& r = push(rp.input_id, rp.input_bytes, AccessOp::read, kNoOperator);
      r.request_id = rp.id;
      r.token_index = static_cast<std::int32_t>(q.a);  // 0, or the first decoded position without prefill
      r.phase = q.prefill ? Phase::prefill : Phase::decode;
    }

    if (vision_images_ > 0) run_vision();
    if (encoder_tokens_ > 0) run_encoder();
    for (std::uint32_t i : p.token_ops) run_token_operator(i);

    // Advance; finished requests leave (their pages are never touched again).
    for (Active& q : active_) {
      q.fed = q.b;
      q.started = true;
      if (q.produces) ++q.produced;
      if (q.vision) encoded_[static_cast<std::size_t>(p.requests[q.plan].concept_id)] = 1;
    }
    std::erase_if(active_, [&](const Active& q) { return q.produced >= p.requests[q.plan].output_tokens; });
    return true;
  }

  void run_vision() {
    const Plan& p = *plan_;
    const WorkloadModel& m = *p.model;
    for (std::uint32_t i : p.vision_ops) {
      const OperatorNode& op = m.operators[i];
      const std::size_t first = buffer_.size();
      const std::uint64_t tokens = op.tokens_per_pass * vision_images_;
      ByteCount bytes = weights(op, i) + op.activation_bytes * tokens * 2;
      double flops = op.flops_per_token * static_cast<double>(tokens) +
                     op.attention_flops_per_context_token * static_cast<double>(op.tokens_per_pass) * static_cast<double>(tokens);
      if (static_cast<std::int32_t>(i) == p.projector_op) {
        for (const Active& q : active_) {
          if (!q.vision) continue;
          const BlockId base = p.feature_first + BlockId(p.requests[q.plan].concept_id) * p.feature_blocks;
          for (std::uint32_t k = 0; k < p.feature_blocks; ++k) {
            tag(push(base + k, p.feature_block_bytes[k], AccessOp::write, i), q);
          }
        }
      }
      close_operator(first, flops, bytes);
    }
  }

  void run_encoder() {
    const Plan& p = *plan_;
    const WorkloadModel& m = *p.model;
    std::uint64_t context_sum = 0;  // Σ over tokens of their context (the whole prompt: bidirectional)
    for (const Active& q : active_) {
      if (q.encoder) context_sum += std::uint64_t(p.requests[q.plan].encoder_tokens) * p.requests[q.plan].encoder_tokens;
    }
    for (std::uint32_t i : p.encoder_ops) {
      const OperatorNode& op = m.operators[i];
      const std::size_t first = buffer_.size();
      const ByteCount bytes = weights(op, i) + op.activation_bytes * encoder_tokens_ * 2;
      const double flops = op.flops_per_token * static_cast<double>(encoder_tokens_) +
                           op.attention_flops_per_context_token * static_cast<double>(context_sum);
      close_operator(first, flops, bytes);
    }
  }

  void run_token_operator(std::uint32_t i) {
    const Plan& p = *plan_;
    const WorkloadModel& m = *p.model;
    const OperatorNode& op = m.operators[i];
    const std::size_t first = buffer_.size();
    ByteCount bytes = op.activation_bytes * step_tokens_ * 2;
    double flops = op.flops_per_token * static_cast<double>(step_tokens_);
    const std::int32_t moe = m.moe_index[i];
    if (moe >= 0) {
      bytes += weights(op, i);  // router
      bytes += route_and_read_experts(op, i, static_cast<std::uint32_t>(moe));
    } else {
      bytes += weights(op, i);
    }
    if (static_cast<std::int32_t>(i) == p.embed_op && p.llava) {
      for (const Active& q : active_) {  // image features enter with the image's token positions
        const RequestPlan& rp = p.requests[q.plan];
        if (!q.prefill || q.a >= rp.image_tokens) continue;
        const BlockId base = p.feature_first + BlockId(rp.concept_id) * p.feature_blocks;
        for (std::uint32_t k = 0; k < p.feature_blocks; ++k) {
          tag(push(base + k, p.feature_block_bytes[k], AccessOp::read, i), q);
          bytes += p.feature_block_bytes[k];
        }
      }
    }
    if (op.attention_flops_per_context_token > 0.0) {
      for (const Active& q : active_) {
        // Σ_{pos in [a, b)} (pos + 1): each fed token attends to its context and itself.
        const double a = static_cast<double>(q.a), b = static_cast<double>(q.b);
        const double context = op.kind == "cross_attention"
                                   ? (b - a) * static_cast<double>(p.requests[q.plan].encoder_tokens)
                                   : (b * (b + 1) - a * (a + 1)) / 2.0;
        flops += op.attention_flops_per_context_token * context;
      }
    }
    if (p.kv_group[i] >= 0) bytes += kv_accesses(i, static_cast<std::uint32_t>(p.kv_group[i]), op);
    if (p.cross_group[i] >= 0) bytes += cross_accesses(i, static_cast<std::uint32_t>(p.cross_group[i]));
    if (static_cast<std::int32_t>(i) == p.lm_head_op && p.options.logits) {
      for (const Active& q : active_) {
        if (!q.produces) continue;
        tag(push(p.requests[q.plan].logits_id, p.logits_bytes, AccessOp::write, i), q);
      }
    }
    close_operator(first, flops, bytes);
  }

  ByteCount kv_accesses(std::uint32_t i, std::uint32_t group, const OperatorNode& op) {
    const Plan& p = *plan_;
    const ByteCount page_bytes = p.kv.page_bytes();
    const std::uint64_t P = p.kv.page_tokens;
    ByteCount bytes = 0;
    for (const Active& q : active_) {
      const RequestPlan& rp = p.requests[q.plan];
      const BlockId base = rp.kv_first + BlockId(group) * rp.pages_per_group;
      for (std::uint64_t page = q.a / P; page <= (q.b - 1) / P; ++page) {
        tag(push(base + page, page_bytes, AccessOp::write, i), q);
      }
      const std::uint64_t context = q.prefill ? q.a : q.b;
      const std::uint64_t pages = p.kv.pages_for_tokens(context);
      for (std::uint64_t page = 0; page < pages; ++page) tag(push(base + page, page_bytes, AccessOp::read, i), q);
      bytes += op.kv_bytes_per_context_token * context;
    }
    return bytes;
  }

  ByteCount cross_accesses(std::uint32_t i, std::uint32_t group) {
    const Plan& p = *plan_;
    const ByteCount page_bytes = p.cross.page_bytes();
    ByteCount bytes = 0;
    for (const Active& q : active_) {
      const RequestPlan& rp = p.requests[q.plan];
      const BlockId base = rp.cross_first + BlockId(group) * rp.cross_pages_per_group;
      if (q.encoder) {  // K/V of the encoder output, computed at the first decoder step (as transformers' T5)
        for (std::uint64_t page = 0; page < rp.cross_pages_per_group; ++page) {
          tag(push(base + page, page_bytes, AccessOp::write, i), q);
        }
      }
      for (std::uint64_t page = 0; page < rp.cross_pages_per_group; ++page) {
        tag(push(base + page, page_bytes, AccessOp::read, i), q);
      }
      bytes += page_bytes * rp.cross_pages_per_group;
    }
    return bytes;
  }

  // Routes every token of the step at MoE layer `moe` and reads the union
  // of the chosen experts' blocks, in expert order.
  ByteCount route_and_read_experts(const OperatorNode& op, std::uint32_t i, std::uint32_t moe) {
    std::fill(chosen_.begin(), chosen_.end(), 0);
    for (Active& q : active_) {
      std::span<ExpertId> previous(q.previous.data() + std::size_t(moe) * top_k_, top_k_);
      bool has_previous = q.has_previous;
      for (std::uint64_t pos = q.a; pos < q.b; ++pos) {
        router_->route(q.first_token + (pos - q.a), moe,
                       has_previous ? std::span<const ExpertId>(previous) : std::span<const ExpertId>(), picks_, rng_);
        std::copy(picks_.begin(), picks_.end(), previous.begin());
        has_previous = true;
        for (ExpertId e : picks_) chosen_[e] = 1;
      }
      if (moe + 1 == plan_->model->moe_layers) q.has_previous = true;
    }
    ByteCount bytes = 0;
    for (std::uint32_t e = 0; e < experts_; ++e) {
      if (!chosen_[e]) continue;
      for (BlockId id : op.experts[e]) {
        const ByteCount b = plan_->model->bytes_of(id);
        push(id, b, AccessOp::read, i);
        bytes += b;
      }
    }
    return bytes;
  }

  std::shared_ptr<const Plan> plan_;
  std::vector<AccessRecord> buffer_;
  std::size_t position_ = 0;
  Nanoseconds time_ns_ = 0;
  Nanoseconds pending_ns_ = 0;
  std::uint32_t next_request_ = 0;
  std::uint64_t routed_tokens_ = 0;
  std::vector<Active> active_;
  std::vector<std::uint8_t> encoded_;  // per concept: features written already
  bool loaded_ = true;
  Rng rng_;
  std::unique_ptr<IExpertRouter> router_;
  std::uint32_t top_k_ = 0, experts_ = 0;
  std::vector<std::uint8_t> chosen_;
  std::vector<ExpertId> picks_;
  Phase step_phase_ = Phase::unknown;
  std::uint64_t step_tokens_ = 0;
  std::uint64_t vision_images_ = 0;
  std::uint64_t encoder_tokens_ = 0;
};

}  // namespace

ServingWorkload::ServingWorkload(std::shared_ptr<const WorkloadModel> model, ServingOptions options,
                                 ComputeSpec compute) {
  auto plan = std::make_shared<Plan>();
  plan->model = std::move(model);
  plan->options = std::move(options);
  plan->compute = compute;
  build_plan(*plan);
  plan_ = std::move(plan);
}

ServingWorkload::~ServingWorkload() = default;

const TraceMeta& ServingWorkload::meta() const { return plan_->meta; }
std::unique_ptr<ITraceSource> ServingWorkload::open() const { return std::make_unique<ServingSource>(plan_); }
const KvGeometry& ServingWorkload::kv_geometry() const { return plan_->kv; }
const std::vector<RequestPlan>& ServingWorkload::requests() const { return plan_->requests; }
const WorkloadModel& ServingWorkload::model() const { return *plan_->model; }
const ServingOptions& ServingWorkload::options() const { return plan_->options; }
BlockId ServingWorkload::end_id() const { return plan_->end_id; }

}  // namespace flashsim
