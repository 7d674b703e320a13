#include "kernels/cudnn_graph.h"

#include <cstring>
#include <limits>
#include <sstream>

#include "kernels/cudnn_check.h"

namespace lcab::kernels {
namespace {

using Dims = std::array<int64_t, 4>;

cudnnDataType_t io_type(DType dtype) { return dtype == DType::kBf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF; }

void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
         int64_t count, const void* values) {
  LCAB_CUDNN_CHECK(cudnnBackendSetAttribute(d, name, type, count, values));
}

void link(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnBackendDescriptor_t value) {
  set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &value);
}

void set_i64(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, int64_t value) {
  set(d, name, CUDNN_TYPE_INT64, 1, &value);
}

void set_type(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnDataType_t value) {
  set(d, name, CUDNN_TYPE_DATA_TYPE, 1, &value);
}

}  // namespace

CudnnDescriptors::~CudnnDescriptors() {
  for (auto it = owned_.rbegin(); it != owned_.rend(); ++it) cudnnBackendDestroyDescriptor(*it);
}

cudnnBackendDescriptor_t CudnnDescriptors::create(cudnnBackendDescriptorType_t type) {
  cudnnBackendDescriptor_t d = nullptr;
  LCAB_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d));
  owned_.push_back(d);
  return d;
}

std::string CudnnSdpaShape::key(Pass pass) const {
  std::ostringstream out;
  out << (pass == Pass::kForward ? "fwd" : "bwd") << " b" << batch << " h" << heads << "/" << kv_heads << " d"
      << head_dim << " s" << seqlen_q << "x" << seqlen_k << " " << to_string(dtype) << " scale" << scale << " l"
      << (left_bound ? *left_bound : -1) << " r" << (right_bound ? *right_bound : -1) << " o" << diagonal_offset
      << (ragged ? " ragged" : "") << (offsets_int64 ? "64" : "");
  return out.str();
}

// Builds the operation graph of cudnn_graph.h tensor by tensor. Names follow cudnn-frontend's SDPA node.
class CudnnGraphBuilder {
 public:
  struct Tensor {
    cudnnBackendDescriptor_t desc = nullptr;
    int64_t uid = 0;
    Dims dims{};
    Dims strides{};
  };

  CudnnGraphBuilder(CudnnSdpaGraph& graph, const CudnnSdpaShape& shape) : g_(graph), s_(shape) {}

  void build(cudnnHandle_t handle, Pass pass) {
    make_inputs(pass);
    if (pass == Pass::kForward) {
      forward();
    } else {
      backward();
    }
    finalize_plan(handle);
  }

