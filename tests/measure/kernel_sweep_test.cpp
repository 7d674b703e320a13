#include "measure/kernel_sweep.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace lcab::measure {
namespace {

KernelSweepAxes small_axes() {
  KernelSweepAxes axes;
  axes.impls = {"lcab_flash", "naive"};
  axes.masks = {"causal", "sliding_window:window=512"};
  axes.seqlens = {4096, 16384};
  axes.passes = {"fwd", "bwd"};
  axes.heads = {64};
  axes.kv_heads = {8, 64};
  axes.head_dims = {128};
  axes.dtypes = {"bf16"};
  return axes;
}

TEST(KernelSweep, ExpandsEveryCombinationOnce) {
  const std::vector<KernelPoint> points = expand_kernel_sweep(small_axes());
  ASSERT_EQ(points.size(), 2u * 2 * 2 * 2 * 2);
  std::set<std::string> ids;
  for (const KernelPoint& p : points) ids.insert(key_id(p.key()));
  EXPECT_EQ(ids.size(), points.size());
}

TEST(KernelSweep, MasksOutermostImplsInnermost) {
  const std::vector<KernelPoint> points = expand_kernel_sweep(small_axes());
  EXPECT_EQ(points[0].impl, "lcab_flash");
  EXPECT_EQ(points[1].impl, "naive");
  EXPECT_EQ(points[0].mask, points[1].mask);
  EXPECT_EQ(points[0].pass, "fwd");
  EXPECT_EQ(points[2].pass, "bwd");
  for (size_t n = 0; n < points.size() / 2; ++n) EXPECT_EQ(points[n].mask, "causal");
  EXPECT_EQ(points.back().mask, "sliding_window:window=512");
  EXPECT_EQ(points.back().seqlen, 16384);
}

TEST(KernelSweep, KeyHoldsEveryAxis) {
  const KernelPoint p = expand_kernel_sweep(small_axes()).front();
  const RecordKey key = p.key();
  EXPECT_EQ(key.impl, "lcab_flash");
  EXPECT_EQ(key.pass, "fwd");
  EXPECT_EQ(key.mask, "causal");
  EXPECT_EQ(key.seqlen, 4096);
  EXPECT_EQ(key.batch, 1);
  EXPECT_EQ(key.heads, 64);
  EXPECT_EQ(key.kv_heads, 8);
  EXPECT_EQ(key.head_dim, 128);
  EXPECT_EQ(key.dtype, "bf16");
  EXPECT_TRUE(key.method.empty());
  EXPECT_EQ(p.label(), "lcab_flash fwd causal S=4K 64/8 hd128 bf16");
}

TEST(KernelSweep, OptionErrorsNameTheOptionAndTheValidValues) {
  auto expect_error = [](KernelSweepAxes axes, const std::string& fragment) {
    try {
      expand_kernel_sweep(axes);
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  KernelSweepAxes axes = small_axes();
  axes.passes = {"fwd", "sideways"};
  expect_error(axes, "--pass 'sideways' is not valid; valid: fwd, bwd");
  axes = small_axes();
  axes.dtypes = {"fp8"};
  expect_error(axes, "valid: bf16, fp16");
  axes = small_axes();
  axes.kv_heads = {7};
  expect_error(axes, "--heads 64 with --kv-heads 7");
  axes = small_axes();
  axes.seqlens = {0};
  expect_error(axes, "--seqlen must be positive");
  axes = small_axes();
  axes.impls = {};
  expect_error(axes, "--impl needs at least one value");
  axes = small_axes();
  axes.batch = 0;
  expect_error(axes, "--batch must be positive");
}

}  // namespace
}  // namespace lcab::measure
