#include "kernels/hopper/tensor_map.h"

#include <cuda_runtime.h>

#include <mutex>

#include "kernels/cuda_check.h"
#include "model/error.h"

namespace lcab::kernels::sm90 {
namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiled encode_tiled() {
  static EncodeTiled function = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult status{};
    LCAB_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault,
                                                     &status));
    LCAB_CHECK(status == cudaDriverEntryPointSuccess && entry != nullptr,
               "the CUDA driver has no cuTensorMapEncodeTiled (needs a driver for CUDA 12 or newer)");
    function = reinterpret_cast<EncodeTiled>(entry);
  });
  return function;
}

}  // namespace

CUtensorMap make_token_major_map(const void* base, int64_t batch, int64_t seqlen, int64_t heads, int64_t head_dim,
                                 int box_rows, MapElement element) {
  LCAB_CHECK(head_dim % 64 == 0, "TMA tiles need a head_dim multiple of 64, not " << head_dim);
  const bool fp32 = element == MapElement::kFp32;
  LCAB_CHECK(box_rows > 0 && box_rows <= 256, "TMA box rows " << box_rows << " outside [1, 256]");
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(heads),
                              static_cast<cuuint64_t>(seqlen), static_cast<cuuint64_t>(batch)};
  const cuuint64_t element_bytes = fp32 ? 4 : 2;
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(head_dim) * element_bytes,
                                 static_cast<cuuint64_t>(heads * head_dim) * element_bytes,
                                 static_cast<cuuint64_t>(seqlen * heads * head_dim) * element_bytes};
  const cuuint32_t box[4] = {fp32 ? 32u : 64u, 1, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  CUtensorMap map{};
  // For plain copies the data type only sets the element size (bf16 and fp16 tiles move alike); reductions add fp32.
  const CUresult result =
      encode_tiled()(&map, fp32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4, const_cast<void*>(base), dims, strides, box,
                     element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  LCAB_CHECK(result == CUDA_SUCCESS, "cuTensorMapEncodeTiled failed with CUresult " << static_cast<int>(result)
                                         << " for [batch " << batch << ", seqlen " << seqlen << ", heads " << heads
                                         << ", head_dim " << head_dim << "] at " << base << ", box rows " << box_rows);
  return map;
}

}  // namespace lcab::kernels::sm90
