// Built-in mask patterns (DESIGN.md section 3). Each generator is deterministic for its seed.
#include "model/error.h"
#include "model/mask_spec.h"

namespace lcab {
namespace {

MaskInfo info_of(const MaskArgs& args) {
  MaskInfo info;
  info.spec = args.spec_text();
  return info;
}

Mask make_full(const MaskArgs& args) {
  const int64_t s = args.seqlen();
  return Mask(s, {{0, s, 0, s, SliceType::kFull}}, info_of(args));
}

Mask make_causal(const MaskArgs& args) {
  const int64_t s = args.seqlen();
  return Mask(s, {{0, s, 0, s, SliceType::kCausal}}, info_of(args));
}

}  // namespace

void register_all_mask_patterns(MaskPatternRegistry& registry) {
  registry.add({"full", "one FULL slice [0,S)x[0,S)", {}, make_full});
  registry.add({"causal", "one CAUSAL slice: row i sees keys [0, i]", {}, make_causal});
}

}  // namespace lcab
