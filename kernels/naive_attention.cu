// naive: the textbook algorithm on the GPU, and the GPU reference for lcab_flash.
//   forward:  S = scale Q K^T (cuBLAS, fp32 out) -> masked softmax (P in the element type, lse) -> O = P V (cuBLAS)
//   backward: S again -> P = exp(S - lse) -> dP = dO V^T -> dS = P (dP - rowsum(P dP)) -> dV = P^T dO,
//             dK = scale dS^T Q (fp32 accumulation over the GQA group), dQ = scale dS K
// It materializes S x S per head of one batch entry; prepare() allocates that and an allocation failure is
// kernels::OutOfMemory ("oom"). The mask is read from per-64-row slice lists (the forward work list format).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <sstream>

#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/flash_common.cuh"
#include "kernels/flash_work.h"
#include "kernels/implementations.h"

namespace lcab::kernels {
namespace {

constexpr int kRowGroup = 64;   // rows per slice list
constexpr int kRowThreads = 256;

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::ostringstream message;
  message << call << " failed: " << cublasGetStatusName(status) << " (" << cublasGetStatusString(status) << ")";
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemory(message.str());
  ::lcab::detail::throw_error(message.str(), file, line, "cublas");
}
#define LCAB_CUBLAS_CHECK(call) check_cublas((call), #call, __FILE__, __LINE__)

struct MaskView {
  const int32_t* slice_offsets;
  const DeviceSlice* slices;
  int q_groups;  // row groups per mask
  int group;     // q heads per kv head
  int num_masks;
};

__device__ __forceinline__ bool cell_visible(const DeviceSlice* slices, int count, int q, int k) {
  for (int n = 0; n < count; ++n) {
    int lo, hi;
    flash::slice_row_keys(slices[n], q, lo, hi);
    if (k >= lo && k < hi) return true;
  }
  return false;
}

__device__ __forceinline__ float block_reduce(float value, bool is_max, float* scratch) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = is_max ? fmaxf(value, other) : value + other;
  }
  __syncthreads();
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = is_max ? -INFINITY : 0.f;
  for (int w = 0; w < static_cast<int>(blockDim.x) / 32; ++w) value = is_max ? fmaxf(value, scratch[w]) : value + scratch[w];
  return value;
}

struct RowContext {
  const DeviceSlice* slices;
  int count;
  int q;
};

__device__ __forceinline__ RowContext row_context(const MaskView& mask, int head, int q) {
  const int m = mask.num_masks == 1 ? 0 : head / mask.group;
  const int row = m * mask.q_groups + q / kRowGroup;
  return {mask.slices + mask.slice_offsets[row], mask.slice_offsets[row + 1] - mask.slice_offsets[row], q};
}

// One block per (head, q) row of one batch entry: s holds scale * Q K^T (fp32); writes P and lse.
template <typename T>
__global__ void masked_softmax_kernel(const float* s, T* p, float* lse, MaskView mask, int seqlen_q, int seqlen_k) {
  __shared__ float scratch[32];
  const int head = static_cast<int>(blockIdx.x) / seqlen_q;
  const int q = static_cast<int>(blockIdx.x) % seqlen_q;
  const RowContext row = row_context(mask, head, q);
  const float* s_row = s + static_cast<int64_t>(blockIdx.x) * seqlen_k;
  T* p_row = p + static_cast<int64_t>(blockIdx.x) * seqlen_k;
  float local_max = -INFINITY;
  for (int k = threadIdx.x; k < seqlen_k; k += blockDim.x) {
    if (cell_visible(row.slices, row.count, q, k)) local_max = fmaxf(local_max, s_row[k]);
  }
  const float row_max = block_reduce(local_max, true, scratch);
  float local_sum = 0.f;
  for (int k = threadIdx.x; k < seqlen_k; k += blockDim.x) {
    if (cell_visible(row.slices, row.count, q, k)) local_sum += expf(s_row[k] - row_max);
  }
  const float row_sum = block_reduce(local_sum, false, scratch);
  const float inv = row_sum > 0.f ? 1.f / row_sum : 0.f;
  for (int k = threadIdx.x; k < seqlen_k; k += blockDim.x) {
    const float value = cell_visible(row.slices, row.count, q, k) ? expf(s_row[k] - row_max) * inv : 0.f;
    p_row[k] = static_cast<T>(value);
  }
  if (threadIdx.x == 0) lse[static_cast<int64_t>(head) * seqlen_q + q] = row_sum > 0.f ? row_max + logf(row_sum) : -INFINITY;
}

