#include "sim/cache/pinning.h"

#include <algorithm>
#include <string>

#include "sim/core/errors.h"

namespace flashsim {

PinnedSet resolve_pins(const PinSpec& spec, const TraceMeta& meta, ByteCount capacity_bytes, bool unit_sizes) {
  PinnedSet out;
  out.ids.insert(spec.blocks.begin(), spec.blocks.end());
  if ((!spec.layers.empty() || !spec.kinds.empty() || !spec.segments.empty()) && meta.catalog.empty()) {
    throw InputError("cache.pin: pinning by layer, kind or segment needs the trace's block catalog, and trace '" +
                     meta.source + "' has none");
  }
  for (const BlockCatalogEntry& e : meta.catalog) {
    const bool by_layer = std::find(spec.layers.begin(), spec.layers.end(), e.layer) != spec.layers.end();
    const bool by_kind = std::find(spec.kinds.begin(), spec.kinds.end(), e.kind) != spec.kinds.end();
    const bool by_segment =
        !e.segment.empty() && std::find(spec.segments.begin(), spec.segments.end(), e.segment) != spec.segments.end();
    if (by_layer || by_kind || by_segment) out.ids.insert(e.id);
  }
  // A layer or kind that pins nothing is a typo, not a choice.
  for (std::int32_t layer : spec.layers) {
    if (std::none_of(meta.catalog.begin(), meta.catalog.end(), [&](const auto& e) { return e.layer == layer; })) {
      throw InputError("cache.pin.layers: no block of trace '" + meta.source + "' is in layer " + std::to_string(layer));
    }
  }
  for (const std::string& kind : spec.kinds) {
    if (std::none_of(meta.catalog.begin(), meta.catalog.end(), [&](const auto& e) { return e.kind == kind; })) {
      std::string kinds;
      for (const auto& e : meta.catalog) {
        if (kinds.find("'" + e.kind + "'") == std::string::npos) kinds += (kinds.empty() ? "'" : ", '") + e.kind + "'";
      }
      throw InputError("cache.pin.kinds: no block of trace '" + meta.source + "' has kind '" + kind +
                       "' (kinds there: " + kinds + ")");
    }
  }
  for (const std::string& segment : spec.segments) {
    if (std::none_of(meta.catalog.begin(), meta.catalog.end(), [&](const auto& e) { return e.segment == segment; })) {
      std::string segments;
      for (const auto& e : meta.catalog) {
        if (!e.segment.empty() && segments.find("'" + e.segment + "'") == std::string::npos) {
          segments += (segments.empty() ? "'" : ", '") + e.segment + "'";
        }
      }
      throw InputError("cache.pin.segments: no block of trace '" + meta.source + "' is in segment '" + segment +
                       "' (segments there: " + (segments.empty() ? std::string("none") : segments) + ")");
    }
  }
  HashSet<BlockId> counted;
  for (const BlockCatalogEntry& e : meta.catalog) {
    if (out.ids.contains(e.id) && counted.insert(e.id).second) out.catalog_bytes += unit_sizes ? 1 : e.bytes;
  }
  if (out.catalog_bytes > capacity_bytes) {
    const char* unit = unit_sizes ? " blocks" : " bytes";
    throw InputError("cache.pin: the pinned blocks need " + std::to_string(out.catalog_bytes) + unit +
                     " by the catalog, more than the fast tier's capacity of " + std::to_string(capacity_bytes) +
                     unit + (unit_sizes ? " (cache.ignore_sizes)" : ""));
  }
  return out;
}

}  // namespace flashsim
