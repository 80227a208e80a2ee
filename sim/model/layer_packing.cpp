#include "sim/model/layer_packing.h"

#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "sim/cache/i_slot_allocator.h"
#include "sim/core/errors.h"

namespace flashsim {

namespace {

std::string stack_of(const WeightTensor& t) {
  if (t.segment == "cross_attention") return "decoder";  // a T5 decoder block's EncDecAttention
  return t.segment;
}

// "model.layers." + "0-2" from "model.layers.0.input_layernorm.weight".
std::string slice_name(const WeightTensor& first, std::int32_t begin, std::int32_t end) {
  const std::string needle = "." + std::to_string(first.layer) + ".";
  const std::size_t pos = first.name.find(needle);
  const std::string prefix = pos == std::string::npos ? first.segment + ".layers." : first.name.substr(0, pos + 1);
  return prefix + std::to_string(begin) + "-" + std::to_string(end - 1);
}

ByteCount request_of(ByteCount payload, ByteCount slot_bytes) {
  if (slot_bytes == 0) return payload;
  return (payload + slot_bytes - 1) / slot_bytes * slot_bytes;
}

std::unique_ptr<ISlotAllocator> make_allocator(const std::string& name, ByteCount capacity) {
  return SlotAllocatorRegistry::instance().create(name, {}, SlotAllocatorContext{capacity});
}

// Places every request in a fresh allocator big enough for all of them;
// returns what each reserved. Throws Error if one does not fit (a defect:
// the region is 4x the requests plus the largest one).
std::vector<ByteCount> place_all(const std::string& allocator, const std::vector<ByteCount>& requests) {
  ByteCount sum = 0;
  ByteCount largest = 0;
  for (ByteCount r : requests) {
    sum += r;
    largest = std::max(largest, r);
  }
  auto alloc = make_allocator(allocator, 4 * sum + 2 * largest);
  std::vector<ByteCount> reserved;
  reserved.reserve(requests.size());
  for (ByteCount r : requests) {
    const auto range = alloc->allocate(r);
    if (!range) throw Error("layer packing: allocator '" + allocator + "' could not place " + std::to_string(r) + " B");
    reserved.push_back(range->reserved_bytes);
  }
  return reserved;
}

}  // namespace

LayerPackingReport pack_layers(const ModelConfig& model, const std::vector<WeightTensor>& tensors, unsigned K,
                               ByteCount slot_bytes, const std::string& allocator, ByteCount capacity_bytes,
                               BlockId first_id, unsigned passes) {
  if (K == 0) throw InputError("layer packing of '" + model.name + "': layers per slice must be at least 1");
  SlotAllocatorRegistry::instance().find(allocator);  // UnknownNameError early
  LayerPackingReport r;
  r.layers_per_slice = K;
  r.slot_bytes = slot_bytes;
  r.allocator = allocator;
  r.tensor_slice.resize(tensors.size());

  // Group: (stack, layer / K) -> slice, in order of first appearance.
  std::map<std::pair<std::string, std::int32_t>, std::size_t> group_slice;
  std::map<std::string, std::int32_t> stack_layers;  // layers per stack
  for (const WeightTensor& t : tensors) {
    if (t.layer >= 0) stack_layers[stack_of(t)] = std::max(stack_layers[stack_of(t)], t.layer + 1);
  }
  const auto k = static_cast<std::int32_t>(K);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const WeightTensor& t = tensors[i];
    std::size_t index = 0;
    if (t.layer < 0 || t.segment == "shared") {
      index = r.slices.size();
      LayerSlice s;
      s.name = t.name;
      s.stack = t.segment;
      r.slices.push_back(std::move(s));
    } else {
      const std::string stack = stack_of(t);
      const auto key = std::make_pair(stack, t.layer / k);
      const auto it = group_slice.find(key);
      if (it != group_slice.end()) {
        index = it->second;
      } else {
        index = r.slices.size();
        group_slice.emplace(key, index);
        LayerSlice s;
        s.stack = stack;
        s.first_layer = t.layer / k * k;
        s.last_layer = std::min(s.first_layer + k, stack_layers[stack]);
        s.name = slice_name(t, s.first_layer, s.last_layer);
        r.slices.push_back(std::move(s));
        ++r.layer_slice_count;
      }
    }
    r.slices[index].tensors.push_back(i);
    r.slices[index].payload_bytes += t.bytes;
    r.tensor_slice[i] = index;
  }

