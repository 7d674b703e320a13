// Mask spec strings and the registry of mask patterns (DESIGN.md section 3).
//
// A spec is `name[:key=value,...]`, e.g. `causal`, `sliding_window:window=1024`,
// `causal_document:dist=prolong512k,seed=42`, or `file:PATH` (slices given as JSON, see mask_file.h).
// Every pattern is a deterministic generator (S, parameters, seed) -> Mask. Unknown names and keys are errors
// that list what is valid.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/mask.h"

namespace lcab {

/// A parsed spec string: pattern name and key=value pairs in the order given.
struct MaskSpec {
  std::string text;
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
};

/// Parses `name[:key=value,...]` (or `file:PATH`); throws lcab::Error on malformed text.
MaskSpec parse_mask_spec(std::string_view text);

/// One documented parameter of a pattern.
struct MaskParam {
  std::string name;
  std::string default_value;  ///< as text; "" means "depends on S" (explained in description)
  std::string description;
};

/// The resolved arguments a generator receives: every declared parameter has a value (given or default).
class MaskArgs {
 public:
  MaskArgs(int64_t seqlen, int64_t kv_heads, std::map<std::string, std::string> values, std::string spec_text);
  int64_t seqlen() const { return seqlen_; }
  /// Number of kv heads; per-kv-head patterns make one slice list per kv head.
  int64_t kv_heads() const { return kv_heads_; }
  const std::string& spec_text() const { return spec_text_; }
  /// Typed access; throws lcab::Error naming the key when the text does not parse. Integers accept the token
  /// suffixes k/K (x1024) and M (x1048576).
  int64_t get_int(const std::string& key) const;
  double get_double(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;
  uint64_t seed() const;  ///< get_int("seed") as unsigned

 private:
  int64_t seqlen_;
  int64_t kv_heads_;
  std::map<std::string, std::string> values_;
  std::string spec_text_;
};

struct MaskPattern {
  std::string name;
  std::string definition;  ///< one or two sentences, as in the README table
  std::vector<MaskParam> params;
  std::function<Mask(const MaskArgs&)> generate;
};

class MaskPatternRegistry {
 public:
  /// Adds a pattern; a duplicate name is an error.
  void add(MaskPattern pattern);
  /// Throws lcab::Error listing the valid names when name is unknown.
  const MaskPattern& find(std::string_view name) const;
  std::vector<std::string> names() const;
  const std::vector<MaskPattern>& patterns() const { return patterns_; }
  /// Parses spec text, checks its keys against the pattern's parameters (unknown keys are errors listing the
  /// valid ones), fills defaults and generates. `file:PATH` loads slices from a JSON file.
  Mask make(std::string_view spec_text, int64_t seqlen, int64_t kv_heads = 1) const;

 private:
  std::vector<MaskPattern> patterns_;
};

/// Registers all built-in patterns of DESIGN.md section 3 (defined in mask_patterns.cpp).
void register_all_mask_patterns(MaskPatternRegistry& registry);

/// The registry with every built-in pattern, built once.
const MaskPatternRegistry& builtin_mask_patterns();

/// Shorthand for builtin_mask_patterns().make(spec, seqlen, kv_heads).
Mask make_mask(std::string_view spec_text, int64_t seqlen, int64_t kv_heads = 1);

}  // namespace lcab
