#include "cp/executor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "cp/nccl_check.h"
#include "kernels/cuda_check.h"
#include "cp/tensor_ops.cuh"

namespace lcab::cp {
namespace {

kernels::DType kernel_dtype_of(ElementType type) {
  return type == ElementType::kFp16 ? kernels::DType::kFp16 : kernels::DType::kBf16;
}

ncclDataType_t nccl_type_of(ElementType type) {
  switch (type) {
    case ElementType::kBf16: return ncclBfloat16;
    case ElementType::kFp16: return ncclFloat16;
    default: return ncclFloat32;
  }
}

bool is_p2p(OpKind kind) { return kind == OpKind::kSend || kind == OpKind::kRecv; }

P2pChannel channel_of(Stream stream) {
  return stream == Stream::kOuterSend || stream == Stream::kOuterRecv ? P2pChannel::kOuter : P2pChannel::kInner;
}

struct DeviceScratch {
  void* ptr = nullptr;
  int64_t bytes = 0;
};

}  // namespace

ElementType element_type_of(kernels::DType dtype) {
  return dtype == kernels::DType::kFp16 ? ElementType::kFp16 : ElementType::kBf16;
}

struct RankExecutor::Impl {
  const Schedule& schedule;
  const RankSchedule& ops;
  RankComms& comms;
  RankMemory& memory;
  ExecutorOptions options;
  int rank = 0;
  ElementType dtype = ElementType::kBf16;
  int64_t head_dim = 0;
  std::vector<DeviceBuffer*> buffers;  ///< by schedule buffer id
  std::array<cudaStream_t, kNumStreams> streams{};
  std::array<bool, kNumStreams> stream_used{};
  std::vector<cudaEvent_t> op_done;                 ///< one per op
  std::vector<cudaEvent_t> op_start;                ///< timeline only
  cudaEvent_t pass_start = nullptr, pass_end = nullptr, ready = nullptr;
  std::array<cudaEvent_t, kNumStreams> joined{};
  std::vector<std::unique_ptr<kernels::AttentionPlan>> plans;  ///< by item
  // scratch for one compute item at a time (compute items run on the compute stream only)
  DeviceScratch partial_out, partial_lse, partial_dq, partial_dk, partial_dv;
  // staging for all-to-alls (collective stream only)
  DeviceScratch a2a_convert, a2a_send, a2a_recv;
  int64_t plan_bytes = 0;

  Impl(const Schedule& s, RankComms& c, RankMemory& m, ExecutorOptions o)
      : schedule(s), ops(s.ranks.at(c.rank())), comms(c), memory(m), options(o), rank(c.rank()) {}

  cudaStream_t stream_of(const Op& op) const { return streams[static_cast<int>(op.stream)]; }
  DeviceBuffer& buffer(int id) const {
    LCAB_CHECK(id >= 0 && id < static_cast<int>(buffers.size()), "schedule names buffer " << id << " of "
                                                                                         << buffers.size());
    return *buffers[id];
  }

  static void grow(DeviceScratch& scratch, int64_t bytes) { scratch.bytes = std::max(scratch.bytes, bytes); }
  void allocate(DeviceScratch& scratch) {
    if (scratch.bytes > 0) LCAB_CUDA_CHECK(cudaMalloc(&scratch.ptr, static_cast<size_t>(scratch.bytes)));
  }