  // Every slice resident.
  std::vector<ByteCount> requests;
  for (LayerSlice& s : r.slices) {
    s.requested_bytes = request_of(s.payload_bytes, slot_bytes);
    requests.push_back(s.requested_bytes);
  }
  const std::vector<ByteCount> reserved = place_all(allocator, requests);
  double utilisation_sum = 0.0;
  for (std::size_t i = 0; i < r.slices.size(); ++i) {
    LayerSlice& s = r.slices[i];
    s.reserved_bytes = reserved[i];
    r.payload_bytes += s.payload_bytes;
    r.reserved_bytes += s.reserved_bytes;
    if (s.first_layer >= 0 && s.reserved_bytes > 0) {
      utilisation_sum += static_cast<double>(s.payload_bytes) / static_cast<double>(s.reserved_bytes);
    }
  }
  if (r.layer_slice_count > 0) r.layer_slice_utilisation = utilisation_sum / static_cast<double>(r.layer_slice_count);
  if (r.reserved_bytes > 0) {
    r.utilisation = static_cast<double>(r.payload_bytes) / static_cast<double>(r.reserved_bytes);
    r.internal_fragmentation = 1.0 - r.utilisation;
  }
  std::vector<ByteCount> tensor_requests;
  for (const WeightTensor& t : tensors) {
    if (t.bytes > 0) tensor_requests.push_back(request_of(t.bytes, slot_bytes));
  }
  for (ByteCount b : place_all(allocator, tensor_requests)) r.unpacked_reserved_bytes += b;
  if (r.unpacked_reserved_bytes > 0) {
    r.space_overhead =
        static_cast<double>(r.reserved_bytes) / static_cast<double>(r.unpacked_reserved_bytes) - 1.0;
  }

  // Churn: cyclic passes through a fast tier too small for the model.
  r.capacity_bytes = capacity_bytes;
  if (capacity_bytes > 0 && capacity_bytes < r.reserved_bytes && passes > 0) {
    r.passes = passes;
    auto alloc = make_allocator(allocator, capacity_bytes);
    std::deque<SlotRange> resident;  // placement order = LRU order for a cyclic scan
    double fragmentation_sum = 0.0;
    double occupancy_sum = 0.0;
    for (unsigned pass = 0; pass < passes; ++pass) {
      for (const LayerSlice& s : r.slices) {
        if (s.requested_bytes == 0) continue;
        if (!alloc->could_ever_fit(s.requested_bytes)) {
          ++r.unplaceable;
          continue;
        }
        std::optional<SlotRange> range;
        while (!(range = alloc->allocate(s.requested_bytes))) {
          if (resident.empty()) break;  // could_ever_fit said yes: cannot happen with everything freed
          alloc->release(resident.front());
          resident.pop_front();
          ++r.evictions;
        }
        if (!range) {
          ++r.unplaceable;
          continue;
        }
        resident.push_back(*range);
        ++r.placements;
        const ByteCount free_bytes = alloc->capacity_bytes() - alloc->reserved_bytes();
        if (free_bytes > 0) {
          fragmentation_sum +=
              1.0 - static_cast<double>(alloc->largest_free_bytes()) / static_cast<double>(free_bytes);
        }
        occupancy_sum += static_cast<double>(alloc->reserved_bytes()) / static_cast<double>(capacity_bytes);
      }
    }
    if (r.placements > 0) {
      r.external_fragmentation = fragmentation_sum / static_cast<double>(r.placements);
      r.mean_occupancy = occupancy_sum / static_cast<double>(r.placements);
    }
  }

  for (std::size_t i = 0; i < r.slices.size(); ++i) {
    const LayerSlice& s = r.slices[i];
    BlockCatalogEntry e;
    e.id = first_id + i;
    e.name = s.name;
    e.bytes = s.payload_bytes;
    e.layer = s.first_layer;
    e.kind = s.first_layer >= 0 ? "slice" : tensors[s.tensors.front()].kind;
    e.segment = s.stack;
    r.slice_catalog.push_back(std::move(e));
  }
  return r;
}

ModelBlocks packed_blocks(const LayerPackingReport& report) {
  ModelBlocks out;
  out.catalog = report.slice_catalog;
  std::uint64_t address = 0;
  for (BlockCatalogEntry& e : out.catalog) {
    e.address_begin = address;
    e.address_end = address + e.bytes;
    address += (e.bytes + 255) / 256 * 256;
    out.total_bytes += e.bytes;
  }
  out.tensor_blocks.reserve(report.tensor_slice.size());
  for (std::size_t slice : report.tensor_slice) out.tensor_blocks.emplace_back(slice, slice + 1);
  return out;
}

}  // namespace flashsim
