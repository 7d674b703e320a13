#include "model/perf/kernel_mask_support.h"

#include <vector>

#include "model/cudnn_mask.h"

namespace lcab::perf {
namespace {

std::vector<std::vector<Slice>> head_masks(const Mask& mask) {
  std::vector<std::vector<Slice>> lists;
  for (int h = 0; h < mask.num_head_masks(); ++h) lists.push_back(mask.slices(h));
  return lists;
}

// Full or causal over the whole sequence, for every head: the masks SDPA's backends take without a mask tensor.
bool full_or_causal(const CudnnMaskFit& fit) {
  const CudnnMaskModel& m = fit.model;
  return fit.fits && !m.documents() && !m.left_bound && (!m.right_bound || *m.right_bound == 0);
}

}  // namespace

std::string kernel_mask_shortfall(std::string_view impl, const Mask& mask) {
  const bool cudnn = impl == "cudnn";
  const bool sdpa_flash = impl == "torch_sdpa_flash";
  const bool sdpa_dense = impl == "torch_sdpa_cudnn" || impl == "torch_sdpa_efficient";
  if (!cudnn && !sdpa_flash && !sdpa_dense) return "";
  const std::vector<std::vector<Slice>> lists = head_masks(mask);
  const CudnnMaskFit fit = fit_cudnn_masks(mask.seqlen(), mask.seqlen(), lists);
  if (cudnn) return fit.fits ? "" : fit.reason;
  if (full_or_causal(fit)) return "";
  if (sdpa_flash) return "SDPA's flash backend takes no mask: full and causal only";
  return "SDPA runs masks other than full and causal only as a dense boolean mask, computing every tile, which the "
         "model does not cover";
}

std::string kernel_mask_error(std::string_view impl, const Mask& mask) {
  const std::string why = kernel_mask_shortfall(impl, mask);
  return why.empty() ? why : std::string(impl) + " cannot run this mask: " + why;
}

}  // namespace lcab::perf
