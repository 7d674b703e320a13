// Which GPUs can run lcab_flash's mma.sync kernels (kernels/mma_sync_fit.h), with the kernels' own shared-memory
// sizes (flash_kernels.h), and the diagnostic carveout's parsing. Host-only: no GPU needed.
#include "kernels/mma_sync_fit.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "kernels/flash_kernels.h"
#include "model/error.h"

namespace lcab::kernels::flash {
namespace {

// Per-block opt-in limits of dynamic shared memory (CUDA C++ Programming Guide, the compute capabilities' table),
// and what one SM holds.
constexpr size_t kA100PerBlock = 163 * 1024;  // sm_80
constexpr size_t kA100PerSm = 164 * 1024;
constexpr size_t kSm86PerBlock = 99 * 1024;   // sm_86, sm_89: RTX 30x0 / 40x0, A10, A40, L4, L40S
constexpr size_t kReservedPerCta = 1024;      // the system's share of each CTA's shared memory

TEST(MmaSyncFit, A100RunsBothPassesAtBothHeadDimsWithTheWideHd64Backward) {
  const MmaSyncDevice a100{8, 0, kA100PerBlock};
  for (int head_dim : {64, 128}) {
    EXPECT_EQ(mma_sync_shortfall(a100, forward_shared_bytes(head_dim), head_dim, Pass::kForward), "");
    const TileShape tile = mma_sync_backward_tile(a100, head_dim);
    EXPECT_EQ(tile.q, head_dim == 64 ? kWideBackwardQueries : kNarrowBackwardQueries) << "head dim " << head_dim;
    EXPECT_EQ(tile.k, 128);
    EXPECT_EQ(mma_sync_shortfall(a100, backward_shared_bytes(head_dim, tile.q), head_dim, Pass::kBackward), "");
  }
  // One wide hd 64 backward CTA per SM, as the hd 128 one.
  EXPECT_LE(backward_shared_bytes(64, kWideBackwardQueries) + kReservedPerCta, kA100PerSm);
}

TEST(MmaSyncFit, TwoForwardCtasFitOnAnA100Sm) {
  // One K and one V buffer: at head dim 128 two CTAs share an SM of an A100 (K and V double-buffered left one).
  for (int head_dim : {64, 128}) {
    EXPECT_LE(2 * (forward_shared_bytes(head_dim) + kReservedPerCta), kA100PerSm) << "head dim " << head_dim;
  }
}

TEST(MmaSyncFit, Sm86RunsTheNarrowHd64BackwardAndLacksTheHd128One) {
  const MmaSyncDevice sm86{8, 6, kSm86PerBlock};
  EXPECT_EQ(mma_sync_shortfall(sm86, forward_shared_bytes(128), 128, Pass::kForward), "");
  EXPECT_EQ(mma_sync_shortfall(sm86, forward_shared_bytes(64), 64, Pass::kForward), "");
  // The wide hd 64 CTA does not fit; the narrow one does, and is the tile chosen.
  EXPECT_GT(backward_shared_bytes(64, kWideBackwardQueries), kSm86PerBlock);
  const TileShape tile = mma_sync_backward_tile(sm86, 64);
  EXPECT_EQ(tile.q, kNarrowBackwardQueries);
  EXPECT_EQ(mma_sync_shortfall(sm86, backward_shared_bytes(64, tile.q), 64, Pass::kBackward), "");
  // Forced wide, it is said not to fit.
  const TileShape forced = mma_sync_backward_tile(sm86, 64, kWideBackwardQueries);
  EXPECT_EQ(forced.q, kWideBackwardQueries);
  const std::string wide_why = mma_sync_shortfall(sm86, backward_shared_bytes(64, forced.q), 64, Pass::kBackward);
  EXPECT_NE(wide_why.find("backward at head dim 64"), std::string::npos) << wide_why;
  const TileShape tile128 = mma_sync_backward_tile(sm86, 128);
  EXPECT_EQ(tile128.q, kNarrowBackwardQueries);
  const std::string why = mma_sync_shortfall(sm86, backward_shared_bytes(128, tile128.q), 128, Pass::kBackward);
  EXPECT_NE(why.find("backward at head dim 128"), std::string::npos) << why;
  EXPECT_NE(why.find("sm_86"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(kSm86PerBlock)), std::string::npos) << why;
}

TEST(MmaSyncFit, BackwardTilesWithoutAKernelThrow) {
  const MmaSyncDevice a100{8, 0, kA100PerBlock};
  EXPECT_THROW(mma_sync_backward_tile(a100, 128, kWideBackwardQueries), Error);  // hd 128 has 64 queries only
  EXPECT_THROW(mma_sync_backward_tile(a100, 64, 32), Error);
  EXPECT_THROW(mma_sync_backward_tile(a100, 256), Error);
  EXPECT_THROW(backward_shared_bytes(128, kWideBackwardQueries), Error);
  EXPECT_EQ(mma_sync_backward_tile(a100, 64, kNarrowBackwardQueries).q, kNarrowBackwardQueries);
}

TEST(MmaSyncFit, OlderThanSm80IsUnsupported) {
  const MmaSyncDevice turing{7, 5, 64 * 1024};
  const std::string why = mma_sync_shortfall(turing, 1024, 64, Pass::kForward);
  EXPECT_NE(why.find("sm_75"), std::string::npos) << why;
}

TEST(MmaSyncFit, CarveoutFromTheEnvironment) {
  ASSERT_EQ(unsetenv("LCAB_FLASH_SMEM_CARVEOUT"), 0);
  EXPECT_EQ(forced_smem_carveout_percent(), -1);
  ASSERT_EQ(setenv("LCAB_FLASH_SMEM_CARVEOUT", "71", 1), 0);
  EXPECT_EQ(forced_smem_carveout_percent(), 71);
  ASSERT_EQ(setenv("LCAB_FLASH_SMEM_CARVEOUT", "0", 1), 0);
  EXPECT_EQ(forced_smem_carveout_percent(), 0);
  for (const char* bad : {"101", "-1", "70%", "x"}) {
    ASSERT_EQ(setenv("LCAB_FLASH_SMEM_CARVEOUT", bad, 1), 0);
    EXPECT_THROW(forced_smem_carveout_percent(), Error) << bad;
  }
  ASSERT_EQ(unsetenv("LCAB_FLASH_SMEM_CARVEOUT"), 0);
}

}  // namespace
}  // namespace lcab::kernels::flash