  void setup(const kernels::AttentionImpl& attention) {
    LCAB_CHECK(schedule.config.workload.batch == 1,
               "the CP executor runs batch 1 (got " << schedule.config.workload.batch
                                                    << "); context parallelism splits one long sequence");
    LCAB_CHECK(schedule.gpus() == comms.size(),
               "schedule for " << schedule.gpus() << " GPUs run on a world of " << comms.size() << " ranks");
    dtype = memory.dtype();
    head_dim = schedule.config.workload.head_dim;
    LCAB_CUDA_CHECK(cudaSetDevice(comms.device()));
    // Communicators first: a rank that fails to allocate below must not leave the others waiting in a split.
    comms.prepare_groups(collective_groups());
    for (const Buffer& b : schedule.buffers) buffers.push_back(&memory.bind(b));

    for (const Op& op : ops.ops) stream_used[static_cast<int>(op.stream)] = true;
    for (int s = 0; s < kNumStreams; ++s)
      if (stream_used[s]) {
        LCAB_CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        LCAB_CUDA_CHECK(cudaEventCreateWithFlags(&joined[s], cudaEventDisableTiming));
      }
    const unsigned op_flags = options.record_timeline ? cudaEventDefault : cudaEventDisableTiming;
    op_done.resize(ops.ops.size());
    for (cudaEvent_t& e : op_done) LCAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, op_flags));
    if (options.record_timeline) {
      op_start.resize(ops.ops.size());
      for (cudaEvent_t& e : op_start) LCAB_CUDA_CHECK(cudaEventCreate(&e));
    }
    LCAB_CUDA_CHECK(cudaEventCreate(&pass_start));
    LCAB_CUDA_CHECK(cudaEventCreate(&pass_end));
    LCAB_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));

    prepare_plans(attention);
    size_a2a_staging();
    for (DeviceScratch* s : {&partial_out, &partial_lse, &partial_dq, &partial_dk, &partial_dv, &a2a_convert,
                             &a2a_send, &a2a_recv})
      allocate(*s);
  }

  // The groups some rank's collectives use (over all ranks, so every rank makes the same collective splits);
  // groups that only describe the layout (a ring of point-to-point hops) need no communicator.
  std::vector<Group> collective_groups() const {
    std::vector<bool> used(schedule.groups.size(), false);
    for (const RankSchedule& r : schedule.ranks)
      for (const Op& op : r.ops)
        if (is_communication(op.kind) && !is_p2p(op.kind)) used.at(r.comms.at(op.index).group) = true;
    std::vector<Group> groups;
    for (size_t g = 0; g < used.size(); ++g)
      if (used[g]) groups.push_back(schedule.groups[g]);
    return groups;
  }

  void prepare_plans(const kernels::AttentionImpl& attention) {
    const kernels::Pass pass =
        schedule.pass == Pass::kForward ? kernels::Pass::kForward : kernels::Pass::kBackward;
    const int64_t eb = element_bytes(dtype);
    plans.resize(ops.items.size());
    for (size_t n = 0; n < ops.items.size(); ++n) {
      const ComputeItem& item = ops.items[n];
      kernels::AttentionProblem problem;
      problem.batch = 1;
      problem.heads = item.q_heads.count();
      problem.kv_heads = item.kv_heads.count();
      problem.head_dim = head_dim;
      problem.dtype = kernel_dtype_of(dtype);
      problem.seqlen_q = item.q_rows.length();
      problem.seqlen_k = item.k_rows.length();
      problem.slices = item.slices;
      const kernels::Support support = attention.supports(problem, pass);
      LCAB_CHECK(support.supported, attention.name() << " cannot run compute item " << n << " of rank " << rank
                                                     << " (" << problem.seqlen_q << " x " << problem.seqlen_k
                                                     << "): " << support.reason);
      check_item_buffers(item);
      plans[n] = attention.prepare(problem);
      plan_bytes += plans[n]->workspace_bytes();
      const int64_t q_elems = problem.seqlen_q * problem.heads * head_dim;
      const int64_t k_elems = problem.seqlen_k * problem.kv_heads * head_dim;
      grow(partial_lse, problem.heads * problem.seqlen_q * 4);
      if (schedule.pass == Pass::kForward) {
        grow(partial_out, q_elems * eb);
      } else {
        grow(partial_dq, q_elems * eb);
        grow(partial_dk, k_elems * eb);
        grow(partial_dv, k_elems * eb);
      }
    }
  }

  void check_item_buffers(const ComputeItem& item) const {
    const QSide& side = schedule.q_sides.at(item.q_side);
    const DeviceBuffer& q = buffer(item.q_buffer);
    const DeviceBuffer& kv = buffer(item.k_buffer);
    LCAB_CHECK(q.desc.heads == item.q_heads.count() && kv.desc.heads == item.kv_heads.count() &&
                   kv.desc.tensors == 2 && item.q_rows.end <= q.desc.tokens && item.k_rows.end <= kv.desc.tokens,
               "compute item does not fit its buffers ('" << q.desc.name << "', '" << kv.desc.name << "')");
    LCAB_CHECK(buffer(side.out).desc.heads == q.desc.heads && buffer(side.lse).desc.heads == q.desc.heads,
               "out/lse buffers of '" << q.desc.name << "' hold other heads");
    if (schedule.pass == Pass::kBackward) {
      LCAB_CHECK(buffer(side.out).narrow_at(0, 0) != nullptr, "no dtype copy of output '" << buffer(side.out).desc.name << "'");
      LCAB_CHECK(item.grad_buffer >= 0 && buffer(item.grad_buffer).desc.heads == kv.desc.heads &&
                     buffer(item.grad_buffer).desc.tensors == 2,
                 "backward compute item without a dK/dV buffer of its kv heads");
    }
  }

  // All-to-all staging: the largest region of any all-to-all, in fp32 (the widest type moved).
  void size_a2a_staging() {
    for (const Op& op : ops.ops) {
      if (op.kind != OpKind::kAllToAll) continue;
      const CommOp& c = ops.comms.at(op.index);
      const DeviceBuffer& src = buffer(c.src.buffer);
      const DeviceBuffer& dst = buffer(c.dst.buffer);
      const int64_t bytes = 4 * std::max(c.src.rows * src.row_elements(), c.dst.rows * dst.row_elements());
      grow(a2a_convert, bytes);
      grow(a2a_send, bytes);
      grow(a2a_recv, bytes);
    }
  }

  ~Impl() {
    cudaSetDevice(comms.device());
    for (DeviceScratch* s : {&partial_out, &partial_lse, &partial_dq, &partial_dk, &partial_dv, &a2a_convert,
                             &a2a_send, &a2a_recv})
      cudaFree(s->ptr);
    for (cudaEvent_t e : op_done) cudaEventDestroy(e);
    for (cudaEvent_t e : op_start) cudaEventDestroy(e);
    for (cudaEvent_t e : {pass_start, pass_end, ready})
      if (e) cudaEventDestroy(e);
    for (int s = 0; s < kNumStreams; ++s)
      if (stream_used[s]) {
        cudaEventDestroy(joined[s]);
        cudaStreamDestroy(streams[s]);
      }
  }

  // ---- playing the ops ------------------------------------------------------------------------------------------

  void enqueue(cudaStream_t origin) {
    LCAB_CUDA_CHECK(cudaSetDevice(comms.device()));
    LCAB_CUDA_CHECK(cudaEventRecord(pass_start, origin));
    reset_buffers(origin);
    LCAB_CUDA_CHECK(cudaEventRecord(ready, origin));
    for (int s = 0; s < kNumStreams; ++s)
      if (stream_used[s]) LCAB_CUDA_CHECK(cudaStreamWaitEvent(streams[s], ready, 0));
    const int n = static_cast<int>(ops.ops.size());
    for (int k = 0; k < n;) {
      const Op& op = ops.ops[k];
      if (!is_p2p(op.kind)) {
        begin_op(k);
        play(k);
        end_op(k);
        ++k;
        continue;
      }
      int last = k;
      while (last + 1 < n && is_p2p(ops.ops[last + 1].kind) && ops.ops[last + 1].step == op.step &&
             channel_of(ops.ops[last + 1].stream) == channel_of(op.stream))
        ++last;
      play_p2p_group(k, last);
      k = last + 1;
    }
    for (int s = 0; s < kNumStreams; ++s)
      if (stream_used[s]) {
        LCAB_CUDA_CHECK(cudaEventRecord(joined[s], streams[s]));
        LCAB_CUDA_CHECK(cudaStreamWaitEvent(origin, joined[s], 0));
      }
    LCAB_CUDA_CHECK(cudaEventRecord(pass_end, origin));
  }

  void reset_buffers(cudaStream_t stream) {
    for (size_t id = 0; id < schedule.buffers.size(); ++id) {
      if (!schedule.buffers[id].zero_at_start) continue;
      const DeviceBuffer& b = *buffers[id];
      const int64_t count = b.desc.tensors * b.tensor_elements();
      fill(b.primary, b.type, count, b.is_lse() ? -INFINITY : 0.f, stream);
      if (b.shadow) fill(b.shadow, ElementType::kFp32, count, 0.f, stream);
      if (b.narrow) fill(b.narrow, b.dtype, count, 0.f, stream);
    }
  }

  void begin_op(int k) {
    const Op& op = ops.ops[k];
    cudaStream_t stream = stream_of(op);
    for (int32_t dep : ops.deps(k)) LCAB_CUDA_CHECK(cudaStreamWaitEvent(stream, op_done.at(dep), 0));
    if (options.record_timeline) LCAB_CUDA_CHECK(cudaEventRecord(op_start[k], stream));
  }

  void end_op(int k) { LCAB_CUDA_CHECK(cudaEventRecord(op_done[k], stream_of(ops.ops[k]))); }

  void play(int k) {
    const Op& op = ops.ops[k];
    cudaStream_t stream = stream_of(op);
    switch (op.kind) {
      case OpKind::kCompute:
        if (schedule.pass == Pass::kForward) compute_forward(op.index, stream);
        else compute_backward(op.index, stream);
        break;
      case OpKind::kZero: zero(ops.memory_ops.at(op.index).dst, stream); break;
      case OpKind::kAdd: add(ops.memory_ops.at(op.index), stream); break;
      case OpKind::kAllGather: all_gather(ops.comms.at(op.index), stream); break;
      case OpKind::kReduceScatter: reduce_scatter(ops.comms.at(op.index), stream); break;
      case OpKind::kAllToAll: all_to_all(ops.comms.at(op.index), stream); break;
      default: LCAB_THROW("op kind " << to_string(op.kind) << " cannot be played alone");
    }
  }

  // ---- compute ----------------------------------------------------------------------------------------------------

  void compute_forward(int index, cudaStream_t stream) {
    const ComputeItem& item = ops.items[index];
    const QSide& side = schedule.q_sides[item.q_side];
    const DeviceBuffer& q = buffer(item.q_buffer);
    const DeviceBuffer& kv = buffer(item.k_buffer);
    const DeviceBuffer& out = buffer(side.out);
    const DeviceBuffer& lse = buffer(side.lse);
    kernels::ForwardArgs args;
    args.q = q.primary_at(0, item.q_rows.begin);
    args.k = kv.primary_at(0, item.k_rows.begin);
    args.v = kv.primary_at(1, item.k_rows.begin);
    args.out = partial_out.ptr;
    args.lse = static_cast<float*>(partial_lse.ptr);
    args.stream = stream;
    plans[index]->forward(args);

    MergeArgs merge;
    merge.rows = item.q_rows.length();
    merge.heads = item.q_heads.count();
    merge.head_dim = head_dim;
    merge.partial_out = partial_out.ptr;
    merge.partial_type = dtype;
    merge.partial_lse = static_cast<const float*>(partial_lse.ptr);
    merge.acc_out = out.accum_at(0, item.q_rows.begin);
    merge.acc_out_mirror = out.narrow_at(0, item.q_rows.begin);
    merge.mirror_type = dtype;
    merge.acc_lse = static_cast<float*>(lse.primary_at(0, item.q_rows.begin));
    merge.acc_lse_head_stride = lse.desc.tokens;
    LCAB_CHECK(merge.acc_out, "output buffer '" << out.desc.name << "' has no fp32 accumulator");
    merge_partial_attention(merge, stream);
  }

  void compute_backward(int index, cudaStream_t stream) {
    const ComputeItem& item = ops.items[index];
    const QSide& side = schedule.q_sides[item.q_side];
    const DeviceBuffer& q = buffer(item.q_buffer);
    const DeviceBuffer& kv = buffer(item.k_buffer);
    const DeviceBuffer& lse = buffer(side.lse);
    const DeviceBuffer& dq = buffer(side.dq);
    const DeviceBuffer& dkv = buffer(item.grad_buffer);
    const int64_t rows = item.q_rows.length();
    const int64_t heads = item.q_heads.count();
    const int64_t k_rows = item.k_rows.length();
    const int64_t eb = element_bytes(dtype);

    // The kernel reads lse as [heads][rows]: the buffer's rows when the item covers them all, else a copy.
    const float* item_lse = static_cast<const float*>(lse.primary_at(0, item.q_rows.begin));
    if (rows != lse.desc.tokens) {
      LCAB_CUDA_CHECK(cudaMemcpy2DAsync(partial_lse.ptr, rows * sizeof(float), item_lse,
                                           lse.desc.tokens * sizeof(float), rows * sizeof(float), heads,
                                           cudaMemcpyDeviceToDevice, stream));
      item_lse = static_cast<const float*>(partial_lse.ptr);
    }
    // Keys or rows the kernel has no work for need not be written by it: start from zero.
    LCAB_CUDA_CHECK(cudaMemsetAsync(partial_dk.ptr, 0, k_rows * kv.row_elements() * eb, stream));
    LCAB_CUDA_CHECK(cudaMemsetAsync(partial_dv.ptr, 0, k_rows * kv.row_elements() * eb, stream));
    LCAB_CUDA_CHECK(cudaMemsetAsync(partial_dq.ptr, 0, rows * q.row_elements() * eb, stream));

    kernels::BackwardArgs args;
    args.q = q.primary_at(0, item.q_rows.begin);
    args.k = kv.primary_at(0, item.k_rows.begin);
    args.v = kv.primary_at(1, item.k_rows.begin);
    args.out = buffer(side.out).narrow_at(0, item.q_rows.begin);
    args.dout = buffer(side.dout).primary_at(0, item.q_rows.begin);
    args.lse = item_lse;
    args.dq = partial_dq.ptr;
    args.dk = partial_dk.ptr;
    args.dv = partial_dv.ptr;
    args.stream = stream;
    plans[index]->backward(args);

    accumulate_into(dq, 0, item.q_rows.begin, partial_dq.ptr, rows * q.row_elements(), stream);
    accumulate_into(dkv, 0, item.grad_row_begin, partial_dk.ptr, k_rows * kv.row_elements(), stream);
    accumulate_into(dkv, 1, item.grad_row_begin, partial_dv.ptr, k_rows * kv.row_elements(), stream);
  }

  void accumulate_into(const DeviceBuffer& dst, int tensor, int64_t row, const void* src, int64_t count,
                       cudaStream_t stream) {
    AccumulateArgs a;
    a.count = count;
    a.src = src;
    a.src_type = dtype;
    a.dst_fp32 = dst.shadow_at(tensor, row);
    a.dst = dst.primary_at(tensor, row);
    a.dst_type = dst.type;
    accumulate(a, stream);
  }

  // ---- local memory ops -------------------------------------------------------------------------------------------

  void zero(const BufferRegion& region, cudaStream_t stream) {
    const DeviceBuffer& b = buffer(region.buffer);
    if (b.is_lse()) {
      for (int64_t h = 0; h < b.desc.heads; ++h)
        fill(static_cast<float*>(b.primary) + h * b.desc.tokens + region.row_begin, ElementType::kFp32,
             region.rows, -INFINITY, stream);
      return;
    }
    const int64_t count = region.rows * b.row_elements();
    for (int t = 0; t < b.desc.tensors; ++t) {
      fill(b.primary_at(t, region.row_begin), b.type, count, 0.f, stream);
      if (b.shadow) fill(b.shadow_at(t, region.row_begin), ElementType::kFp32, count, 0.f, stream);
      if (b.narrow) fill(b.narrow_at(t, region.row_begin), b.dtype, count, 0.f, stream);
    }
  }

  void add(const MemoryOp& m, cudaStream_t stream) {
    const DeviceBuffer& dst = buffer(m.dst.buffer);
    const DeviceBuffer& src = buffer(m.src.buffer);
    LCAB_CHECK(m.dst.rows == m.src.rows && dst.row_elements() == src.row_elements() &&
                   dst.desc.tensors == src.desc.tensors && !dst.is_lse(),
               "add of '" << src.desc.name << "' into '" << dst.desc.name << "' with different shapes");
    for (int t = 0; t < dst.desc.tensors; ++t) {
      AccumulateArgs a;
      a.count = m.dst.rows * dst.row_elements();
      const float* src_fp32 = src.accum_at(t, m.src.row_begin);
      a.src = src_fp32 ? static_cast<const void*>(src_fp32) : src.primary_at(t, m.src.row_begin);
      a.src_type = src_fp32 ? ElementType::kFp32 : src.type;
      a.dst_fp32 = dst.shadow_at(t, m.dst.row_begin);
      a.dst = dst.primary_at(t, m.dst.row_begin);
      a.dst_type = dst.type;
      accumulate(a, stream);
    }
  }

  /// After communication wrote a region of an accumulator kept with a shadow or narrow copy: bring the copy up
  /// to date.
  void refresh_copies(const BufferRegion& region, cudaStream_t stream) {
    const DeviceBuffer& b = buffer(region.buffer);
    const int64_t count = region.rows * b.row_elements();
    for (int t = 0; t < b.desc.tensors; ++t) {
      if (b.shadow) convert(b.primary_at(t, region.row_begin), b.type, b.shadow_at(t, region.row_begin),
                            ElementType::kFp32, count, stream);
      if (b.narrow) convert(b.primary_at(t, region.row_begin), b.type, b.narrow_at(t, region.row_begin), b.dtype,
                            count, stream);
    }
  }

  // ---- communication ------------------------------------------------------------------------------------------

  int64_t region_tensor_bytes(const BufferRegion& r) const {
    const DeviceBuffer& b = buffer(r.buffer);
    return r.rows * b.row_elements() * element_bytes(b.type);
  }

  void check_chunk(const CommOp& c, int64_t expected, const char* what) const {
    LCAB_CHECK(c.chunk_bytes == expected, what << " '" << c.what << "' of rank " << rank << ": the schedule says "
                                               << c.chunk_bytes << " bytes per chunk, its buffers hold "
                                               << expected);
  }

  // NCCL starts a group once every stream in it is ready (it makes each stream wait for all the others): with a
  // timeline, every op's start event is recorded after that same join, so that an op's interval does not count
  // the wait for the group's other streams as communication. Execution is unchanged.
  void join_group_starts(int first, int last) {
    for (int k = first; k <= last; ++k)
      for (int j = first; j <= last; ++j)
        if (ops.ops[j].stream != ops.ops[k].stream)
          LCAB_CUDA_CHECK(cudaStreamWaitEvent(stream_of(ops.ops[k]), op_start[j], 0));
    for (int k = first; k <= last; ++k) LCAB_CUDA_CHECK(cudaEventRecord(op_start[k], stream_of(ops.ops[k])));
  }

  void play_p2p_group(int first, int last) {
    for (int k = first; k <= last; ++k) begin_op(k);
    if (options.record_timeline) join_group_starts(first, last);
    const ncclComm_t comm = comms.p2p(channel_of(ops.ops[first].stream));
    LCAB_NCCL_CHECK(ncclGroupStart());
    for (int k = first; k <= last; ++k) {
      const Op& op = ops.ops[k];
      const CommOp& c = ops.comms.at(op.index);
      const BufferRegion& region = op.kind == OpKind::kSend ? c.src : c.dst;
      const DeviceBuffer& b = buffer(region.buffer);
      check_chunk(c, b.desc.tensors * region_tensor_bytes(region), op.kind == OpKind::kSend ? "send" : "recv");
      for (int t = 0; t < b.desc.tensors; ++t) {
        void* ptr = b.primary_at(t, region.row_begin);
        const size_t bytes = static_cast<size_t>(region_tensor_bytes(region));
        if (op.kind == OpKind::kSend) LCAB_NCCL_CHECK(ncclSend(ptr, bytes, ncclChar, c.peer, comm, stream_of(op)));
        else LCAB_NCCL_CHECK(ncclRecv(ptr, bytes, ncclChar, c.peer, comm, stream_of(op)));
      }
    }
    LCAB_NCCL_CHECK(ncclGroupEnd());
    for (int k = first; k <= last; ++k) {
      const Op& op = ops.ops[k];
      if (op.kind == OpKind::kRecv) refresh_copies(ops.comms[op.index].dst, stream_of(op));
      end_op(k);
    }
  }

  const Group& group_of(const CommOp& c) const { return schedule.groups.at(c.group); }

  int member_index(const Group& g) const {
    for (int i = 0; i < static_cast<int>(g.ranks.size()); ++i)
      if (g.ranks[i] == rank) return i;
    LCAB_THROW("rank " << rank << " issues a collective of a " << to_string(g.kind) << " group it is not in");
  }

  void all_gather(const CommOp& c, cudaStream_t stream) {
    const Group& g = group_of(c);
    const int64_t members = static_cast<int64_t>(g.ranks.size());
    const DeviceBuffer& src = buffer(c.src.buffer);
    const DeviceBuffer& dst = buffer(c.dst.buffer);
    LCAB_CHECK(src.type == dst.type && c.dst.rows == members * c.src.rows && src.desc.tensors == dst.desc.tensors,
               "all-gather '" << c.what << "': destination must hold " << members << " x the source rows");
    member_index(g);
    check_chunk(c, src.desc.tensors * region_tensor_bytes(c.src), "all-gather");
    const ncclComm_t comm = comms.group(g);
    LCAB_NCCL_CHECK(ncclGroupStart());
    for (int t = 0; t < src.desc.tensors; ++t)
      LCAB_NCCL_CHECK(ncclAllGather(src.primary_at(t, c.src.row_begin), dst.primary_at(t, c.dst.row_begin),
                                       static_cast<size_t>(region_tensor_bytes(c.src)), ncclChar, comm, stream));
    LCAB_NCCL_CHECK(ncclGroupEnd());
    refresh_copies(c.dst, stream);
  }

  void reduce_scatter(const CommOp& c, cudaStream_t stream) {
    const Group& g = group_of(c);
    const int64_t members = static_cast<int64_t>(g.ranks.size());
    const DeviceBuffer& src = buffer(c.src.buffer);
    const DeviceBuffer& dst = buffer(c.dst.buffer);
    LCAB_CHECK(src.type == dst.type && c.src.rows == members * c.dst.rows && src.desc.tensors == dst.desc.tensors,
               "reduce-scatter '" << c.what << "': source must hold " << members << " x the destination rows");
    member_index(g);
    check_chunk(c, dst.desc.tensors * region_tensor_bytes(c.dst), "reduce-scatter");
    const ncclComm_t comm = comms.group(g);
    const size_t count = static_cast<size_t>(c.dst.rows * dst.row_elements());
    LCAB_NCCL_CHECK(ncclGroupStart());
    for (int t = 0; t < src.desc.tensors; ++t)
      LCAB_NCCL_CHECK(ncclReduceScatter(src.primary_at(t, c.src.row_begin), dst.primary_at(t, c.dst.row_begin),
                                           count, nccl_type_of(src.type), ncclSum, comm, stream));
    LCAB_NCCL_CHECK(ncclGroupEnd());
    refresh_copies(c.dst, stream);
  }

  // All-to-all through staging buffers: [convert to the wire type] [pack heads] -> grouped send/recv of one chunk
  // per member -> [unpack heads] [convert to the destination type]. The wire type is the narrower of the two
  // buffers' types (an fp32 head-split output travels in dtype, as the schedule counts its bytes).
  void all_to_all(const CommOp& c, cudaStream_t stream) {
    const Group& g = group_of(c);
    const int64_t members = static_cast<int64_t>(g.ranks.size());
    const DeviceBuffer& src = buffer(c.src.buffer);
    const DeviceBuffer& dst = buffer(c.dst.buffer);
    LCAB_CHECK(src.desc.tensors == dst.desc.tensors && !src.is_lse() && !dst.is_lse(),
               "all-to-all '" << c.what << "' between buffers of different kinds");
    const ElementType wire = src.type == dst.type ? src.type : dtype;
    const int64_t wire_bytes = element_bytes(wire);
    const int64_t src_elems = c.src.rows * src.row_elements();
    const int64_t dst_elems = c.dst.rows * dst.row_elements();
    int64_t chunk_elems = 0;
    HeadBlocks blocks;
    blocks.group = members;
    int64_t seq_tokens = 0;  // tokens of the sequence-split side
    switch (c.layout) {
      case A2ALayout::kSeqToHead:
        blocks.heads = src.desc.heads;
        seq_tokens = c.src.rows;
        LCAB_CHECK(dst.desc.heads == blocks.block_heads() && c.dst.rows == members * seq_tokens,
                   "all-to-all '" << c.what << "' (sequence to heads): destination of " << c.dst.rows << " x "
                                  << dst.desc.heads << " heads does not match " << members << " x " << seq_tokens
                                  << " tokens x " << blocks.block_heads() << " heads");
        chunk_elems = seq_tokens * blocks.block_heads() * head_dim;
        break;
      case A2ALayout::kHeadToSeq:
        blocks.heads = dst.desc.heads;
        seq_tokens = c.dst.rows;
        LCAB_CHECK(src.desc.heads == blocks.block_heads() && c.src.rows == members * seq_tokens,
                   "all-to-all '" << c.what << "' (heads to sequence): source of " << c.src.rows << " x "
                                  << src.desc.heads << " heads does not match " << members << " x " << seq_tokens
                                  << " tokens x " << blocks.block_heads() << " heads");
        chunk_elems = seq_tokens * blocks.block_heads() * head_dim;
        break;
      default:
        LCAB_CHECK(src_elems == dst_elems && src_elems % members == 0,
                   "all-to-all '" << c.what << "': source and destination sizes differ");
        chunk_elems = src_elems / members;
        break;
    }
    check_chunk(c, src.desc.tensors * chunk_elems * wire_bytes, "all-to-all");
    const ncclComm_t comm = comms.group(g);
    const size_t chunk_bytes = static_cast<size_t>(chunk_elems * wire_bytes);
    for (int t = 0; t < src.desc.tensors; ++t) {
      // send side: a [members][chunk] buffer in the wire type
      const void* send = src.primary_at(t, c.src.row_begin);
      if (src.type != wire) {
        convert(send, src.type, a2a_convert.ptr, wire, src_elems, stream);
        send = a2a_convert.ptr;
      }
      if (c.layout == A2ALayout::kSeqToHead) {
        pack_head_blocks(send, a2a_send.ptr, blocks, seq_tokens, head_dim, wire_bytes, stream);
        send = a2a_send.ptr;
      }
      // receive side: straight into the destination when nothing is left to do
      const bool direct = c.layout != A2ALayout::kHeadToSeq && dst.type == wire;
      void* recv = direct ? dst.primary_at(t, c.dst.row_begin) : a2a_recv.ptr;
      LCAB_NCCL_CHECK(ncclGroupStart());
      for (int64_t j = 0; j < members; ++j) {
        LCAB_NCCL_CHECK(ncclSend(static_cast<const char*>(send) + j * chunk_bytes, chunk_bytes, ncclChar,
                                    static_cast<int>(j), comm, stream));
        LCAB_NCCL_CHECK(ncclRecv(static_cast<char*>(recv) + j * chunk_bytes, chunk_bytes, ncclChar,
                                    static_cast<int>(j), comm, stream));
      }
      LCAB_NCCL_CHECK(ncclGroupEnd());
      if (direct) continue;
      const void* received = recv;
      if (c.layout == A2ALayout::kHeadToSeq) {
        void* target = dst.type == wire ? dst.primary_at(t, c.dst.row_begin) : a2a_convert.ptr;
        unpack_head_blocks(received, target, blocks, seq_tokens, head_dim, wire, stream);
        received = target;
      }
      if (dst.type != wire) convert(received, wire, dst.primary_at(t, c.dst.row_begin), dst.type, dst_elems, stream);
    }
    refresh_copies(c.dst, stream);
  }

  // ---- results ----------------------------------------------------------------------------------------------------

  double elapsed_ms(cudaEvent_t from, cudaEvent_t to) const {
    float ms = 0;
    LCAB_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
    return ms;
  }
};

