#include "model/mask.h"

#include <gtest/gtest.h>

#include "model/error.h"
#include "model/rng.h"
#include "tests/model/brute_force.h"

namespace lcab {
namespace {

int64_t brute_slice_area(const Slice& s) {
  int64_t n = 0;
  for (int64_t q = s.q_begin; q < s.q_end; ++q)
    for (int64_t k = s.k_begin; k < s.k_end; ++k) {
      const int64_t i = q - s.q_begin, j = k - s.k_begin, d = s.k_length() - s.q_length();
      bool on = false;
      switch (s.type) {
        case SliceType::kFull: on = true; break;
        case SliceType::kCausal: on = j <= i + d; break;
        case SliceType::kInvCausal: on = j >= i; break;
        case SliceType::kBiCausal: on = i <= j && j <= i + d; break;
      }
      n += on;
      EXPECT_EQ(on, s.contains(q, k)) << "q=" << q << " k=" << k << " type=" << to_string(s.type);
    }
  return n;
}

TEST(Slice, AreaMatchesDefinitionForEveryTypeAndShape) {
  for (SliceType t : {SliceType::kFull, SliceType::kCausal, SliceType::kInvCausal, SliceType::kBiCausal}) {
    for (int64_t lq = 1; lq <= 9; ++lq) {
      for (int64_t lk = 1; lk <= 9; ++lk) {
        const Slice s{3, 3 + lq, 5, 5 + lk, t};
        EXPECT_EQ(s.area(), brute_slice_area(s)) << to_string(t) << " " << lq << "x" << lk;
      }
    }
  }
}

TEST(Slice, ClosedForms) {
  EXPECT_EQ((Slice{0, 100, 0, 100, SliceType::kCausal}.area()), 100 * 101 / 2);
  EXPECT_EQ((Slice{0, 100, 0, 100, SliceType::kInvCausal}.area()), 100 * 101 / 2);
  EXPECT_EQ((Slice{0, 100, 0, 100, SliceType::kBiCausal}.area()), 100);
  EXPECT_EQ((Slice{0, 10, 0, 30, SliceType::kBiCausal}.area()), 10 * 21);
  EXPECT_EQ((Slice{0, 30, 0, 10, SliceType::kBiCausal}.area()), 0);
  // causal with Lk < Lq: bottom-right aligned, the first Lq - Lk rows see nothing
  EXPECT_EQ((Slice{0, 30, 0, 10, SliceType::kCausal}.area()), 10 * 11 / 2);
  EXPECT_EQ((Slice{0, 1'000'000, 0, 1'000'000, SliceType::kCausal}.area()), int64_t{1'000'000} * 1'000'001 / 2);
}

TEST(SliceType, ParseAndPrint) {
  for (SliceType t : {SliceType::kFull, SliceType::kCausal, SliceType::kInvCausal, SliceType::kBiCausal})
    EXPECT_EQ(parse_slice_type(to_string(t)), t);
  try {
    parse_slice_type("diagonal");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("valid: full, causal, invcausal, bicausal"), std::string::npos);
  }
}

TEST(Mask, RejectsOutOfRangeEmptyAndOverlappingSlices) {
  EXPECT_THROW(Mask(10, {{0, 11, 0, 10, SliceType::kFull}}), Error);
  EXPECT_THROW(Mask(10, {{-1, 5, 0, 10, SliceType::kFull}}), Error);
  EXPECT_THROW(Mask(10, {{5, 5, 0, 10, SliceType::kFull}}), Error);
  EXPECT_THROW(Mask(10, {{0, 5, 0, 5, SliceType::kFull}, {4, 8, 4, 8, SliceType::kFull}}), Error);
  EXPECT_THROW(Mask(10, {{0, 5, 0, 5, static_cast<SliceType>(9)}}), Error);
  EXPECT_THROW(Mask(0, {}), Error);
  // touching rectangles are fine
  EXPECT_NO_THROW(Mask(10, {{0, 5, 0, 5, SliceType::kFull}, {5, 10, 0, 5, SliceType::kFull},
                            {0, 5, 5, 10, SliceType::kCausal}}));
  try {
    Mask(10, {{0, 5, 0, 5, SliceType::kFull}, {2, 3, 4, 6, SliceType::kFull}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
  }
}

TEST(Mask, OverlapCheckAgreesWithBruteForceOnRandomRectangles) {
  Rng rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t s = 16;
    std::vector<Slice> slices;
    const int n = static_cast<int>(rng.uniform_int(1, 6));
    for (int m = 0; m < n; ++m) {
      const int64_t q0 = rng.uniform_int(0, s), q1 = rng.uniform_int(q0 + 1, s + 1);
      const int64_t k0 = rng.uniform_int(0, s), k1 = rng.uniform_int(k0 + 1, s + 1);
      slices.push_back({q0, q1, k0, k1, SliceType::kFull});
    }
    bool overlap = false;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        overlap = overlap || (slices[a].q_begin < slices[b].q_end && slices[b].q_begin < slices[a].q_end &&
                              slices[a].k_begin < slices[b].k_end && slices[b].k_begin < slices[a].k_end);
    if (overlap) EXPECT_THROW(Mask(s, slices), Error);
    else EXPECT_NO_THROW(Mask(s, slices));
  }
}

TEST(Mask, OverlapCheckOnBandedSlicesAgreesWithBruteForce) {
  // Slices in q bands of equal range (the fast path of validate_slices), with random k ranges.
  Rng rng(8);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t s = 24;
    std::vector<Slice> slices;
    for (int64_t q0 = 0; q0 < s; q0 += 8) {
      const int n = static_cast<int>(rng.uniform_int(1, 4));
      for (int m = 0; m < n; ++m) {
        const int64_t k0 = rng.uniform_int(0, s), k1 = rng.uniform_int(k0 + 1, s + 1);
        slices.push_back({q0, q0 + 8, k0, k1, SliceType::kFull});
      }
    }
    bool overlap = false;
    for (size_t a = 0; a < slices.size(); ++a)
      for (size_t b = a + 1; b < slices.size(); ++b)
        overlap = overlap || (slices[a].q_begin == slices[b].q_begin && slices[a].k_begin < slices[b].k_end &&
                              slices[b].k_begin < slices[a].k_end);
    if (overlap) EXPECT_THROW(Mask(s, slices), Error);
    else EXPECT_NO_THROW(Mask(s, slices));
  }
}

TEST(Mask, PerKvHeadAreasAndDense) {
  Mask m = Mask::per_kv_head(8, {{{0, 8, 0, 8, SliceType::kCausal}}, {{0, 8, 0, 8, SliceType::kFull}}});
  EXPECT_TRUE(m.is_per_kv_head());
  EXPECT_EQ(m.num_head_masks(), 2);
  EXPECT_EQ(m.area(0), 36);
  EXPECT_EQ(m.area(1), 64);
  EXPECT_DOUBLE_EQ(m.mean_area(), 50.0);
  EXPECT_EQ(testing::dense_area(m.dense(0)), 36);
  EXPECT_EQ(testing::dense_area(m.dense(1)), 64);
  EXPECT_THROW(m.slices(2), Error);
}

TEST(Mask, DenseRefusesLargeS) {
  Mask m(Mask::kDenseLimit + 1, {{0, Mask::kDenseLimit + 1, 0, 10, SliceType::kFull}});
  EXPECT_THROW(m.dense(), Error);
}

}  // namespace
}  // namespace lcab
