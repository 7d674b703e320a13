// Which masks an attention implementation runs, as far as the model knows, so that lcab-predict says "unsupported"
// (with the implementation's reason) where the implementation would, instead of predicting a call it cannot make.
#pragma once

#include <string>
#include <string_view>

#include "model/mask.h"

namespace lcab::perf {

/// Why `impl` cannot run self-attention under `mask`; "" when it can, or when the model knows no limit of it.
/// - cudnn (kernels/cudnn_attention.h): one mask for all heads that cuDNN's band and ragged batches express
///   (fit_cudnn_masks, model/cudnn_mask.h). The loaded cuDNN version's limits are not known here.
/// - torch_sdpa_flash: full and causal only (SDPA's flash backend takes no mask).
/// - torch_sdpa_cudnn, torch_sdpa_efficient: full and causal; SDPA runs other masks only as a dense boolean mask,
///   computing every tile (measure/peers/torch_peers.py --max-dense-mask-bytes), which the model does not cover.
/// - lcab_flash, lcab_flash_sm80, torch_flex: any mask.
std::string kernel_mask_shortfall(std::string_view impl, const Mask& mask);
/// The same as the error of a CP prediction or plan: "IMPL cannot run this mask: REASON"; "" when it can.
std::string kernel_mask_error(std::string_view impl, const Mask& mask);

}  // namespace lcab::perf
