// Small hand-made profiles for the performance-model tests: round numbers so that expected values can be
// computed by hand.
#pragma once

#include "model/perf/profile.h"

namespace lcab::perf::testing {

inline Sourced given(double value) { return {value, "test value"}; }

inline KernelParams simple_kernel(std::string pass = "fwd", KernelScheduler scheduler =
                                      KernelScheduler::kPersistentLongestFirst) {
  KernelParams k;
  k.impl = "test_impl";
  k.pass = std::move(pass);
  k.head_dim = 128;
  k.dtype = "bf16";
  k.tile = {128, 128};
  k.scheduler = scheduler;
  k.ctas_per_sm = given(1);
  k.full_tile_us = given(1.0);
  k.partial_tile_us = given(2.0);
  k.row_us = given(0.5);
  k.launch_us = given(3.0);
  return k;
}

/// 4 SMs, 1 us per full tile, NVLink 100 GB/s with 10 us latency, network 10 GB/s with 20 us latency.
inline HardwareProfile simple_profile() {
  HardwareProfile p;
  p.name = "test";
  p.provenance.kind = "datasheet";
  p.gpu.name = "test gpu";
  p.gpu.sms = given(4);
  p.gpu.peak_dense_flops_per_s = given(1e15);
  p.gpu.hbm_bytes_per_s = given(3e12);
  p.gpu.memory_bytes = given(80e9);
  p.node.gpus_per_node = given(8);
  p.node.intra_bytes_per_s = given(100e9);
  p.node.intra_latency_us = given(1);
  p.network.bytes_per_s = given(10e9);
  p.network.latency_us = given(2);
  p.overlap_slowdown = given(1.0);
  p.kernels.push_back(simple_kernel("fwd"));
  p.kernels.push_back(simple_kernel("bwd"));
  for (CollectiveOp op : kAllCollectiveOps) {
    p.collectives.push_back({op, LinkClass::kIntraNode, given(10), given(100e9), {}});
    p.collectives.push_back({op, LinkClass::kInterNode, given(20), given(10e9), {}});
  }
  return p;
}

}  // namespace lcab::perf::testing
