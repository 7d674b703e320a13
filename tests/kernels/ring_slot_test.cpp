// The Hopper backward's ring positions (kernels/hopper/ring_slot.h): the counted form, which the hd 64 kernel uses,
// against the step count it stands for and against the derived form.
#include "kernels/hopper/ring_slot.h"

#include <gtest/gtest.h>

namespace lcab::kernels {
namespace {

template <int kStages>
void expect_positions_of_the_step_count() {
  RingSlot<kStages, true> counted;
  RingSlot<kStages, false> derived;
  for (int step = 0; step < 10 * kStages + 3; ++step) {
    SCOPED_TRACE(testing::Message() << kStages << " stages, step " << step);
    EXPECT_EQ(counted.stage(), step % kStages);
    EXPECT_EQ(counted.phase(), (step / kStages) & 1);  // a stage's fills alternate the mbarrier's parity
    EXPECT_EQ(counted.step_parity(), step % 2);        // the dS^T buffers alternate per step, whatever the depth
    EXPECT_EQ(derived.stage(), counted.stage());
    EXPECT_EQ(derived.phase(), counted.phase());
    EXPECT_EQ(derived.step_parity(), counted.step_parity());
    EXPECT_EQ(derived.first(), step == 0);
    if (step > 0) {
      EXPECT_EQ(counted.previous_stage(), (step - 1) % kStages);
      EXPECT_EQ(derived.previous_stage(), counted.previous_stage());
    }
    counted.advance();
    derived.advance();
  }
}

TEST(RingSlot, CountedPositionsAreThoseOfTheStepCount) {
  expect_positions_of_the_step_count<2>();
  expect_positions_of_the_step_count<3>();
  expect_positions_of_the_step_count<5>();
}

}  // namespace
}  // namespace lcab::kernels
