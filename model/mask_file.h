// The `file:PATH` mask form: slices given explicitly as JSON.
//
//   {"seqlen": 4096,                                  optional; when present it must equal --seqlen
//    "slices": [[q_begin, q_end, k_begin, k_end, "causal"], ...]}     shared by all heads
// or
//   {"heads": [[[...slice...], ...], [...]]}          one slice list per kv head
//
// Slice types are "full", "causal", "invcausal", "bicausal". `lcab-predict mask --json` writes the same slice
// arrays, so a generated mask can be saved, edited and fed back.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/mask.h"

namespace lcab {

/// Loads and validates a mask file; errors name the file and the problem.
Mask load_mask_file(const std::string& path, int64_t seqlen, int64_t kv_heads);
/// The same from parsed JSON (source names the origin in errors).
Mask mask_from_json(const nlohmann::json& j, int64_t seqlen, int64_t kv_heads, const std::string& source);
/// [[q_begin, q_end, k_begin, k_end, "type"], ...]
nlohmann::json slices_to_json(const std::vector<Slice>& slices);

}  // namespace lcab