// Backward, one block per (head, q) row: s holds scale Q K^T on entry; writes P; then, after dP has
// overwritten s, ds_kernel forms dS.
template <typename T>
__global__ void recompute_p_kernel(const float* s, T* p, const float* lse, MaskView mask, int seqlen_q, int seqlen_k) {
  const int head = static_cast<int>(blockIdx.x) / seqlen_q;
  const int q = static_cast<int>(blockIdx.x) % seqlen_q;
  const RowContext row = row_context(mask, head, q);
  const float row_lse = lse[static_cast<int64_t>(head) * seqlen_q + q];
  const float* s_row = s + static_cast<int64_t>(blockIdx.x) * seqlen_k;
  T* p_row = p + static_cast<int64_t>(blockIdx.x) * seqlen_k;
  for (int k = threadIdx.x; k < seqlen_k; k += blockDim.x) {
    const bool visible = row_lse != -INFINITY && cell_visible(row.slices, row.count, q, k);
    p_row[k] = static_cast<T>(visible ? expf(s_row[k] - row_lse) : 0.f);
  }
}

template <typename T>
__global__ void ds_kernel(const float* dp, const T* p, T* ds, int seqlen_k) {
  __shared__ float scratch[32];
  const float* dp_row = dp + static_cast<int64_t>(blockIdx.x) * seqlen_k;
  const T* p_row = p + static_cast<int64_t>(blockIdx.x) * seqlen_k;
  T* ds_row = ds + static_cast<int64_t>(blockIdx.x) * seqlen_k;
  float local = 0.f;
  for (int k = threadIdx.x; k < seqlen_k; k += blockDim.x) local += static_cast<float>(p_row[k]) * dp_row[k];
  const float delta = block_reduce(local, false, scratch);
  for (int k = threadIdx.x; k < seqlen_k; k += blockDim.x) {
    ds_row[k] = static_cast<T>(static_cast<float>(p_row[k]) * (dp_row[k] - delta));
  }
}

template <typename T>
__global__ void convert_kernel(const float* in, T* out, int64_t count) {
  const int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n < count) out[n] = static_cast<T>(in[n]);
}

cudaDataType_t cuda_type(DType dtype) { return dtype == DType::kBf16 ? CUDA_R_16BF : CUDA_R_16F; }

class CublasHandle {
 public:
  CublasHandle() { LCAB_CUBLAS_CHECK(cublasCreate(&handle_)); }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

class NaivePlan final : public AttentionPlan {
 public:
  explicit NaivePlan(const AttentionProblem& problem)
      : p_(problem),
        work_(build_forward_work(problem, TileShape{kRowGroup, kRowGroup})),
        slice_offsets_(DeviceBuffer::upload(work_.slice_offsets)),
        slices_(DeviceBuffer::upload(work_.slices)) {
    const size_t cells = static_cast<size_t>(p_.heads * p_.seqlen_q * p_.seqlen_k);
    scores_ = DeviceBuffer(cells * sizeof(float));
    probs_ = DeviceBuffer(cells * 2);
    mask_.slice_offsets = slice_offsets_.as<int32_t>();
    mask_.slices = slices_.as<DeviceSlice>();
    mask_.q_groups = work_.q_tile_rows;
    mask_.group = static_cast<int>(p_.heads / p_.kv_heads);
    mask_.num_masks = work_.num_masks;
  }

  int64_t workspace_bytes() const override {
    return static_cast<int64_t>(scores_.bytes() + probs_.bytes() + grad_scores_.bytes() + dkv32_.bytes() +
                                slice_offsets_.bytes() + slices_.bytes());
  }

  void forward(const ForwardArgs& args) override {
    LCAB_CUBLAS_CHECK(cublasSetStream(cublas_.get(), args.stream));
    const size_t esize = 2;
    for (int64_t b = 0; b < p_.batch; ++b) {
      scores_gemm(static_cast<const char*>(args.k) + kv_batch_offset(b) * esize,
                  static_cast<const char*>(args.q) + q_batch_offset(b) * esize);
      launch_rows(args.stream, [&](unsigned blocks, cudaStream_t stream) {
        if (p_.dtype == DType::kBf16) {
          masked_softmax_kernel<<<blocks, kRowThreads, 0, stream>>>(scores_.as<float>(), probs_.as<__nv_bfloat16>(),
                                                                    args.lse + b * p_.heads * p_.seqlen_q, mask_,
                                                                    sq(), sk());
        } else {
          masked_softmax_kernel<<<blocks, kRowThreads, 0, stream>>>(scores_.as<float>(), probs_.as<__half>(),
                                                                    args.lse + b * p_.heads * p_.seqlen_q, mask_,
                                                                    sq(), sk());
        }
      });
      // out^T (D x Sq per head, ld H*D) = V^T (D x Sk) P^T (Sk x Sq)
      const float one = 1.f;
      const float zero = 0.f;
      for (int64_t kvh = 0; kvh < p_.kv_heads; ++kvh) {
        const int64_t h0 = kvh * group();
        LCAB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
            cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, hd(), sq(), sk(), &one,
            static_cast<const char*>(args.v) + (kv_batch_offset(b) + kvh * p_.head_dim) * esize, type(), kv_ld(), 0,
            probs_.as<char>() + h0 * cells_per_head() * esize, type(), sk(), cells_per_head(), &zero,
            static_cast<char*>(args.out) + (q_batch_offset(b) + h0 * p_.head_dim) * esize, type(), q_ld(),
            p_.head_dim, static_cast<int>(group()), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      }
    }
  }

