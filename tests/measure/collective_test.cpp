#include "measure/comm/collective.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "measure/comm/comm_bench.h"
#include "measure/comm/nccl_bootstrap.h"
#include "measure/device_info.h"
#include "model/error.h"

namespace lcab::measure {
namespace {

TEST(Collectives, RegistryHasTheFiveOperationsAndRejectsOthers) {
  CollectiveRegistry registry;
  register_all(registry);
  EXPECT_EQ(registry.names(),
            (std::vector<std::string>{"send_recv", "all_to_all", "all_gather", "reduce_scatter", "all_reduce"}));
  try {
    registry.find("broadcast");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("valid: send_recv, all_to_all"), std::string::npos);
  }
}

TEST(Collectives, BusFactorsAndBuffersFollowNcclTests) {
  CollectiveRegistry registry;
  register_all(registry);
  EXPECT_DOUBLE_EQ(registry.find("all_reduce").bus_factor(8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(registry.find("all_gather").bus_factor(8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(registry.find("reduce_scatter").bus_factor(4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(registry.find("all_to_all").bus_factor(2), 0.5);
  EXPECT_DOUBLE_EQ(registry.find("send_recv").bus_factor(8), 1.0);
  const size_t mib = 1 << 20;
  EXPECT_EQ(registry.find("all_gather").buffers(mib, 4).send_bytes, mib / 4);
  EXPECT_EQ(registry.find("all_gather").buffers(mib, 4).recv_bytes, mib);
  EXPECT_EQ(registry.find("reduce_scatter").buffers(mib, 4).recv_bytes, mib / 4);
  EXPECT_EQ(registry.find("all_gather").chunk_bytes(mib, 4), mib / 4);
  EXPECT_EQ(registry.find("all_reduce").chunk_bytes(mib, 4), mib);
  // Shares are whole elements: 1000 bytes over 3 ranks -> 996 (3 x 166 bf16).
  EXPECT_EQ(registry.find("all_gather").round_bytes(1000, 3), 996u);
  EXPECT_EQ(registry.find("send_recv").round_bytes(1001, 3), 1000u);
  EXPECT_EQ(registry.find("all_to_all").round_bytes(2, 4), 8u);
}

TEST(NcclBootstrap, IdFileRoundTripChecksTheJob) {
  ncclUniqueId id{};
  for (size_t n = 0; n < sizeof id.internal; ++n) id.internal[n] = static_cast<char>(n * 37 + 1);
  const std::string text = format_unique_id_file("job42", id);
  ncclUniqueId back{};
  ASSERT_TRUE(parse_unique_id_file(text, "job42", back));
  EXPECT_EQ(std::string(back.internal, sizeof back.internal), std::string(id.internal, sizeof id.internal));
  EXPECT_FALSE(parse_unique_id_file(text, "job43", back));
  EXPECT_FALSE(parse_unique_id_file(text.substr(0, text.size() / 2), "job42", back));
  EXPECT_TRUE(parse_unique_id_file(format_unique_id_file("", id), "", back));
}

TEST(NcclBootstrap, NvlsStaysOffUnlessTheUserSetIt) {
  unsetenv("NCCL_NVLS_ENABLE");
  disable_nvls_unless_set();
  EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");
  setenv("NCCL_NVLS_ENABLE", "0", 1);
}

TEST(CommSweep, EveryOperationRunsOnOneGpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  CollectiveRegistry registry;
  register_all(registry);
  CommSweepOptions options;
  options.ops = registry.names();
  options.sizes = {1 << 20};
  options.warmup = 1;
  options.iters = 3;
  const std::vector<CommResult> results = run_comm_sweep_threads(registry, options, {0});
  ASSERT_EQ(results.size(), 5u);
  for (const CommResult& r : results) {
    EXPECT_GT(r.time_ms.median, 0) << r.op;
    EXPECT_EQ(r.bytes, 1 << 20);
    EXPECT_EQ(r.group, "world");
    EXPECT_EQ(r.world_size, 1);
  }
  const Record record = make_comm_record(results[0], DeviceInfo{"gpu", 1, "d"}, make_meta(0, nullptr), "threads");
  EXPECT_EQ(record.kind, "comm");
  EXPECT_EQ(record.key.op, "send_recv");
  EXPECT_EQ(record.key.group, "world");
  EXPECT_EQ(record.key.gpus, 1);
}

}  // namespace
}  // namespace lcab::measure
