#include "sim/workload/kv_cache.h"

#include <string>

#include "sim/core/errors.h"

namespace flashsim {

std::string_view to_string(KvLayout layout) { return layout == KvLayout::per_layer ? "per_layer" : "per_request"; }

KvLayout parse_kv_layout(std::string_view text) {
  if (text == "per_layer") return KvLayout::per_layer;
  if (text == "per_request") return KvLayout::per_request;
  throw InputError("kv_layout '" + std::string(text) + "' is not one of: per_layer, per_request");
}

ByteCount KvGeometry::page_bytes() const {
  const ByteCount all_layers = ByteCount{page_tokens} * bytes_per_token;
  return layout == KvLayout::per_layer && layers > 0 ? all_layers / layers : all_layers;
}

std::uint64_t KvGeometry::pages_for_tokens(std::uint64_t tokens) const {
  return (tokens + page_tokens - 1) / page_tokens;
}

std::uint64_t KvGeometry::request_pages(std::uint64_t tokens) const { return pages_for_tokens(tokens) * groups(); }

}  // namespace flashsim