  void backward(const BackwardArgs& args) override {
    if (grad_scores_.bytes() == 0) {
      grad_scores_ = DeviceBuffer(static_cast<size_t>(p_.heads * p_.seqlen_q * p_.seqlen_k) * 2);
      dkv32_ = DeviceBuffer(static_cast<size_t>(2 * p_.seqlen_k * p_.kv_heads * p_.head_dim) * sizeof(float));
    }
    LCAB_CUBLAS_CHECK(cublasSetStream(cublas_.get(), args.stream));
    const size_t esize = 2;
    const float one = 1.f;
    const float zero = 0.f;
    const float scale = p_.scale();
    const int64_t kv_elems = p_.seqlen_k * p_.kv_heads * p_.head_dim;
    float* dk32 = dkv32_.as<float>();
    float* dv32 = dk32 + kv_elems;
    for (int64_t b = 0; b < p_.batch; ++b) {
      const char* q = static_cast<const char*>(args.q) + q_batch_offset(b) * esize;
      const char* dout = static_cast<const char*>(args.dout) + q_batch_offset(b) * esize;
      const char* k = static_cast<const char*>(args.k) + kv_batch_offset(b) * esize;
      const char* v = static_cast<const char*>(args.v) + kv_batch_offset(b) * esize;
      const float* lse = args.lse + b * p_.heads * p_.seqlen_q;
      scores_gemm(k, q);
      launch_rows(args.stream, [&](unsigned blocks, cudaStream_t stream) {
        if (p_.dtype == DType::kBf16) {
          recompute_p_kernel<<<blocks, kRowThreads, 0, stream>>>(scores_.as<float>(), probs_.as<__nv_bfloat16>(), lse,
                                                                 mask_, sq(), sk());
        } else {
          recompute_p_kernel<<<blocks, kRowThreads, 0, stream>>>(scores_.as<float>(), probs_.as<__half>(), lse, mask_,
                                                                 sq(), sk());
        }
      });
      // dP = dO V^T into the fp32 score buffer (alpha 1: no scale).
      scores_gemm(v, dout, 1.f);
      launch_rows(args.stream, [&](unsigned blocks, cudaStream_t stream) {
        if (p_.dtype == DType::kBf16) {
          ds_kernel<<<blocks, kRowThreads, 0, stream>>>(scores_.as<float>(), probs_.as<__nv_bfloat16>(),
                                                        grad_scores_.as<__nv_bfloat16>(), sk());
        } else {
          ds_kernel<<<blocks, kRowThreads, 0, stream>>>(scores_.as<float>(), probs_.as<__half>(),
                                                        grad_scores_.as<__half>(), sk());
        }
      });
      for (int64_t kvh = 0; kvh < p_.kv_heads; ++kvh) {
        const int64_t h0 = kvh * group();
        // dQ^T (D x Sq, ld H*D) = K^T (D x Sk) dS^T (Sk x Sq), scaled.
        LCAB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
            cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, hd(), sq(), sk(), &scale, k + kvh * p_.head_dim * esize, type(),
            kv_ld(), 0, grad_scores_.as<char>() + h0 * cells_per_head() * esize, type(), sk(), cells_per_head(), &zero,
            static_cast<char*>(args.dq) + (q_batch_offset(b) + h0 * p_.head_dim) * esize, type(), q_ld(),
            p_.head_dim, static_cast<int>(group()), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        // dV^T (D x Sk, ld Hk*D) += dO_h^T (D x Sq) P_h (Sq x Sk); dK likewise with dS and Q, scaled. Summed over
        // the group's q heads in fp32.
        for (int64_t h = h0; h < h0 + group(); ++h) {
          const float* beta = h == h0 ? &zero : &one;
          LCAB_CUBLAS_CHECK(cublasGemmEx(cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_T, hd(), sk(), sq(), &one,
                                         dout + h * p_.head_dim * esize, type(), q_ld(),
                                         probs_.as<char>() + h * cells_per_head() * esize, type(), sk(), beta,
                                         dv32 + kvh * p_.head_dim, CUDA_R_32F, kv_ld(), CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT));
          LCAB_CUBLAS_CHECK(cublasGemmEx(cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_T, hd(), sk(), sq(), &scale,
                                         q + h * p_.head_dim * esize, type(), q_ld(),
                                         grad_scores_.as<char>() + h * cells_per_head() * esize, type(), sk(), beta,
                                         dk32 + kvh * p_.head_dim, CUDA_R_32F, kv_ld(), CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT));
        }
      }
      const unsigned blocks = static_cast<unsigned>((kv_elems + 255) / 256);
      if (p_.dtype == DType::kBf16) {
        convert_kernel<<<blocks, 256, 0, args.stream>>>(dk32, static_cast<__nv_bfloat16*>(args.dk) + kv_batch_offset(b), kv_elems);
        convert_kernel<<<blocks, 256, 0, args.stream>>>(dv32, static_cast<__nv_bfloat16*>(args.dv) + kv_batch_offset(b), kv_elems);
      } else {
        convert_kernel<<<blocks, 256, 0, args.stream>>>(dk32, static_cast<__half*>(args.dk) + kv_batch_offset(b), kv_elems);
        convert_kernel<<<blocks, 256, 0, args.stream>>>(dv32, static_cast<__half*>(args.dv) + kv_batch_offset(b), kv_elems);
      }
      LCAB_CUDA_CHECK_LAUNCH();
    }
  }