 private:
  // ---- tensors -------------------------------------------------------------------------------------------------
  Tensor tensor(Dims dims, Dims strides, cudnnDataType_t type, bool is_virtual, bool by_value = false,
                const Tensor* ragged_offsets = nullptr) {
    Tensor t;
    t.desc = g_.descriptors_.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    t.uid = next_uid_++;
    t.dims = dims;
    t.strides = strides;
    const int64_t alignment = 16;
    const bool virtual_flag = is_virtual;
    const bool by_value_flag = by_value;
    set_i64(t.desc, CUDNN_ATTR_TENSOR_UNIQUE_ID, t.uid);
    set_type(t.desc, CUDNN_ATTR_TENSOR_DATA_TYPE, type);
    set(t.desc, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data());
    set(t.desc, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
    set_i64(t.desc, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, alignment);
    set(t.desc, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virtual_flag);
    set(t.desc, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value_flag);
    if (ragged_offsets != nullptr) link(t.desc, CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, ragged_offsets->desc);
    LCAB_CUDNN_CHECK(cudnnBackendFinalize(t.desc));
    return t;
  }

  Tensor device(CudnnTensor role, Dims dims, Dims strides, cudnnDataType_t type, const Tensor* ragged = nullptr) {
    Tensor t = tensor(dims, strides, type, false, false, ragged);
    g_.uids_[static_cast<size_t>(role)] = t.uid;
    return t;
  }

  Tensor virtual_tensor(Dims dims, Dims strides, cudnnDataType_t type = CUDNN_DATA_FLOAT) {
    return tensor(dims, strides, type, true);
  }

  template <typename T>
  Tensor scalar(T value, cudnnDataType_t type) {
    static_assert(sizeof(T) <= 8);
    std::array<unsigned char, 8> bytes{};
    std::memcpy(bytes.data(), &value, sizeof(T));
    g_.scalar_values_.push_back(bytes);
    Tensor t = tensor({1, 1, 1, 1}, {1, 1, 1, 1}, type, false, true);
    g_.scalar_uids_.push_back(t.uid);
    return t;
  }
  Tensor scalar_f32(float value) { return scalar(value, CUDNN_DATA_FLOAT); }
  Tensor scalar_i32(int32_t value) { return scalar(value, CUDNN_DATA_INT32); }

  // ---- operations ----------------------------------------------------------------------------------------------
  void add_op(cudnnBackendDescriptor_t op) {
    LCAB_CUDNN_CHECK(cudnnBackendFinalize(op));
    ops_.push_back(op);
  }

  // y = mode(x[, b[, t]]) with y shaped as x; math precision `math`, output type `out_type`.
  Tensor pointwise(cudnnPointwiseMode_t mode, const Tensor& x, const Tensor* b, const Tensor* t,
                   cudnnDataType_t math, cudnnDataType_t out_type, int64_t axis = -1, const Tensor* y = nullptr) {
    cudnnBackendDescriptor_t pw = g_.descriptors_.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    set(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    set_type(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, math);
    if (axis >= 0) set_i64(pw, CUDNN_ATTR_POINTWISE_AXIS, axis);
    LCAB_CUDNN_CHECK(cudnnBackendFinalize(pw));
    const Tensor out = y != nullptr ? *y : virtual_tensor(x.dims, x.strides, out_type);
    cudnnBackendDescriptor_t op = g_.descriptors_.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    link(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw);
    link(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x.desc);
    if (b != nullptr) link(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b->desc);
    if (t != nullptr) link(op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, t->desc);
    link(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, out.desc);
    add_op(op);
    return out;
  }
  Tensor unary(cudnnPointwiseMode_t mode, const Tensor& x, cudnnDataType_t out_type = CUDNN_DATA_FLOAT) {
    return pointwise(mode, x, nullptr, nullptr, CUDNN_DATA_FLOAT, out_type);
  }
  Tensor binary(cudnnPointwiseMode_t mode, const Tensor& x, const Tensor& b,
                cudnnDataType_t out_type = CUDNN_DATA_FLOAT) {
    return pointwise(mode, x, &b, nullptr, CUDNN_DATA_FLOAT, out_type);
  }
  void binary_into(cudnnPointwiseMode_t mode, const Tensor& x, const Tensor& b, const Tensor& y) {
    pointwise(mode, x, &b, nullptr, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, -1, &y);
  }

  void matmul(const Tensor& a, const Tensor& b, const Tensor& c, const Tensor* m_override,
              const Tensor* n_override, const Tensor* k_override) {
    cudnnBackendDescriptor_t mm = g_.descriptors_.create(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    set_type(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT);
    LCAB_CUDNN_CHECK(cudnnBackendFinalize(mm));
    cudnnBackendDescriptor_t op = g_.descriptors_.create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    link(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, a.desc);
    link(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, b.desc);
    link(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, c.desc);
    link(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, mm);
    if (m_override != nullptr) link(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, m_override->desc);
    if (n_override != nullptr) link(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, n_override->desc);
    if (k_override != nullptr) link(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, k_override->desc);
    add_op(op);
  }

  void reduction(cudnnReduceTensorOp_t mode, const Tensor& x, const Tensor& y) {
    cudnnBackendDescriptor_t red = g_.descriptors_.create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    set(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode);
    set_type(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_DATA_FLOAT);
    LCAB_CUDNN_CHECK(cudnnBackendFinalize(red));
    cudnnBackendDescriptor_t op = g_.descriptors_.create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    link(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x.desc);
    link(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y.desc);
    link(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, red);
    add_op(op);
  }

  void reshape(const Tensor& x, const Tensor& y) {
    cudnnBackendDescriptor_t op = g_.descriptors_.create(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    link(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x.desc);
    link(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y.desc);
    add_op(op);
  }

  // ---- the attention pieces ------------------------------------------------------------------------------------
  void make_inputs(Pass pass) {
    const int64_t b = s_.batch, h = s_.heads, hk = s_.kv_heads, d = s_.head_dim, sq = s_.seqlen_q,
                  sk = s_.seqlen_k;
    const cudnnDataType_t io = io_type(s_.dtype);
    const Tensor* q_off = nullptr;
    const Tensor* kv_off = nullptr;
    const Tensor* stats_off = nullptr;
    if (s_.ragged) {
      const cudnnDataType_t offset_type = s_.offsets_int64 ? CUDNN_DATA_INT64 : CUDNN_DATA_INT32;
      q_offsets_ = device(CudnnTensor::kQOffsets, {b + 1, 1, 1, 1}, {1, 1, 1, 1}, offset_type);
      kv_offsets_ = device(CudnnTensor::kKVOffsets, {b + 1, 1, 1, 1}, {1, 1, 1, 1}, offset_type);
      stats_offsets_ = device(CudnnTensor::kStatsOffsets, {b + 1, 1, 1, 1}, {1, 1, 1, 1}, offset_type);
      seq_len_q_ = device(CudnnTensor::kSeqLenQ, {b, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_INT32);
      seq_len_kv_ = device(CudnnTensor::kSeqLenKV, {b, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_INT32);
      q_off = &q_offsets_;
      kv_off = &kv_offsets_;
      stats_off = &stats_offsets_;
    }
    const Dims q_dims{b, h, sq, d};
    q_strides_ = {sq * h * d, d, h * d, 1};
    const Dims kv_dims{b, hk, sk, d};
    const Dims kv_strides{sk * hk * d, d, hk * d, 1};
    const Dims kt_dims{b, hk, d, sk};
    const Dims kt_strides{sk * hk * d, d, 1, hk * d};
    const Dims stats_dims{b, h, sq, 1};
    const Dims stats_strides = s_.ragged ? Dims{sq * h, 1, h, 1} : Dims{h * sq, sq, 1, 1};
    q_ = device(CudnnTensor::kQ, q_dims, q_strides_, io, q_off);
    kt_ = device(CudnnTensor::kK, kt_dims, kt_strides, io, kv_off);
    o_ = device(CudnnTensor::kO, q_dims, q_strides_, io, q_off);
    stats_ = device(CudnnTensor::kStats, stats_dims, stats_strides, CUDNN_DATA_FLOAT, stats_off);
    if (pass == Pass::kForward) {
      v_ = device(CudnnTensor::kV, kv_dims, kv_strides, io, kv_off);
    } else {
      v_ = device(CudnnTensor::kV, kt_dims, kt_strides, io, kv_off);  // V^T
      do_ = device(CudnnTensor::kDO, q_dims, q_strides_, io, q_off);
      dq_ = device(CudnnTensor::kDQ, q_dims, q_strides_, io, q_off);
      dk_ = device(CudnnTensor::kDK, kv_dims, kv_strides, io, kv_off);
      dv_ = device(CudnnTensor::kDV, kv_dims, kv_strides, io, kv_off);
      softmax_sum_ = device(CudnnTensor::kSoftmaxSum, stats_dims, stats_strides, CUDNN_DATA_FLOAT, stats_off);
      const Dims accumulator_strides = s_.ragged ? q_strides_ : Dims{h * sq * d, sq * d, d, 1};
      dq_accumulator_ = device(CudnnTensor::kDQAccumulator, q_dims, accumulator_strides, CUDNN_DATA_FLOAT, q_off);
    }
    scale_ = scalar_f32(s_.scale);
    scores_dims_ = {b, h, sq, sk};
    scores_strides_ = {h * sq * sk, sq * sk, sk, 1};
    row_dims_ = {b, h, sq, 1};
    row_strides_ = {h * sq, sq, 1, 1};
  }

  // The score of masked cells (created on first use: a by-value tensor no operation reads must not be bound).
  const Tensor& lowest() {
    if (lowest_.desc == nullptr) lowest_ = scalar_f32(std::numeric_limits<float>::lowest());
    return lowest_;
  }

  const Tensor* seq_q() const { return s_.ragged ? &seq_len_q_ : nullptr; }
  const Tensor* seq_kv() const { return s_.ragged ? &seq_len_kv_ : nullptr; }

  // Rows and columns past the sequence's lengths get the lowest score.
  Tensor padding_mask(const Tensor& scores) {
    const Tensor row = pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, nullptr, nullptr, CUDNN_DATA_INT32,
                                 CUDNN_DATA_INT32, 2);
    const Tensor col = pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, nullptr, nullptr, CUDNN_DATA_INT32,
                                 CUDNN_DATA_INT32, 3);
    const Tensor row_in = pointwise(CUDNN_POINTWISE_CMP_LT, row, &seq_len_q_, nullptr, CUDNN_DATA_BOOLEAN,
                                    CUDNN_DATA_BOOLEAN);
    const Tensor col_in = pointwise(CUDNN_POINTWISE_CMP_LT, col, &seq_len_kv_, nullptr, CUDNN_DATA_BOOLEAN,
                                    CUDNN_DATA_BOOLEAN);
    const Tensor keep = pointwise(CUDNN_POINTWISE_LOGICAL_AND, row_in, &col_in, nullptr, CUDNN_DATA_BOOLEAN,
                                  CUDNN_DATA_BOOLEAN);
    return pointwise(CUDNN_POINTWISE_BINARY_SELECT, scores, &lowest(), &keep, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
  }

  // The diagonal band (cudnn_mask.h): right bound first, then the left bound, as cudnn-frontend orders them.
  Tensor band_mask(Tensor scores) {
    if (s_.right_bound) {
      Tensor row = pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, nullptr, nullptr, CUDNN_DATA_FLOAT,
                             CUDNN_DATA_INT32, 2);
      const Tensor col = pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, nullptr, nullptr, CUDNN_DATA_FLOAT,
                                   CUDNN_DATA_INT32, 3);
      if (s_.diagonal_offset != 0) {  // bottom-right: row + s_kv - s_q
        const Tensor sk = scalar_i32(static_cast<int32_t>(s_.seqlen_k));
        const Tensor sq = scalar_i32(static_cast<int32_t>(s_.seqlen_q));
        row = pointwise(CUDNN_POINTWISE_ADD, row, &sk, nullptr, CUDNN_DATA_INT32, CUDNN_DATA_INT32);
        row = pointwise(CUDNN_POINTWISE_SUB, row, &sq, nullptr, CUDNN_DATA_INT32, CUDNN_DATA_INT32);
      }
      if (*s_.right_bound != 0) {
        const Tensor right = scalar_i32(static_cast<int32_t>(*s_.right_bound));
        row = pointwise(CUDNN_POINTWISE_ADD, row, &right, nullptr, CUDNN_DATA_INT32, CUDNN_DATA_INT32);
      }
      const Tensor keep =
          pointwise(CUDNN_POINTWISE_CMP_GE, row, &col, nullptr, CUDNN_DATA_BOOLEAN, CUDNN_DATA_BOOLEAN);
      scores = pointwise(CUDNN_POINTWISE_BINARY_SELECT, scores, &lowest(), &keep, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
    }
    if (s_.left_bound) {
      const Tensor row = pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, nullptr, nullptr, CUDNN_DATA_FLOAT,
                                   CUDNN_DATA_FLOAT, 2);
      Tensor col = pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, nullptr, nullptr, CUDNN_DATA_FLOAT,
                             CUDNN_DATA_FLOAT, 3);
      // keep col + left - offset > row
      const Tensor window = scalar_f32(static_cast<float>(*s_.left_bound - s_.diagonal_offset));
      col = pointwise(CUDNN_POINTWISE_ADD, col, &window, nullptr, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 3);
      const Tensor keep =
          pointwise(CUDNN_POINTWISE_CMP_GT, col, &row, nullptr, CUDNN_DATA_BOOLEAN, CUDNN_DATA_BOOLEAN);
      const Tensor very_negative = scalar_f32(-1024.0f * 1024.0f * 1024.0f);
      scores = pointwise(CUDNN_POINTWISE_BINARY_SELECT, scores, &very_negative, &keep, CUDNN_DATA_FLOAT,
                         CUDNN_DATA_FLOAT);
    }
    return scores;
  }

  void forward() {
    const cudnnDataType_t io = io_type(s_.dtype);
    const Tensor scores = virtual_tensor(scores_dims_, scores_strides_);
    matmul(q_, kt_, scores, seq_q(), seq_kv(), nullptr);
    Tensor s = binary(CUDNN_POINTWISE_MUL, scores, scale_);
    if (s_.ragged) s = padding_mask(s);
    s = band_mask(s);
    // softmax with stats
    const Tensor row_max = virtual_tensor(row_dims_, row_strides_);
    reduction(CUDNN_REDUCE_TENSOR_MAX, s, row_max);
    const Tensor centered = binary(CUDNN_POINTWISE_SUB, s, row_max);
    const Tensor exponent = unary(CUDNN_POINTWISE_EXP, centered);
    const Tensor row_sum = virtual_tensor(row_dims_, row_strides_);
    reduction(CUDNN_REDUCE_TENSOR_ADD, exponent, row_sum);
    const Tensor log_sum = unary(CUDNN_POINTWISE_LOG, row_sum);
    binary_into(CUDNN_POINTWISE_ADD, row_max, log_sum, stats_);
    const Tensor probabilities = binary(CUDNN_POINTWISE_DIV, exponent, row_sum, io);
    matmul(probabilities, v_, o_, seq_q(), nullptr, seq_kv());
  }

  void backward() {
    const cudnnDataType_t io = io_type(s_.dtype);
    const int64_t b = s_.batch, h = s_.heads, hk = s_.kv_heads, d = s_.head_dim, sq = s_.seqlen_q,
                  sk = s_.seqlen_k;
    const Tensor one = scalar_f32(1.0f);
    // softmax_sum = rowsum(dO * O)
    const Tensor dout_out = virtual_tensor({b, h, sq, d}, {h * sq * d, sq * d, h * d, 1});
    pointwise(CUDNN_POINTWISE_MUL, do_, &o_, nullptr, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, -1, &dout_out);
    const Tensor row_dot = virtual_tensor(row_dims_, row_strides_);
    reduction(CUDNN_REDUCE_TENSOR_ADD, dout_out, row_dot);
    binary_into(CUDNN_POINTWISE_MUL, row_dot, one, softmax_sum_);

    // P = exp(scale Q K^T - stats), masked
    const Tensor scores = virtual_tensor(scores_dims_, scores_strides_);
    matmul(q_, kt_, scores, seq_q(), seq_kv(), nullptr);
    Tensor s = binary(CUDNN_POINTWISE_MUL, scores, scale_);
    if (s_.ragged) s = padding_mask(s);
    s = binary(CUDNN_POINTWISE_SUB, s, stats_);
    if (s_.ragged) s = padding_mask(s);  // again after the stats (cudnn-frontend's workaround of a cuDNN bug)
    s = band_mask(s);
    const Tensor p = unary(CUDNN_POINTWISE_EXP, s);

    // dV = P^T dO (summed over the GQA group)
    const Dims transposed_dims{b, h, sk, sq};
    const Dims transposed_strides{h * sq * sk, sq * sk, 1, sk};
    const Tensor p_t = virtual_tensor(transposed_dims, transposed_strides, io);
    reshape(p, p_t);
    gradient_matmul(p_t, do_, dv_, CudnnTensor::kDVFullHeads);

    // dS = P (dO V^T - softmax_sum) * scale
    const Tensor dp = virtual_tensor(scores_dims_, scores_strides_);
    matmul(do_, v_, dp, seq_q(), seq_kv(), nullptr);
    Tensor ds = binary(CUDNN_POINTWISE_MUL, dp, one);
    ds = binary(CUDNN_POINTWISE_SUB, ds, softmax_sum_);
    ds = binary(CUDNN_POINTWISE_MUL, ds, p);
    ds = binary(CUDNN_POINTWISE_MUL, ds, scale_);

    // dK = dS^T Q (summed over the GQA group)
    const Tensor ds_t = virtual_tensor(transposed_dims, transposed_strides, io);
    reshape(ds, ds_t);
    gradient_matmul(ds_t, q_, dk_, CudnnTensor::kDKFullHeads);

    // dQ = dS K, accumulated in fp32
    const Tensor k = tensor({b, hk, sk, d}, {sk * hk * d, d, hk * d, 1}, io, true, false,
                            s_.ragged ? &kv_offsets_ : nullptr);
    reshape(kt_, k);
    matmul(ds, k, dq_accumulator_, seq_q(), nullptr, seq_kv());
    pointwise(CUDNN_POINTWISE_IDENTITY, dq_accumulator_, nullptr, nullptr, CUDNN_DATA_FLOAT, io, -1, &dq_);
  }

  // out [b, kv_heads, s_k, d] = a [b, heads, s_k, s_q] x b [b, heads, s_q, d], reduced over the group for GQA.
  // The per-q-head product is virtual (cuDNN sizes its scratch as [b, heads, s_k, d]), except in ragged batches,
  // where that padded size can be far larger than the tokens: there it is a device tensor packed like `out` with
  // `out`'s ragged offsets, the token and batch strides scaled by the group (cuDNN scales the offsets itself), as
  // cudnn-frontend lays it out when told the total token count.
  void gradient_matmul(const Tensor& a, const Tensor& b_matrix, const Tensor& out, CudnnTensor full_heads_role) {
    if (s_.heads == s_.kv_heads) {
      matmul(a, b_matrix, out, seq_kv(), nullptr, seq_q());
      return;
    }
    const int64_t b = s_.batch, h = s_.heads, d = s_.head_dim, sk = s_.seqlen_k;
    const int64_t group = s_.heads / s_.kv_heads;
    Tensor full_heads;
    if (s_.ragged && d % 16 == 0) {
      Dims strides = out.strides;
      strides[0] *= group;
      strides[2] *= group;
      full_heads = device(full_heads_role, {b, h, sk, d}, strides, io_type(s_.dtype), &kv_offsets_);
    } else {
      full_heads = virtual_tensor({b, h, sk, d}, {h * sk * d, sk * d, d, 1}, io_type(s_.dtype));
    }
    matmul(a, b_matrix, full_heads, seq_kv(), nullptr, seq_q());
    reduction(CUDNN_REDUCE_TENSOR_ADD, full_heads, out);
  }

  // ---- graph, heuristics, plan ---------------------------------------------------------------------------------
  void finalize_plan(cudnnHandle_t handle) {
    cudnnBackendDescriptor_t op_graph = g_.descriptors_.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(op_graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(ops_.size()),
        ops_.data());
    // The handle attributes are deprecated in newer cuDNN 9 releases (which take the device from elsewhere) but
    // needed by older ones; a release that refuses them still builds the plan.
    cudnnBackendSetAttribute(op_graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    LCAB_CUDNN_CHECK(cudnnBackendFinalize(op_graph));

    std::string last_failure = "cuDNN's heuristics offered no engine configuration";
    for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
      cudnnBackendDescriptor_t heuristics = g_.descriptors_.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
      link(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, op_graph);
      set(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
      if (cudnnBackendFinalize(heuristics) != CUDNN_STATUS_SUCCESS) continue;
      int64_t count = 0;
      if (cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                   &count, nullptr) != CUDNN_STATUS_SUCCESS ||
          count <= 0) {
        continue;
      }
      std::vector<cudnnBackendDescriptor_t> configs(static_cast<size_t>(count));
      for (auto& config : configs) config = g_.descriptors_.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
      LCAB_CUDNN_CHECK(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, configs.data()));
      for (int64_t n = 0; n < count; ++n) {
        cudnnBackendDescriptor_t plan = g_.descriptors_.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        link(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[static_cast<size_t>(n)]);
        cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
        const cudnnStatus_t status = cudnnBackendFinalize(plan);
        if (status != CUDNN_STATUS_SUCCESS) {
          char message[512] = {0};
          cudnnGetLastErrorString(message, sizeof(message));
          last_failure = std::string("no engine configuration finalized: ") + cudnnGetErrorString(status) +
                         (message[0] != '\0' ? std::string(": ") + message : std::string());
          continue;
        }
        g_.plan_ = plan;
        LCAB_CUDNN_CHECK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                                                  1, nullptr, &g_.workspace_bytes_));
        cudnnBackendDescriptor_t engine = g_.descriptors_.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        int64_t engines = 0;
        if (cudnnBackendGetAttribute(configs[static_cast<size_t>(n)], CUDNN_ATTR_ENGINECFG_ENGINE,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &engines, &engine) == CUDNN_STATUS_SUCCESS) {
          cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, nullptr,
                                   &g_.engine_index_);
        }
        return;
      }
    }
    throw CudnnNotSupported(last_failure);
  }

  CudnnSdpaGraph& g_;
  const CudnnSdpaShape& s_;
  int64_t next_uid_ = 1;
  std::vector<cudnnBackendDescriptor_t> ops_;
  Tensor q_, kt_, v_, o_, stats_, do_, dq_, dk_, dv_, softmax_sum_, dq_accumulator_;
  Tensor q_offsets_, kv_offsets_, stats_offsets_, seq_len_q_, seq_len_kv_;
  Tensor scale_, lowest_;
  Dims q_strides_{}, scores_dims_{}, scores_strides_{}, row_dims_{}, row_strides_{};
};

