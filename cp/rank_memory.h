// Device memory of one rank for the buffers of its CP schedules (model/cp/schedule.h). Host-visible.
//
// Buffers are keyed by name, so a backward schedule finds what the forward pass left (out, lse, the head-split
// q/k/v of Ulysses) in the buffer of the same name. Storage per buffer:
//   primary: [tensors][tokens][heads][head_dim] in the buffer's element type (the workload dtype for 2-byte
//            buffers, fp32 for 4-byte ones; lse is fp32 [heads][tokens]); this is what NCCL moves and kernels read;
//   shadow:  for accumulators (out, dq, dkv) stored in 2 bytes, an fp32 copy of the same shape that every
//            accumulation updates (the primary then holds the fp32 value rounded), so sums stay fp32;
//   narrow:  for outputs (out) stored in fp32, a copy in the workload dtype, kept equal by every merge: what the
//            backward kernels read and what an all-to-all sends when its destination is in dtype.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cp/element_type.h"
#include "model/cp/schedule.h"

namespace lcab::cp {

struct DeviceBuffer {
  Buffer desc;
  ElementType type = ElementType::kBf16;  ///< of the primary
  void* primary = nullptr;
  float* shadow = nullptr;  ///< fp32 accumulator; null when the primary is fp32 or the buffer is no accumulator
  void* narrow = nullptr;   ///< dtype copy of an fp32 output buffer; null otherwise
  ElementType dtype = ElementType::kBf16;  ///< the workload dtype (type of narrow)

  int64_t tensor_elements() const { return desc.tokens * desc.heads * desc.head_dim; }
  int64_t row_elements() const { return desc.heads * desc.head_dim; }
  bool is_lse() const { return desc.role == BufferRole::kLse; }
  /// Primary element (tensor t, row r, first head); for lse buffers rows are columns of [heads][tokens].
  void* primary_at(int tensor, int64_t row) const;
  float* shadow_at(int tensor, int64_t row) const;
  /// The fp32 values accumulations update: the primary when it is fp32, else the shadow (null if none).
  float* accum_at(int tensor, int64_t row) const;
  /// The dtype values kernels read: the primary when it is in dtype, else the narrow copy (null if none).
  void* narrow_at(int tensor, int64_t row) const;
};

class RankMemory {
 public:
  /// `dtype` is the element type of 2-byte buffers (bf16 or fp16).
  RankMemory(int device, ElementType dtype);
  ~RankMemory();
  RankMemory(const RankMemory&) = delete;
  RankMemory& operator=(const RankMemory&) = delete;

  int device() const { return device_; }
  ElementType dtype() const { return dtype_; }
  /// The buffer named desc.name: allocated on first use (zero-filled), reused after; a buffer of the same name
  /// and a different shape is an error.
  DeviceBuffer& bind(const Buffer& desc);
  /// A buffer bound before; throws listing the bound names when unknown.
  DeviceBuffer& find(const std::string& name);
  bool contains(const std::string& name) const { return buffers_.count(name) > 0; }
  /// Device bytes allocated for buffers (primaries and shadows).
  int64_t allocated_bytes() const { return allocated_bytes_; }

  /// Host access (tests, checks), blocking: a whole tensor as floats, or written from floats (rounded to the
  /// buffer's type; an accumulator's shadow receives the same values).
  std::vector<float> download(const std::string& name, int tensor = 0);
  void upload(const std::string& name, int tensor, const std::vector<float>& values);

 private:
  int device_ = 0;
  ElementType dtype_ = ElementType::kBf16;
  std::map<std::string, std::unique_ptr<DeviceBuffer>> buffers_;
  int64_t allocated_bytes_ = 0;
};

/// Round-to-nearest-even float -> bf16/fp16 bits and back, on the host.
uint16_t float_to_bits(float value, ElementType type);
float bits_to_float(uint16_t bits, ElementType type);

}  // namespace lcab::cp
