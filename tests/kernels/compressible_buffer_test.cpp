// CompressibleBuffer on a GPU: what the driver grants, that data survives compression (zeros and incompressible
// bytes, overwritten in turn as the dQ accumulator is), the mapping's size and the move operations. Skips without a
// GPU.
#include "kernels/compressible_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <random>
#include <utility>
#include <vector>

#include "tests/kernels/gpu_test_support.h"

namespace lcab::kernels {
namespace {

using testing::check;
using testing::gpu_available;

// Random bytes (incompressible), then zeros, then random bytes again: each read back whole.
void expect_round_trips(const CompressibleBuffer& buffer) {
  std::mt19937_64 rng(7);
  const size_t words = buffer.bytes() / sizeof(uint64_t);
  for (int round = 0; round < 2; ++round) {
    std::vector<uint64_t> host(words);
    for (uint64_t& word : host) word = rng();
    check(cudaMemcpy(buffer.as<void>(), host.data(), words * sizeof(uint64_t), cudaMemcpyHostToDevice), "upload");
    std::vector<uint64_t> back(words, 0);
    check(cudaMemcpy(back.data(), buffer.as<void>(), words * sizeof(uint64_t), cudaMemcpyDeviceToHost), "download");
    ASSERT_EQ(back, host) << "round " << round;
    check(cudaMemset(buffer.as<void>(), 0, buffer.bytes()), "zero");
    check(cudaMemcpy(back.data(), buffer.as<void>(), words * sizeof(uint64_t), cudaMemcpyDeviceToHost), "download");
    ASSERT_EQ(back, std::vector<uint64_t>(words, 0)) << "round " << round;
  }
}

TEST(CompressibleBuffer, CompressibleHoldsItsData) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  const bool supported = CompressibleBuffer::device_supports_compression();
  const size_t bytes = 3 * 1024 * 1024 + 40;  // not a multiple of the 2 MiB granularity
  CompressibleBuffer buffer(bytes);
  std::cout << "[ INFO     ] compression supported " << supported << ", granted " << buffer.compressed()
            << ", reserved " << buffer.reserved_bytes() << " bytes\n";
  ::testing::Test::RecordProperty("compression_granted", buffer.compressed() ? "1" : "0");
  EXPECT_NE(buffer.as<void>(), nullptr);
  EXPECT_EQ(buffer.bytes(), bytes);
  if (!supported) {
    EXPECT_FALSE(buffer.compressed());
  }
  if (buffer.compressed()) {
    EXPECT_GE(buffer.reserved_bytes(), bytes);
    EXPECT_EQ(buffer.reserved_bytes() % (2 * 1024 * 1024), 0u) << "the mapping is whole granules";
  } else {
    EXPECT_EQ(buffer.reserved_bytes(), bytes);
  }
  expect_round_trips(buffer);
}

// The accumulator of a 32K backward with 64 q heads of 128 is 1 GiB: granted as a small buffer is, and usable.
TEST(CompressibleBuffer, AccumulatorSizedBufferIsGrantedAsASmallOne) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  const bool small_granted = CompressibleBuffer(1 << 20).compressed();
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const size_t bytes = size_t{1} << 30;
  if (free_bytes < 2 * bytes) GTEST_SKIP() << "less than 2 GiB free";
  CompressibleBuffer buffer(bytes);
  std::cout << "[ INFO     ] 1 GiB: granted " << buffer.compressed() << "\n";
  EXPECT_EQ(buffer.compressed(), small_granted);
  check(cudaMemset(buffer.as<void>(), 0, bytes), "zero");
  std::vector<float> tail(1024, 1.f);
  check(cudaMemcpy(tail.data(), buffer.as<char>() + bytes - tail.size() * sizeof(float), tail.size() * sizeof(float),
                   cudaMemcpyDeviceToHost),
        "download");
  EXPECT_EQ(tail, std::vector<float>(1024, 0.f));
}

TEST(CompressibleBuffer, PlainIsNeverCompressed) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  CompressibleBuffer buffer(1 << 20, CompressibleBuffer::Request::kPlain);
  EXPECT_FALSE(buffer.compressed());
  EXPECT_EQ(buffer.reserved_bytes(), size_t{1} << 20);
  expect_round_trips(buffer);
}

TEST(CompressibleBuffer, MovesHandOverTheMapping) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  CompressibleBuffer first(5 * 1024 * 1024);
  void* const data = first.as<void>();
  const bool compressed = first.compressed();
  CompressibleBuffer second(std::move(first));
  EXPECT_EQ(second.as<void>(), data);
  EXPECT_EQ(second.compressed(), compressed);
  EXPECT_EQ(first.as<void>(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(first.bytes(), 0u);
  CompressibleBuffer third(1 << 20);
  third = std::move(second);  // releases third's own mapping
  EXPECT_EQ(third.as<void>(), data);
  expect_round_trips(third);
}

}  // namespace
}  // namespace lcab::kernels
