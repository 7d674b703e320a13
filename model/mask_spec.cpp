#include "model/mask_spec.h"

#include <algorithm>

#include "model/cli_values.h"
#include "model/error.h"
#include "model/mask_file.h"

namespace lcab {

MaskSpec parse_mask_spec(std::string_view text) {
  MaskSpec spec;
  spec.text = std::string(text);
  const size_t colon = text.find(':');
  spec.name = std::string(text.substr(0, colon));
  LCAB_CHECK(!spec.name.empty(), "mask spec '" << text << "' has no pattern name; use name[:key=value,...]");
  if (colon == std::string_view::npos) return spec;
  const std::string_view rest = text.substr(colon + 1);
  if (spec.name == "file") {
    LCAB_CHECK(!rest.empty(), "mask spec 'file:' needs a path, e.g. file:my_mask.json");
    spec.params.emplace_back("path", std::string(rest));
    return spec;
  }
  if (rest.empty()) return spec;
  for (const std::string& item : split_list(rest)) {
    const size_t eq = item.find('=');
    LCAB_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < item.size(),
               "mask spec '" << text << "': '" << item << "' is not key=value");
    const std::string key = item.substr(0, eq);
    for (const auto& [k, v] : spec.params) {
      LCAB_CHECK(k != key, "mask spec '" << text << "' gives '" << key << "' twice");
    }
    spec.params.emplace_back(key, item.substr(eq + 1));
  }
  return spec;
}

MaskArgs::MaskArgs(int64_t seqlen, int64_t kv_heads, std::map<std::string, std::string> values,
                   std::string spec_text)
    : seqlen_(seqlen), kv_heads_(kv_heads), values_(std::move(values)), spec_text_(std::move(spec_text)) {}

const std::string& MaskArgs::get_string(const std::string& key) const {
  auto it = values_.find(key);
  LCAB_CHECK(it != values_.end(), "mask '" << spec_text_ << "' has no parameter '" << key << "'");
  return it->second;
}

int64_t MaskArgs::get_int(const std::string& key) const {
  const std::string& v = get_string(key);
  try {
    return parse_int(v);
  } catch (const Error&) {
    LCAB_THROW("mask '" << spec_text_ << "': " << key << "=" << v << " is not an integer");
  }
}

double MaskArgs::get_double(const std::string& key) const {
  const std::string& v = get_string(key);
  try {
    return parse_double(v);
  } catch (const Error&) {
    LCAB_THROW("mask '" << spec_text_ << "': " << key << "=" << v << " is not a number");
  }
}

uint64_t MaskArgs::seed() const { return static_cast<uint64_t>(get_int("seed")); }

void MaskPatternRegistry::add(MaskPattern pattern) {
  for (const MaskPattern& p : patterns_) {
    LCAB_CHECK(p.name != pattern.name, "mask pattern '" << pattern.name << "' registered twice");
  }
  patterns_.push_back(std::move(pattern));
}

std::vector<std::string> MaskPatternRegistry::names() const {
  std::vector<std::string> names;
  for (const MaskPattern& p : patterns_) names.push_back(p.name);
  names.push_back("file");
  return names;
}

const MaskPattern& MaskPatternRegistry::find(std::string_view name) const {
  for (const MaskPattern& p : patterns_) {
    if (p.name == name) return p;
  }
  LCAB_THROW("unknown mask pattern '" << name << "'; valid: " << join(names()));
}

Mask MaskPatternRegistry::make(std::string_view spec_text, int64_t seqlen, int64_t kv_heads) const {
  LCAB_CHECK(seqlen > 0, "sequence length must be positive, got " << seqlen);
  LCAB_CHECK(kv_heads > 0, "kv heads must be positive, got " << kv_heads);
  const MaskSpec spec = parse_mask_spec(spec_text);
  if (spec.name == "file") {
    LCAB_CHECK(!spec.params.empty(), "mask spec 'file' needs a path: file:PATH");
    Mask mask = load_mask_file(spec.params[0].second, seqlen, kv_heads);
    return mask;
  }
  const MaskPattern& pattern = find(spec.name);
  std::map<std::string, std::string> values;
  for (const MaskParam& p : pattern.params) values[p.name] = p.default_value;
  for (const auto& [key, value] : spec.params) {
    auto it = std::find_if(pattern.params.begin(), pattern.params.end(),
                           [&](const MaskParam& p) { return p.name == key; });
    if (it == pattern.params.end()) {
      std::vector<std::string> valid;
      for (const MaskParam& p : pattern.params) valid.push_back(p.name);
      LCAB_THROW("mask pattern '" << pattern.name << "' has no parameter '" << key << "'; valid: "
                                  << (valid.empty() ? std::string("none") : join(valid)));
    }
    values[key] = value;
  }
  return pattern.generate(MaskArgs(seqlen, kv_heads, std::move(values), spec.text));
}

const MaskPatternRegistry& builtin_mask_patterns() {
  static const MaskPatternRegistry registry = [] {
    MaskPatternRegistry r;
    register_all_mask_patterns(r);
    return r;
  }();
  return registry;
}

Mask make_mask(std::string_view spec_text, int64_t seqlen, int64_t kv_heads) {
  return builtin_mask_patterns().make(spec_text, seqlen, kv_heads);
}

}  // namespace lcab
