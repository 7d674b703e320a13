// A position in a kStages-deep ring of shared-memory stages that a pipeline fills and drains one stage per step
// (the Hopper backward's Q/dO ring): the stage a step uses, the parity of that stage's fill (the mbarrier phase the
// step waits on) and the parity of the steps so far (which of two alternating buffers the step writes). Counted
// (kCounted: a stage and a fill parity kept in registers, advanced per step) or derived from a step count; both
// give the same positions (tests/kernels/ring_slot_test.cpp), and which one a kernel compiles better is measured
// (Sm90BackwardConfig::kCountedRing).
#pragma once

#if defined(__CUDACC__)
#define LCAB_RING_SLOT_FN __host__ __device__ __forceinline__
#else
#define LCAB_RING_SLOT_FN inline
#endif

namespace lcab::kernels {

template <int kStages, bool kCounted>
struct RingSlot;

template <int kStages>
struct RingSlot<kStages, false> {
  int use = 0;
  LCAB_RING_SLOT_FN void advance() { ++use; }
  LCAB_RING_SLOT_FN int stage() const { return use % kStages; }
  LCAB_RING_SLOT_FN int phase() const { return (use / kStages) & 1; }
  LCAB_RING_SLOT_FN int step_parity() const { return use % 2; }
  LCAB_RING_SLOT_FN bool first() const { return use == 0; }  // (the derived form only)
  LCAB_RING_SLOT_FN int previous_stage() const { return (use - 1) % kStages; }
};

template <int kStages>
struct RingSlot<kStages, true> {
  static_assert(kStages == 2 || kStages % 2 == 1, "the step parity below needs an odd stage count, or 2");
  int stage_ = 0;
  int phase_ = 0;
  LCAB_RING_SLOT_FN void advance() {
    if (++stage_ == kStages) {
      stage_ = 0;
      phase_ ^= 1;
    }
  }
  LCAB_RING_SLOT_FN int stage() const { return stage_; }
  LCAB_RING_SLOT_FN int phase() const { return phase_; }
  /// The steps so far are stage + kStages x fills.
  LCAB_RING_SLOT_FN int step_parity() const { return kStages % 2 == 1 ? (stage_ ^ phase_) & 1 : stage_ & 1; }
  LCAB_RING_SLOT_FN int previous_stage() const { return stage_ == 0 ? kStages - 1 : stage_ - 1; }
};

}  // namespace lcab::kernels

#undef LCAB_RING_SLOT_FN
