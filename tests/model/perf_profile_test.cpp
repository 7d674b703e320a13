#include "model/perf/profile.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "model/error.h"
#include "tests/model/perf_test_profiles.h"

namespace lcab::perf {
namespace {

TEST(PerfProfile, BuiltinProfilesLoadAndCarrySources) {
  for (const std::string& name : builtin_profile_names()) {
    const HardwareProfile& p = builtin_profile(name);
    EXPECT_EQ(p.name, name);
    EXPECT_EQ(p.sms(), 132);
    EXPECT_EQ(p.gpu.peak_dense_flops_per_s.value, 989e12);
    EXPECT_FALSE(p.gpu.peak_dense_flops_per_s.source.empty());
    for (const std::string impl : {"lcab_flash", "torch_sdpa_flash", "torch_sdpa_cudnn", "torch_flex", "cudnn"}) {
      for (const std::string pass : {"fwd", "bwd"}) {
        const KernelParams& k = p.kernel(impl, pass, 128, "bf16");
        EXPECT_GT(k.full_tile_us.value, 0) << impl;
        EXPECT_FALSE(k.full_tile_us.source.empty());
      }
    }
  }
  EXPECT_GT(builtin_profile("h200_sxm").gpu.hbm_bytes_per_s.value,
            builtin_profile("h100_sxm").gpu.hbm_bytes_per_s.value);
}

TEST(PerfProfile, UnknownNamesListTheValidOnes) {
  try {
    builtin_profile("a100");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("h100_sxm"), std::string::npos);
  }
  const HardwareProfile& p = builtin_profile("h100_sxm");
  try {
    p.kernel("flash9", "fwd", 128, "bf16");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lcab_flash"), std::string::npos) << e.what();
  }
  try {
    p.kernel("lcab_flash", "fwd", 96, "bf16");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("64, 128, 256"), std::string::npos) << e.what();
  }
}

TEST(PerfProfile, FitBasisSaysPerPassAndLinkWhatWasFittedToMeasurements) {
  HardwareProfile p = testing::simple_profile();  // test_impl bf16 hd 128, fwd and bwd; no entry fitted
  EXPECT_EQ(describe_fit_basis(p, "test_impl", "bf16", 128, {"fwd", "bwd"}),
            "test_impl bf16 hd 128: fwd, bwd from the datasheet; collectives: intra-node, inter-node from the "
            "datasheet");
  p.kernels[1].fit = {{"records", 12}};  // bwd fitted
  int fitted_intra = 0;
  for (CollectiveParams& c : p.collectives) {
    if (c.link == LinkClass::kIntraNode) c.fit = {{"records", 3}}, ++fitted_intra;
  }
  ASSERT_GT(fitted_intra, 1);
  EXPECT_EQ(describe_fit_basis(p, "test_impl", "bf16", 128, {"fwd", "bwd"}),
            "test_impl bf16 hd 128: fwd from the datasheet, bwd fitted to measurements; collectives: intra-node "
            "fitted to measurements, inter-node from the datasheet");
  // One inter-node collective fitted of several; a pass and a dtype with no entry.
  for (CollectiveParams& c : p.collectives) {
    if (c.link == LinkClass::kInterNode) {
      c.fit = {{"records", 1}};
      break;
    }
  }
  const int inter = static_cast<int>(std::count_if(p.collectives.begin(), p.collectives.end(), [](const auto& c) {
    return c.link == LinkClass::kInterNode;
  }));
  EXPECT_EQ(describe_fit_basis(p, "test_impl", "fp16", 128, {"bwd"}),
            "test_impl fp16 hd 128: bwd (no entry); collectives: intra-node fitted to measurements, inter-node partly "
            "fitted (1 of " + std::to_string(inter) + " collectives)");
}

