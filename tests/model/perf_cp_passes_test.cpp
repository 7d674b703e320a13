// The CP executor's memory passes the simulator adds: around compute items (cp_item_passes.h) and around
// all-to-alls (a2a_staging.h), against their closed forms.
#include "model/perf/a2a_staging.h"
#include "model/perf/cp_item_passes.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace lcab::perf {
namespace {

cp::ComputeItem item(int64_t q_rows, int64_t q_heads, int64_t k_rows, int64_t kv_heads) {
  cp::ComputeItem it;
  it.q_rows = {0, q_rows};
  it.q_heads = {0, q_heads};
  it.k_rows = {0, k_rows};
  it.kv_heads = {0, kv_heads};
  return it;
}

TEST(PerfCpPasses, ComputeItemMergeAndAccumulateBytes) {
  cp::Workload w;
  w.head_dim = 128;
  w.dtype_bytes = 2;
  const cp::ComputeItem it = item(1024, 8, 2048, 2);
  const double q_elements = 1024.0 * 8 * 128, k_elements = 2048.0 * 2 * 128;
  // forward: read partial (2) + read and write fp32 (8) + write mirror (2)
  EXPECT_DOUBLE_EQ(cp_item_pass_bytes(it, cp::Pass::kForward, w), q_elements * 12);
  // backward: zero the partial (2) and accumulate it (12), for dQ and for dK and dV
  EXPECT_DOUBLE_EQ(cp_item_pass_bytes(it, cp::Pass::kBackward, w), (q_elements + 2 * k_elements) * 14);
  w.batch = 2;
  EXPECT_DOUBLE_EQ(cp_item_pass_us(it, cp::Pass::kForward, w, 1e12), 2 * q_elements * 12 / 1e12 * 1e6);
  EXPECT_THROW(cp_item_pass_us(it, cp::Pass::kForward, w, 0), Error);
}

TEST(PerfCpPasses, AllToAllStagingByLayoutAndBufferType) {
  cp::Schedule s;
  s.config.workload.dtype_bytes = 2;
  s.buffers.resize(2);
  s.buffers[0].role = cp::BufferRole::kQ;
  s.buffers[1].role = cp::BufferRole::kOut;  // an fp32 accumulator in the executor
  cp::CommOp c;
  c.chunk_bytes = 1000;  // per pair; 4 members: 4000 B = 2000 elements in the send buffer
  c.src.buffer = 0;
  c.dst.buffer = 0;
  c.layout = cp::A2ALayout::kSeqToHead;  // q: pack only
  EXPECT_DOUBLE_EQ(a2a_staging_bytes(s, c, 4), 2000.0 * 4);
  c.src.buffer = 1;
  c.dst.buffer = 1;
  c.layout = cp::A2ALayout::kHeadToSeq;  // out: convert (4 + 2), unpack (2 + 2), convert back (2 + 4)
  EXPECT_DOUBLE_EQ(a2a_staging_bytes(s, c, 4), 2000.0 * 16);
  c.layout = cp::A2ALayout::kNone;
  c.src.buffer = 0;
  c.dst.buffer = 0;
  EXPECT_DOUBLE_EQ(a2a_staging_bytes(s, c, 4), 0.0);
  EXPECT_DOUBLE_EQ(a2a_staging_us(s, c, 4, 1e12), 0.0);
}

}  // namespace
}  // namespace lcab::perf