std::unique_ptr<CudnnSdpaGraph> CudnnSdpaGraph::build(cudnnHandle_t handle, const CudnnSdpaShape& shape, Pass pass) {
  std::unique_ptr<CudnnSdpaGraph> graph(new CudnnSdpaGraph());
  CudnnGraphBuilder(*graph, shape).build(handle, pass);
  return graph;
}

void CudnnSdpaGraph::execute(cudnnHandle_t handle,
                             const std::array<void*, static_cast<size_t>(CudnnTensor::kCount)>& pointers,
                             void* workspace) const {
  std::vector<int64_t> uids;
  std::vector<void*> addresses;
  for (size_t t = 0; t < uids_.size(); ++t) {
    if (uids_[t] == 0) continue;
    uids.push_back(uids_[t]);
    addresses.push_back(pointers[t]);
  }
  for (size_t n = 0; n < scalar_uids_.size(); ++n) {
    uids.push_back(scalar_uids_[n]);
    addresses.push_back(const_cast<unsigned char*>(scalar_values_[n].data()));
  }
  CudnnDescriptors pack_owner;
  cudnnBackendDescriptor_t pack = pack_owner.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<int64_t>(uids.size()), uids.data());
  set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(addresses.size()),
      addresses.data());
  set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
  LCAB_CUDNN_CHECK(cudnnBackendFinalize(pack));
  LCAB_CUDNN_CHECK(cudnnBackendExecute(handle, plan_, pack));
}

}  // namespace lcab::kernels