 private:
  int hd() const { return static_cast<int>(p_.head_dim); }
  int sq() const { return static_cast<int>(p_.seqlen_q); }
  int sk() const { return static_cast<int>(p_.seqlen_k); }
  int64_t group() const { return p_.heads / p_.kv_heads; }
  int q_ld() const { return static_cast<int>(p_.heads * p_.head_dim); }
  int kv_ld() const { return static_cast<int>(p_.kv_heads * p_.head_dim); }
  int64_t cells_per_head() const { return p_.seqlen_q * p_.seqlen_k; }
  int64_t q_batch_offset(int64_t b) const { return b * p_.seqlen_q * p_.heads * p_.head_dim; }
  int64_t kv_batch_offset(int64_t b) const { return b * p_.seqlen_k * p_.kv_heads * p_.head_dim; }
  cudaDataType_t type() const { return cuda_type(p_.dtype); }

  // scores_[h] (row-major Sq x Sk, fp32) = alpha * A_h B^T per q head h, where `keys` is K (or V) and `rows`
  // is Q (or dO) of one batch entry. Column-major: S^T (Sk x Sq) = K (Sk x D) Q^T (D x Sq).
  void scores_gemm(const char* keys, const char* rows, float alpha = 0.f) {
    if (alpha == 0.f) alpha = p_.scale();
    const float zero = 0.f;
    for (int64_t kvh = 0; kvh < p_.kv_heads; ++kvh) {
      const int64_t h0 = kvh * group();
      LCAB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
          cublas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, sk(), sq(), hd(), &alpha, keys + kvh * p_.head_dim * 2, type(),
          kv_ld(), 0, rows + h0 * p_.head_dim * 2, type(), q_ld(), p_.head_dim, &zero,
          scores_.as<float>() + h0 * cells_per_head(), CUDA_R_32F, sk(), cells_per_head(),
          static_cast<int>(group()), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
  }

  template <typename Launch>
  void launch_rows(cudaStream_t stream, Launch&& launch) {
    launch(static_cast<unsigned>(p_.heads * p_.seqlen_q), stream);
    LCAB_CUDA_CHECK_LAUNCH();
  }

  AttentionProblem p_;
  FlashPassWork work_;
  DeviceBuffer slice_offsets_;
  DeviceBuffer slices_;
  DeviceBuffer scores_;
  DeviceBuffer probs_;
  DeviceBuffer grad_scores_;
  DeviceBuffer dkv32_;
  MaskView mask_{};
  CublasHandle cublas_;
};

class NaiveAttention final : public AttentionImpl {
 public:
  std::string name() const override { return "naive"; }
  std::string description() const override {
    return "cuBLAS GEMMs + masked softmax kernel, materializes S x S per head (GPU reference)";
  }
  Support supports(const AttentionProblem& problem, Pass /*pass*/) const override {
    constexpr int64_t kIntLimit = (int64_t(1) << 31) - 1;
    if (problem.heads * problem.seqlen_q > kIntLimit || problem.seqlen_q > kIntLimit ||
        problem.seqlen_k > kIntLimit) {
      return Support::no("naive launches one block per (head, query) row; too many rows");
    }
    if (problem.head_dim % 8 != 0) return Support::no("naive needs head_dim divisible by 8");
    return Support::yes();
  }
  std::unique_ptr<AttentionPlan> prepare(const AttentionProblem& problem) const override {
    const Support support = supports(problem, Pass::kForward);
    LCAB_CHECK(support.supported, support.reason);
    return std::make_unique<NaivePlan>(problem);
  }
};

}  // namespace

std::unique_ptr<AttentionImpl> make_naive_attention() { return std::make_unique<NaiveAttention>(); }

}  // namespace lcab::kernels