RankExecutor::RankExecutor(const Schedule& schedule, RankComms& comms, RankMemory& memory,
                           const kernels::AttentionImpl& attention, ExecutorOptions options)
    : impl_(std::make_unique<Impl>(schedule, comms, memory, options)) {
  LCAB_CHECK(memory.device() == comms.device(), "rank memory on device " << memory.device()
                                                                          << ", communicators on device "
                                                                          << comms.device());
  impl_->setup(attention);
}

RankExecutor::~RankExecutor() = default;

void RankExecutor::enqueue(cudaStream_t origin) { impl_->enqueue(origin); }

double RankExecutor::last_pass_ms() const {
  LCAB_CUDA_CHECK(cudaEventSynchronize(impl_->pass_end));
  return impl_->elapsed_ms(impl_->pass_start, impl_->pass_end);
}

std::vector<OpInterval> RankExecutor::last_timeline() const {
  LCAB_CHECK(impl_->options.record_timeline, "this executor records no timeline (ExecutorOptions::record_timeline)");
  LCAB_CUDA_CHECK(cudaEventSynchronize(impl_->pass_end));
  std::vector<OpInterval> timeline;
  for (size_t k = 0; k < impl_->ops.ops.size(); ++k) {
    const Op& op = impl_->ops.ops[k];
    OpInterval interval;
    interval.op = static_cast<int>(k);
    interval.kind = op.kind;
    interval.stream = op.stream;
    interval.step = op.step;
    interval.start_ms = impl_->elapsed_ms(impl_->pass_start, impl_->op_start[k]);
    interval.end_ms = impl_->elapsed_ms(impl_->pass_start, impl_->op_done[k]);
    timeline.push_back(interval);
  }
  return timeline;
}

int64_t RankExecutor::workspace_bytes() const {
  int64_t bytes = impl_->plan_bytes;
  for (const DeviceScratch* s : {&impl_->partial_out, &impl_->partial_lse, &impl_->partial_dq, &impl_->partial_dk,
                                 &impl_->partial_dv, &impl_->a2a_convert, &impl_->a2a_send, &impl_->a2a_recv})
    bytes += s->bytes;
  return bytes;
}

const Schedule& RankExecutor::schedule() const { return impl_->schedule; }

}  // namespace lcab::cp
