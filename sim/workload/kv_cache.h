// The KV cache as pages (PagedAttention, Kwon et al., SOSP 2023, as vLLM
// lays it out): a page holds the K and V of `page_tokens` consecutive
// tokens of one request in one layer (layout per_layer, vLLM's: each layer
// has its own cache tensor and the request's block table indexes all of
// them), or of all layers at once (layout per_request: fewer, larger pages,
// for long runs where per-layer pages would make the trace too long).
//
// Bytes per token (all layers) = 2 · layers · kv_heads · head_dim · dtype
// bytes (ModelConfig::kv_bytes_per_token). A page is allocated whole when
// its first token is appended and moved whole, so every access of a page
// carries the full page bytes. Pages of a request are freed when it ends:
// they are never accessed again, and the next request gets fresh block ids.
#pragma once
#include <cstdint>
#include <string_view>

#include "sim/core/units.h"

namespace flashsim {

enum class KvLayout { per_layer, per_request };

/// "per_layer" / "per_request"; parse throws InputError on anything else.
std::string_view to_string(KvLayout layout);
KvLayout parse_kv_layout(std::string_view text);

struct KvGeometry {
  KvLayout layout = KvLayout::per_layer;
  std::uint32_t page_tokens = 16;       ///< tokens per page (vLLM's default block_size is 16)
  std::uint32_t layers = 0;             ///< layers holding a KV cache (decoder layers)
  ByteCount bytes_per_token = 0;        ///< all layers: 2 · layers · kv_heads · head_dim · dtype bytes

  /// Bytes of one page: page_tokens · bytes_per_token / layers (per_layer)
  /// or page_tokens · bytes_per_token (per_request).
  ByteCount page_bytes() const;
  /// Pages per layer (per_layer) or per request (per_request) holding `tokens` tokens: ceil(tokens / page_tokens).
  std::uint64_t pages_for_tokens(std::uint64_t tokens) const;
  /// Every page of a request with `tokens` tokens of KV: pages_for_tokens · layers (per_layer) or pages_for_tokens.
  std::uint64_t request_pages(std::uint64_t tokens) const;
  /// Page groups: `layers` for per_layer (one page list per layer), 1 for per_request.
  std::uint32_t groups() const { return layout == KvLayout::per_layer ? layers : 1; }
  /// Bytes a request's pages hold after `tokens` tokens: request_pages(tokens) · page_bytes()
  /// (whole pages: the last page's unused slots are allocated too).
  ByteCount allocated_bytes(std::uint64_t tokens) const { return request_pages(tokens) * page_bytes(); }
};

}  // namespace flashsim
