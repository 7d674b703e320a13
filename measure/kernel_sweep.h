// The points of a kernel sweep: implementations x masks x sequence lengths x passes x shapes, every axis a list
// (`lcab-measure kernel --impl a,b --mask causal,full --seqlen 4k,16k --pass fwd,bwd --heads 64 --kv-heads 8,64`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/record.h"

namespace lcab::measure {

/// The axes of a kernel sweep; every combination is one point.
struct KernelSweepAxes {
  std::vector<std::string> impls;
  std::vector<std::string> masks;  ///< mask spec strings
  std::vector<int64_t> seqlens;
  std::vector<std::string> passes;  ///< "fwd" | "bwd"
  std::vector<int64_t> heads;
  std::vector<int64_t> kv_heads;
  std::vector<int64_t> head_dims;
  std::vector<std::string> dtypes;  ///< "bf16" | "fp16"
  int64_t batch = 1;
};

/// One measurement of a kernel sweep.
struct KernelPoint {
  std::string impl;
  std::string mask;
  int64_t seqlen = 0;
  std::string pass;
  int64_t batch = 1;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  std::string dtype;

  /// The record key of this point (kind "kernel").
  RecordKey key() const;
  /// One line for progress output: "lcab_flash fwd causal S=32K 64/8 hd128 bf16".
  std::string label() const;
};

/// Every combination of the axes, masks outermost (a mask is generated once per sequence length), then
/// sequence lengths, shapes (heads, kv heads, head dim, dtype), passes and implementations. Throws lcab::Error
/// when an axis is empty, a value is out of range (pass, dtype, non-positive sizes) or a (heads, kv_heads) pair
/// is not GQA-compatible (heads % kv_heads != 0).
std::vector<KernelPoint> expand_kernel_sweep(const KernelSweepAxes& axes);

}  // namespace lcab::measure
