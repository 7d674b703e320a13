// A small, portable, seeded random generator (xoshiro256** seeded through splitmix64).
//
// Mask generators must give the same mask for the same seed on every platform and standard library, so lcab
// does not use std::uniform_*_distribution (their algorithms are implementation-defined).
#pragma once

#include <cstdint>

namespace lcab {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  /// Next raw 64-bit value.
  uint64_t next_u64();
  /// Uniform integer in [lo, hi) (hi > lo), unbiased (rejection sampling).
  int64_t uniform_int(int64_t lo, int64_t hi);
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform01();

 private:
  uint64_t state_[4];
};

}  // namespace lcab
