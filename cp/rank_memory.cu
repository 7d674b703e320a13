#include "cp/rank_memory.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>


#include "kernels/cuda_check.h"

namespace lcab::cp {
namespace {

bool is_accumulator(BufferRole role) {
  return role == BufferRole::kOut || role == BufferRole::kDQ || role == BufferRole::kDKV;
}

int64_t total_elements(const Buffer& b) { return b.tensors * b.tokens * b.heads * b.head_dim; }

}  // namespace

void* DeviceBuffer::primary_at(int tensor, int64_t row) const {
  const int64_t offset = is_lse() ? row : tensor * tensor_elements() + row * row_elements();
  return static_cast<char*>(primary) + offset * element_bytes(type);
}

float* DeviceBuffer::shadow_at(int tensor, int64_t row) const {
  return shadow ? shadow + tensor * tensor_elements() + row * row_elements() : nullptr;
}

float* DeviceBuffer::accum_at(int tensor, int64_t row) const {
  return type == ElementType::kFp32 ? static_cast<float*>(primary_at(tensor, row)) : shadow_at(tensor, row);
}

void* DeviceBuffer::narrow_at(int tensor, int64_t row) const {
  if (type != ElementType::kFp32) return primary_at(tensor, row);
  if (!narrow) return nullptr;
  return static_cast<char*>(narrow) + (tensor * tensor_elements() + row * row_elements()) * element_bytes(dtype);
}

RankMemory::RankMemory(int device, ElementType dtype) : device_(device), dtype_(dtype) {
  LCAB_CHECK(dtype != ElementType::kFp32, "the workload dtype of CP buffers is bf16 or fp16");
}

RankMemory::~RankMemory() {
  cudaSetDevice(device_);
  for (auto& [name, buffer] : buffers_) {
    cudaFree(buffer->primary);
    cudaFree(buffer->shadow);
    cudaFree(buffer->narrow);
  }
}

DeviceBuffer& RankMemory::bind(const Buffer& desc) {
  auto it = buffers_.find(desc.name);
  if (it != buffers_.end()) {
    const Buffer& have = it->second->desc;
    LCAB_CHECK(have.tokens == desc.tokens && have.heads == desc.heads && have.head_dim == desc.head_dim &&
                   have.tensors == desc.tensors && have.element_bytes == desc.element_bytes &&
                   have.role == desc.role,
               "buffer '" << desc.name << "' is bound twice with different shapes (" << have.tokens << "x"
                          << have.heads << "x" << have.head_dim << " and " << desc.tokens << "x" << desc.heads
                          << "x" << desc.head_dim << ")");
    return *it->second;
  }
  LCAB_CHECK(desc.element_bytes == 2 || desc.element_bytes == 4,
             "buffer '" << desc.name << "' has " << desc.element_bytes << "-byte elements; valid: 2 or 4");
  auto buffer = std::make_unique<DeviceBuffer>();
  buffer->desc = desc;
  const bool lse = desc.role == BufferRole::kLse;
  buffer->type = (lse || desc.element_bytes == 4) ? ElementType::kFp32 : dtype_;
  LCAB_CUDA_CHECK(cudaSetDevice(device_));
  const size_t elements = static_cast<size_t>(total_elements(desc));
  const size_t primary_bytes = elements * static_cast<size_t>(element_bytes(buffer->type));
  if (primary_bytes > 0) {
    LCAB_CUDA_CHECK(cudaMalloc(&buffer->primary, primary_bytes));
    LCAB_CUDA_CHECK(cudaMemset(buffer->primary, 0, primary_bytes));
    allocated_bytes_ += static_cast<int64_t>(primary_bytes);
  }
  if (is_accumulator(desc.role) && buffer->type != ElementType::kFp32 && elements > 0) {
    LCAB_CUDA_CHECK(cudaMalloc(&buffer->shadow, elements * sizeof(float)));
    LCAB_CUDA_CHECK(cudaMemset(buffer->shadow, 0, elements * sizeof(float)));
    allocated_bytes_ += static_cast<int64_t>(elements * sizeof(float));
  }
  if (desc.role == BufferRole::kOut && buffer->type == ElementType::kFp32 && elements > 0) {
    LCAB_CUDA_CHECK(cudaMalloc(&buffer->narrow, elements * element_bytes(dtype_)));
    LCAB_CUDA_CHECK(cudaMemset(buffer->narrow, 0, elements * element_bytes(dtype_)));
    allocated_bytes_ += static_cast<int64_t>(elements * element_bytes(dtype_));
  }
  buffer->dtype = dtype_;
  DeviceBuffer& ref = *buffer;
  buffers_.emplace(desc.name, std::move(buffer));
  return ref;
}

DeviceBuffer& RankMemory::find(const std::string& name) {
  auto it = buffers_.find(name);
  if (it == buffers_.end()) {
    std::string names;
    for (const auto& [n, b] : buffers_) names += (names.empty() ? "" : ", ") + n;
    LCAB_THROW("no CP buffer named '" << name << "' on this rank; bound: " << names);
  }
  return *it->second;
}

std::vector<float> RankMemory::download(const std::string& name, int tensor) {
  DeviceBuffer& b = find(name);
  LCAB_CHECK(tensor >= 0 && tensor < b.desc.tensors, "buffer '" << name << "' has no tensor " << tensor);
  const int64_t count = b.is_lse() ? b.desc.tokens * b.desc.heads : b.tensor_elements();
  std::vector<float> values(static_cast<size_t>(count));
  LCAB_CUDA_CHECK(cudaSetDevice(device_));
  LCAB_CUDA_CHECK(cudaDeviceSynchronize());
  if (b.type == ElementType::kFp32) {
    LCAB_CUDA_CHECK(cudaMemcpy(values.data(), b.primary_at(tensor, 0), count * sizeof(float),
                                  cudaMemcpyDeviceToHost));
  } else {
    std::vector<uint16_t> bits(values.size());
    LCAB_CUDA_CHECK(cudaMemcpy(bits.data(), b.primary_at(tensor, 0), count * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bits.size(); ++i) values[i] = bits_to_float(bits[i], b.type);
  }
  return values;
}

void RankMemory::upload(const std::string& name, int tensor, const std::vector<float>& values) {
  DeviceBuffer& b = find(name);
  LCAB_CHECK(tensor >= 0 && tensor < b.desc.tensors, "buffer '" << name << "' has no tensor " << tensor);
  const int64_t count = b.is_lse() ? b.desc.tokens * b.desc.heads : b.tensor_elements();
  LCAB_CHECK(static_cast<int64_t>(values.size()) == count,
             "upload to '" << name << "' of " << values.size() << " values; it holds " << count);
  LCAB_CUDA_CHECK(cudaSetDevice(device_));
  if (b.type == ElementType::kFp32) {
    LCAB_CUDA_CHECK(cudaMemcpy(b.primary_at(tensor, 0), values.data(), count * sizeof(float),
                                  cudaMemcpyHostToDevice));
  } else {
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < bits.size(); ++i) bits[i] = float_to_bits(values[i], b.type);
    LCAB_CUDA_CHECK(cudaMemcpy(b.primary_at(tensor, 0), bits.data(), count * 2, cudaMemcpyHostToDevice));
  }
  if (b.shadow)
    LCAB_CUDA_CHECK(cudaMemcpy(b.shadow_at(tensor, 0), values.data(), count * sizeof(float),
                                  cudaMemcpyHostToDevice));
}

uint16_t float_to_bits(float value, ElementType type) {
  if (type == ElementType::kFp16) return static_cast<__half_raw>(__float2half_rn(value)).x;
  return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(value)).x;
}

float bits_to_float(uint16_t bits, ElementType type) {
  if (type == ElementType::kFp16) {
    __half_raw raw;
    raw.x = bits;
    return __half2float(__half(raw));
  }
  __nv_bfloat16_raw raw;
  raw.x = bits;
  return __bfloat162float(__nv_bfloat16(raw));
}

}  // namespace lcab::cp
