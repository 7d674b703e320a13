// Which masks the model lets each implementation run (model/perf/kernel_mask_support.h), against what the
// implementations themselves do: cudnn's mapping (kernels/cudnn_attention.cpp through fit_cudnn_masks), SDPA's
// backends as measure/peers/torch_peers.py runs them.
#include "model/perf/kernel_mask_support.h"

#include <gtest/gtest.h>

#include "model/mask_spec.h"

namespace lcab::perf {
namespace {

constexpr int64_t kSeqlen = 4096;

std::string shortfall(const char* impl, const char* spec, int kv_heads = 8) {
  return kernel_mask_shortfall(impl, make_mask(spec, kSeqlen, kv_heads));
}

TEST(PerfKernelMaskSupport, CudnnTakesWhatItsBandAndRaggedBatchesExpress) {
  for (const char* spec : {"full", "causal", "sliding_window:window=512", "sliding_window_causal:window=1024",
                           "causal_document", "full_document"}) {
    EXPECT_EQ(shortfall("cudnn", spec), "") << spec;
  }
  for (const char* spec : {"share_question", "prefix_lm_causal", "global_sliding_window", "block_causal_document"}) {
    EXPECT_NE(shortfall("cudnn", spec).find("not expressible in cuDNN"), std::string::npos) << spec;
  }
  // Per-kv-head masks that differ between heads; with one kv head the same pattern is one mask, still not a band.
  EXPECT_NE(shortfall("cudnn", "block_sparse").find("differ between heads"), std::string::npos);
  EXPECT_NE(shortfall("cudnn", "block_sparse", 1).find("not expressible in cuDNN"), std::string::npos);
}

TEST(PerfKernelMaskSupport, SdpaTakesFullAndCausalOnly) {
  for (const char* impl : {"torch_sdpa_flash", "torch_sdpa_cudnn", "torch_sdpa_efficient"}) {
    EXPECT_EQ(shortfall(impl, "full"), "") << impl;
    EXPECT_EQ(shortfall(impl, "causal"), "") << impl;
    // A window as wide as the sequence is causal.
    EXPECT_EQ(shortfall(impl, "sliding_window_causal:window=8192"), "") << impl;
    for (const char* spec : {"sliding_window_causal", "causal_document", "block_sparse"}) {
      EXPECT_NE(shortfall(impl, spec), "") << impl << " " << spec;
    }
  }
  EXPECT_NE(shortfall("torch_sdpa_flash", "causal_document").find("takes no mask"), std::string::npos);
  EXPECT_NE(shortfall("torch_sdpa_cudnn", "causal_document").find("dense boolean mask"), std::string::npos);
}

TEST(PerfKernelMaskSupport, LcabFlashAndFlexTakeAnyMask) {
  for (const char* impl : {"lcab_flash", "lcab_flash_sm80", "torch_flex"}) {
    for (const char* spec : {"full", "share_question", "block_sparse", "variable_block_sparse", "prefix_lm_document"}) {
      EXPECT_EQ(shortfall(impl, spec), "") << impl << " " << spec;
    }
  }
}

}  // namespace
}  // namespace lcab::perf