TEST(PerfProfile, SaveLoadRoundTrip) {
  HardwareProfile p = testing::simple_profile();
  p.provenance.kind = "calibrated";
  p.provenance.inputs = {"a.jsonl", "b.jsonl"};
  p.provenance.residuals = {{"kernel_mape", 3.5}};
  p.kernels[0].fit = {{"points", 12}};
  p.kernels[0].slice_us = Sourced{0.1, "test"};
  p.kernels[0].kv_tile_us = Sourced{0.4, "test"};
  p.kernels[0].kv_expand_bytes_per_element = Sourced{4.5, "test"};
  p.kernels[0].sustained_slowdown = Sourced{0.2, "test"};
  p.kernels[0].sustained_rate_per_us = Sourced{1e-4, "test"};
  p.kernels[0].host_floor_us = Sourced{120, "test"};
  p.kernels[0].tail_pass_bytes_per_element = Sourced{6, "test"};
  p.kernels[0].scheduler = KernelScheduler::kGridLongItemsFirst;
  p.kernels[1].scheduler = KernelScheduler::kGridCostliestFirst;
  p.kernels[1].whole_sequence_band = true;
  p.collectives[2].small_group_us_per_byte = Sourced{2e-6, "test"};
  const std::string path = (std::filesystem::temp_directory_path() / "lcab_profile_roundtrip.json").string();
  save_profile(p, path);
  const HardwareProfile back = load_profile(path);
  std::remove(path.c_str());
  EXPECT_EQ(to_json(back), to_json(p));
  EXPECT_EQ(back.provenance.inputs.size(), 2u);
  EXPECT_EQ(back.kernels[0].fit["points"], 12);
  EXPECT_DOUBLE_EQ(back.kernels[0].kv_tile_us->value, 0.4);
  EXPECT_FALSE(back.kernels[1].slice_us.has_value());  // absent: the kernel has no such term
  EXPECT_DOUBLE_EQ(back.kernels[0].kv_expand_bytes_per_element->value, 4.5);
  EXPECT_DOUBLE_EQ(back.kernels[0].sustained_rate_per_us->value, 1e-4);
  EXPECT_DOUBLE_EQ(back.kernels[0].host_floor_us->value, 120);
  EXPECT_DOUBLE_EQ(back.kernels[0].tail_pass_bytes_per_element->value, 6);
  EXPECT_FALSE(back.kernels[1].tail_pass_bytes_per_element.has_value());  // absent: no pass in the grid's tail
  EXPECT_FALSE(back.kernels[1].has_sustained_clocks());
  EXPECT_EQ(back.kernels[0].scheduler, KernelScheduler::kGridLongItemsFirst);
  EXPECT_EQ(back.kernels[1].scheduler, KernelScheduler::kGridCostliestFirst);
  EXPECT_TRUE(back.kernels[1].whole_sequence_band);
  EXPECT_EQ(back.collective(CollectiveOp::kAllGather, LinkClass::kInterNode).bytes_per_s.value, 10e9);
  EXPECT_DOUBLE_EQ(back.collectives[2].small_group_us_per_byte.value, 2e-6);
  EXPECT_EQ(back.collectives[3].small_group_us_per_byte.value, 0);  // absent: no group-size term
}

TEST(PerfProfile, RejectsNumbersWithoutSourceOrOutOfRange) {
  nlohmann::json j = to_json(testing::simple_profile());
  j["gpu"]["sms"] = 132;
  EXPECT_THROW(profile_from_json(j), Error);
  j = to_json(testing::simple_profile());
  j["overlap_slowdown"]["value"] = 0.5;
  EXPECT_THROW(profile_from_json(j), Error);
  j = to_json(testing::simple_profile());
  j["kernels"][0]["full_tile_us"]["value"] = -1;
  EXPECT_THROW(profile_from_json(j), Error);
  j = to_json(testing::simple_profile());
  j["kernels"][0]["slice_us"] = {{"value", -0.1}, {"source", "test"}};
  EXPECT_THROW(profile_from_json(j), Error);
  j = to_json(testing::simple_profile());
  j["kernels"][0]["host_floor_us"] = {{"value", -1}, {"source", "test"}};
  EXPECT_THROW(profile_from_json(j), Error);
  j = to_json(testing::simple_profile());
  j["kernels"][0]["sustained_slowdown"] = {{"value", 0.1}, {"source", "test"}};  // without its rate
  EXPECT_THROW(profile_from_json(j), Error);
  j = to_json(testing::simple_profile());
  j["collectives"][0]["small_group_us_per_byte"] = {{"value", -1e-6}, {"source", "test"}};
  EXPECT_THROW(profile_from_json(j), Error);
  j = to_json(testing::simple_profile());
  j["collectives"].erase(0);
  EXPECT_THROW(profile_from_json(j), Error);
  j = to_json(testing::simple_profile());
  j["schema"] = "lcab.profile/0";
  EXPECT_THROW(profile_from_json(j), Error);
  try {
    j = to_json(testing::simple_profile());
    j["kernels"][1].erase("row_us");
    profile_from_json(j);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernels[1].row_us"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lcab::perf
