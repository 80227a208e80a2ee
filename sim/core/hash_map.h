// The hash containers of hot paths: Abseil's Swiss tables where Abseil is
// installed (Debian's libabsl-dev), the standard ones otherwise (the GPU
// machine's image has no Abseil), so the same code builds on both.
#pragma once

#if FLASHSIM_HAVE_ABSL
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#else
#include <unordered_map>
#include <unordered_set>
#endif

namespace flashsim {

#if FLASHSIM_HAVE_ABSL
template <class Key, class Value>
using HashMap = absl::flat_hash_map<Key, Value>;
template <class Key>
using HashSet = absl::flat_hash_set<Key>;
#else
template <class Key, class Value>
using HashMap = std::unordered_map<Key, Value>;
template <class Key>
using HashSet = std::unordered_set<Key>;
#endif

}  // namespace flashsim
