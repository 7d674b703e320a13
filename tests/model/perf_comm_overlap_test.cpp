// The definition of communication time, exposed communication and hidden fraction (model/perf/comm_overlap.h)
// on constructed timelines.
#include "model/perf/comm_overlap.h"

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "model/cp/cp_method.h"
#include "model/mask_spec.h"

namespace lcab::perf {
namespace {

TEST(PerfCommOverlap, ExposedIsTransferTimeWithoutCompute) {
  // compute 0..2 and 3..5; transfers 1..4 (1..2 hidden, 2..3 exposed, 3..4 hidden), 1.5..3.5 (inside the first:
  // counted once) and 6..7 (exposed)
  const CommOverlap split = comm_overlap({{0, 2}, {3, 5}}, {{1, 4}, {1.5, 3.5}, {6, 7}});
  EXPECT_DOUBLE_EQ(split.compute, 4.0);
  EXPECT_DOUBLE_EQ(split.comm, 4.0);
  EXPECT_DOUBLE_EQ(split.exposed, 2.0);
  const CommOverlap none = comm_overlap({{0, 1}}, {});
  EXPECT_DOUBLE_EQ(none.comm, 0.0);
  EXPECT_DOUBLE_EQ(none.exposed, 0.0);
}

TEST(PerfCommOverlap, HiddenFractionSumsOverRanks) {
  const std::vector<CommOverlap> ranks = {{4, 4, 2}, {4, 2, 0}};
  EXPECT_DOUBLE_EQ(hidden_fraction(ranks), 1.0 - 2.0 / 6.0);
  EXPECT_DOUBLE_EQ(hidden_fraction(std::vector<CommOverlap>{{1, 0, 0}}), 1.0);
  EXPECT_DOUBLE_EQ(hidden_fraction(std::vector<CommOverlap>{{0, 3, 3}}), 0.0);
}

cp::CpConfig two_gpus(const std::string& method) {
  cp::CpConfig c;
  c.method = method;
  c.gpus = 2;
  c.workload.mask = std::make_shared<Mask>(make_mask("full", 1024, 8));
  c.workload.heads = 8;
  c.workload.kv_heads = 8;
  return c;
}

// Op intervals of every rank, all ops of rank r given `fill(r, k)`.
template <class Fill>
std::vector<std::vector<TimeInterval>> intervals_of(const cp::Schedule& s, Fill fill) {
  std::vector<std::vector<TimeInterval>> ops(s.gpus());
  for (int r = 0; r < s.gpus(); ++r)
    for (size_t k = 0; k < s.ranks[r].ops.size(); ++k) ops[r].push_back(fill(r, static_cast<int>(k)));
  return ops;
}

TEST(PerfCommOverlap, SendRecvTransfersStartWhenBothSidesHaveArrived) {
  // ring forward at P = 2: send kv, recv kv, compute, compute on each rank
  const cp::Schedule s = cp::build_schedule(two_gpus("ring"), cp::Pass::kForward);
  ASSERT_EQ(s.ranks[0].ops.size(), 4u);
  ASSERT_EQ(s.ranks[0].ops[0].kind, cp::OpKind::kSend);
  ASSERT_EQ(s.ranks[0].ops[1].kind, cp::OpKind::kRecv);
  // rank 0 arrives at 0, rank 1 at 1.5 (its send) and 1 (its receive); everything ends at 3
  const auto ops = intervals_of(s, [](int r, int k) {
    if (k >= 2) return TimeInterval{3, 4};
    return TimeInterval{r == 0 ? 0.0 : (k == 0 ? 1.5 : 1.0), 3};
  });
  const std::vector<TimeInterval> zero = transfer_intervals(s, ops, 0);
  ASSERT_EQ(zero.size(), 2u);
  EXPECT_DOUBLE_EQ(zero[0].begin, 1.0);  // rank 0's send meets rank 1's receive
  EXPECT_DOUBLE_EQ(zero[1].begin, 1.5);  // rank 0's receive meets rank 1's send
  EXPECT_DOUBLE_EQ(zero[1].end, 3.0);
  const std::vector<TimeInterval> one = transfer_intervals(s, ops, 1);
  EXPECT_DOUBLE_EQ(one[0].begin, 1.5);
  EXPECT_DOUBLE_EQ(one[1].begin, 1.0);
}

TEST(PerfCommOverlap, CollectivesStartWhenEveryMemberHasArrived) {
  const cp::Schedule s = cp::build_schedule(two_gpus("ulysses"), cp::Pass::kForward);
  // every all-to-all: member 0 arrives at 10 x its op index, member 1 five later
  const auto ops = intervals_of(s, [](int r, int k) { return TimeInterval{10.0 * k + 5.0 * r, 10.0 * k + 8}; });
  for (int r = 0; r < 2; ++r) {
    const std::vector<TimeInterval> transfers = transfer_intervals(s, ops, r);
    size_t n = 0;
    for (size_t k = 0; k < s.ranks[r].ops.size(); ++k) {
      if (!cp::is_communication(s.ranks[r].ops[k].kind)) continue;
      ASSERT_LT(n, transfers.size());
      EXPECT_DOUBLE_EQ(transfers[n].begin, 10.0 * static_cast<double>(k) + 5.0) << "rank " << r << " op " << k;
      EXPECT_DOUBLE_EQ(transfers[n].end, 10.0 * static_cast<double>(k) + 8.0);
      ++n;
    }
    EXPECT_EQ(n, transfers.size());
  }
}

}  // namespace
}  // namespace lcab::perf
