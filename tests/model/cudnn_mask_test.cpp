// Which masks map to cuDNN's fused attention and how (model/cudnn_mask.h): full, causal (bottom-right aligned),
// bands, packed documents as ragged batches (one-token ones included), and the reasons for the rest.
#include "model/cudnn_mask.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/mask_patterns_internal.h"
#include "model/mask_spec.h"

namespace lcab {
namespace {

CudnnMaskFit fit_pattern(const std::string& spec, int64_t seqlen) {
  const Mask mask = make_mask(spec, seqlen);
  return fit_cudnn_mask(seqlen, seqlen, mask.slices());
}

TEST(CudnnMaskFit, FullAndCausal) {
  const CudnnMaskFit full = fit_pattern("full", 1000);
  ASSERT_TRUE(full.fits) << full.reason;
  EXPECT_FALSE(full.model.left_bound);
  EXPECT_FALSE(full.model.right_bound);
  EXPECT_EQ(full.model.document_lengths, std::vector<int64_t>{1000});

  const CudnnMaskFit causal = fit_pattern("causal", 1000);
  ASSERT_TRUE(causal.fits) << causal.reason;
  EXPECT_FALSE(causal.model.left_bound);
  ASSERT_TRUE(causal.model.right_bound);
  EXPECT_EQ(*causal.model.right_bound, 0);
  EXPECT_EQ(causal.model.diagonal_offset, 0);
  EXPECT_FALSE(causal.model.documents());
}

TEST(CudnnMaskFit, RectangularCausalIsBottomRight) {
  const CudnnMaskFit fit = fit_cudnn_mask(200, 333, {{0, 200, 0, 333, SliceType::kCausal}});
  ASSERT_TRUE(fit.fits) << fit.reason;
  EXPECT_EQ(fit.model.diagonal_offset, 133);
  ASSERT_TRUE(fit.model.right_bound);
  EXPECT_EQ(*fit.model.right_bound, 0);
  EXPECT_FALSE(fit.model.left_bound);
}

TEST(CudnnMaskFit, SlidingWindows) {
  // Row i sees [i - 100, i + 100]: cuDNN keeps j > i - left and j <= i + right.
  const CudnnMaskFit band = fit_pattern("sliding_window:window=100", 1000);
  ASSERT_TRUE(band.fits) << band.reason;
  EXPECT_EQ(band.model.left_bound.value_or(-1), 101);
  EXPECT_EQ(band.model.right_bound.value_or(-1), 100);
  const CudnnMaskFit causal_band = fit_pattern("sliding_window_causal:window=64", 1000);
  ASSERT_TRUE(causal_band.fits) << causal_band.reason;
  EXPECT_EQ(causal_band.model.left_bound.value_or(-1), 65);
  EXPECT_EQ(causal_band.model.right_bound.value_or(-1), 0);
  // A window wider than the sequence is plain causal.
  const CudnnMaskFit wide = fit_pattern("sliding_window_causal:window=5000", 1000);
  ASSERT_TRUE(wide.fits) << wide.reason;
  EXPECT_FALSE(wide.model.left_bound);
  EXPECT_EQ(wide.model.right_bound.value_or(-1), 0);
}

TEST(CudnnMaskFit, DocumentsIncludingOneTokenOnes) {
  const std::vector<int64_t> lengths{1, 1, 3, 1, 70, 1, 130, 1, 1, 64, 1, 29};
  int64_t total = 0;
  for (int64_t n : lengths) total += n;
  const CudnnMaskFit causal =
      fit_cudnn_mask(total, total, mask_patterns::diagonal_document_slices(lengths, SliceType::kCausal));
  ASSERT_TRUE(causal.fits) << causal.reason;
  EXPECT_EQ(causal.model.document_lengths, lengths);
  EXPECT_EQ(causal.model.right_bound.value_or(-1), 0);
  EXPECT_FALSE(causal.model.left_bound);
  const CudnnMaskFit full =
      fit_cudnn_mask(total, total, mask_patterns::diagonal_document_slices(lengths, SliceType::kFull));
  ASSERT_TRUE(full.fits) << full.reason;
  EXPECT_EQ(full.model.document_lengths, lengths);
  EXPECT_FALSE(full.model.right_bound);
  const CudnnMaskFit pattern = fit_pattern("causal_document", 4096);
  ASSERT_TRUE(pattern.fits) << pattern.reason;
  EXPECT_EQ(pattern.model.document_lengths, make_mask("causal_document", 4096).info().document_lengths);
}

TEST(CudnnMaskFit, RejectsWhatCudnnCannotExpress) {
  // Rows 300..349 see no key.
  EXPECT_FALSE(fit_cudnn_mask(350, 350, {{0, 300, 0, 100, SliceType::kCausal}}).fits);
  // Two ranges in one row (global tokens + window), prefix-LM, block-sparse.
  for (const char* spec : {"global_sliding_window:global=16,window=64", "prefix_lm_causal", "share_question",
                           "block_sparse:density=0.3,block=64,seed=1", "block_causal_document"}) {
    const CudnnMaskFit fit = fit_pattern(spec, 8192);
    EXPECT_FALSE(fit.fits) << spec;
    EXPECT_FALSE(fit.reason.empty()) << spec;
  }
  // Keys strictly below the diagonal.
  EXPECT_FALSE(fit_cudnn_mask(100, 100, {{1, 100, 0, 99, SliceType::kCausal}}).fits);
}

}  // namespace
}  // namespace lcab
