// cudnn: cuDNN's fused flash attention behind kernels/attention.h (see kernels/cudnn_attention.h).
//
// supports() maps the problem (mask fit, version and device checks) and then builds the pass's cuDNN plans, so that
// an engine cuDNN does not have is "unsupported" before anything runs; built plans are cached (per device and
// shape) and prepare() takes them from the cache. forward/backward only bind pointers and execute.
#include "kernels/cudnn_attention.h"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <sstream>

#include "kernels/cuda_check.h"
#include "kernels/cudnn_check.h"
#include "kernels/cudnn_graph.h"
#include "kernels/cudnn_layout.h"
#include "model/cudnn_mask.h"
#include "kernels/device_buffer.h"
#include "kernels/implementations.h"

namespace lcab::kernels {

int64_t cudnn_runtime_version() { return static_cast<int64_t>(cudnnGetVersion()); }
int64_t cudnn_compiled_version() { return CUDNN_VERSION; }
std::string cudnn_version_string(int64_t version) {
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

namespace {

using Pointers = std::array<void*, static_cast<size_t>(CudnnTensor::kCount)>;

void*& slot(Pointers& pointers, CudnnTensor t) { return pointers[static_cast<size_t>(t)]; }

struct DeviceInfo {
  int device = 0;
  int sm = 0;  ///< compute capability, major * 10 + minor
};

DeviceInfo current_device() {
  DeviceInfo info;
  LCAB_CUDA_CHECK(cudaGetDevice(&info.device));
  int major = 0;
  int minor = 0;
  LCAB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, info.device));
  LCAB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, info.device));
  info.sm = major * 10 + minor;
  return info;
}

// One cuDNN handle per device for the whole process. Never destroyed: plans keep referring to them, and
// destroying them from static destructors can run after the CUDA runtime has shut down.
cudnnHandle_t handle_for(int device) {
  static std::mutex mutex;
  static std::map<int, cudnnHandle_t> handles;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cudnnHandle_t handle = nullptr;
  LCAB_CUDNN_CHECK(cudnnCreate(&handle));
  handles.emplace(device, handle);
  return handle;
}

// What cuDNN is asked to compute for an lcab problem.
struct CudnnMapping {
  CudnnMaskModel mask;
  CudnnSdpaShape shape;
  std::vector<int64_t> sequence_starts;  ///< ragged: token index of each cuDNN sequence (lcab batch x documents)
  std::vector<int32_t> sequence_lengths;
};

// Empty when cuDNN can take the problem (as far as can be told before building), else why not. Ragged offsets
// past largest_int32_offset are int64.
std::string map_problem(const AttentionProblem& p, int64_t version, int sm, int64_t largest_int32_offset,
                        CudnnMapping& out) {
  const std::string loaded = "the loaded cuDNN is " + cudnn_version_string(version);
  if (version < 90000) return "cuDNN 9.0 or newer is needed; " + loaded;
  if (version == 91000 || version == 91001) return "cuDNN 9.10.0 and 9.10.1 have known SDPA bugs; " + loaded;
  if (sm < 80) return "cuDNN fused attention needs sm_80 or newer";
  if (p.head_dim % 8 != 0 || p.head_dim > 256) return "cuDNN fused attention needs head_dim <= 256, a multiple of 8";
  if (sm < 90 && p.head_dim > 128 && version < 91000) return "head_dim > 128 needs Hopper or cuDNN 9.10; " + loaded;
  const CudnnMaskFit fit = fit_cudnn_masks(p.seqlen_q, p.seqlen_k, p.slices);
  if (!fit.fits) return fit.reason;
  const CudnnMaskModel& m = fit.model;
  const bool band = m.left_bound || m.right_bound;
  if (m.documents()) {
    if (version < 90600) return "document masks (ragged batches with GQA, ragged stats) need cuDNN 9.6; " + loaded;
    if (sm < 90 && version < 91801) return "ragged batches need Hopper before cuDNN 9.18.1; " + loaded;
  }
  if (m.diagonal_offset != 0 && band) {
    if (m.diagonal_offset < 0) return "a bottom-right aligned band with seqlen_q > seqlen_k";
    if (version < 90300) return "bottom-right aligned masks need cuDNN 9.3; " + loaded;
    if (version < 90600 && (p.seqlen_q % 64 != 0 || p.seqlen_k % 64 != 0)) {
      return "bottom-right aligned masks need seqlen_q and seqlen_k multiples of 64 before cuDNN 9.6; " + loaded;
    }
    if (m.left_bound && version < 90600) return "a bottom-right sliding window with seqlen_q != seqlen_k needs 9.6";
  }
  if (m.left_bound) {
    if (version < 90200) return "sliding windows need cuDNN 9.2; " + loaded;
    if (!m.right_bound && version < 91002) return "a left bound without a right bound needs cuDNN 9.10.2; " + loaded;
    if (!m.right_bound && version == 91400 && p.seqlen_k > 1024) {
      return "cuDNN 9.14.0 has a known bug with non-causal sliding windows over more than 1024 keys";
    }
  }

  out.mask = m;
  CudnnSdpaShape& s = out.shape;
  s.heads = p.heads;
  s.kv_heads = p.kv_heads;
  s.head_dim = p.head_dim;
  s.dtype = p.dtype;
  s.scale = p.scale();
  s.left_bound = m.left_bound;
  s.right_bound = m.right_bound;
  s.diagonal_offset = m.diagonal_offset;
  s.ragged = m.documents();
  if (!s.ragged) {
    s.batch = p.batch;
    s.seqlen_q = p.seqlen_q;
    s.seqlen_k = p.seqlen_k;
    return {};
  }
  const int64_t longest = *std::max_element(m.document_lengths.begin(), m.document_lengths.end());
  s.batch = p.batch * static_cast<int64_t>(m.document_lengths.size());
  s.seqlen_q = longest;
  s.seqlen_k = longest;
  for (int64_t b = 0; b < p.batch; ++b) {
    int64_t start = b * p.seqlen_q;
    for (int64_t length : m.document_lengths) {
      out.sequence_starts.push_back(start);
      out.sequence_lengths.push_back(static_cast<int32_t>(length));
      start += length;
    }
  }
  const int64_t largest_offset = p.batch * p.seqlen_q * std::max(p.heads, p.kv_heads) * p.head_dim;
  s.offsets_int64 = largest_offset > largest_int32_offset;
  return {};
}

// Built plans by (device, shape, pass), or why cuDNN has none. A few recent ones are kept.
class GraphCache {
 public:
  struct Entry {
    std::shared_ptr<const CudnnSdpaGraph> graph;
    std::string failure;
  };

  Entry get(int device, const CudnnSdpaShape& shape, Pass pass) {
    const std::string key = std::to_string(device) + " " + shape.key(pass);
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return it->second;
      }
    }
    Entry entry;
    try {
      entry.graph = CudnnSdpaGraph::build(handle_for(device), shape, pass);
    } catch (const CudnnNotSupported& e) {
      entry.failure = e.what();
    }
    entries_.emplace_front(key, entry);
    if (entries_.size() > kCapacity) entries_.pop_back();
    return entry;
  }

 private:
  static constexpr size_t kCapacity = 16;
  std::mutex mutex_;
  std::list<std::pair<std::string, Entry>> entries_;
};

GraphCache& graph_cache() {
  static GraphCache cache;
  return cache;
}

// Empty when the loaded cuDNN's backward can be trusted with the mapped problem, else why not. Measured, not from
// cuDNN's documentation: cuDNN 9.14.0's backward of ragged batches (document masks) at head dim 256 returned dQ
// 32% off and NaN in dK/dV in lcab's GPU tests (H100, 2026-11-23; its forward and the non-ragged backward at
// head dim 256 passed). Newer versions are let through; the GPU tests judge them on the machine that loads them.
std::string backward_defect(const CudnnMapping& mapping, int64_t version, int64_t head_dim) {
  if (mapping.shape.ragged && head_dim > 128 && version <= 91400) {
    return "cuDNN " + cudnn_version_string(version) +
           "'s backward of ragged batches (document masks) at head_dim > 128 gives wrong dQ/dK/dV "
           "(lcab's GPU tests on an H100)";
  }
  return "";
}

std::string no_plan(Pass pass, const std::string& failure) {
  return std::string("cuDNN ") + cudnn_version_string(cudnn_runtime_version()) + " has no " +
         (pass == Pass::kForward ? "forward" : "backward") + " plan: " + failure;
}

class CudnnPlan final : public AttentionPlan {
 public:
  CudnnPlan(const AttentionProblem& problem, CudnnMapping mapping, int device,
            std::shared_ptr<const CudnnSdpaGraph> forward, GraphCache::Entry backward)
      : p_(problem),
        m_(std::move(mapping)),
        handle_(handle_for(device)),
        forward_(std::move(forward)),
        backward_(std::move(backward.graph)),
        backward_failure_(std::move(backward.failure)),
        zero_dq_accumulator_(cudnn_runtime_version() < 90600) {
    workspace_ = DeviceBuffer(static_cast<size_t>(forward_->workspace_bytes()));
    if (m_.shape.ragged) {
      const int64_t sequences = static_cast<int64_t>(m_.sequence_starts.size());
      std::vector<int64_t> q(sequences + 1), kv(sequences + 1), stats(sequences + 1);
      for (int64_t n = 0; n <= sequences; ++n) {
        const int64_t token = n < sequences ? m_.sequence_starts[static_cast<size_t>(n)] : p_.batch * p_.seqlen_q;
        q[static_cast<size_t>(n)] = token * p_.heads * p_.head_dim;
        kv[static_cast<size_t>(n)] = token * p_.kv_heads * p_.head_dim;
        stats[static_cast<size_t>(n)] = token * p_.heads;
      }
      q_offsets_ = upload_offsets(q);
      kv_offsets_ = upload_offsets(kv);
      stats_offsets_ = upload_offsets(stats);
      sequence_lengths_ = DeviceBuffer::upload(m_.sequence_lengths);
      stats_ = DeviceBuffer(static_cast<size_t>(p_.batch * p_.seqlen_q * p_.heads) * sizeof(float));
    }
  }

  int64_t workspace_bytes() const override {
    return static_cast<int64_t>(workspace_.bytes() + q_offsets_.bytes() + kv_offsets_.bytes() +
                                stats_offsets_.bytes() + sequence_lengths_.bytes() + stats_.bytes() +
                                softmax_sum_.bytes() + dq_accumulator_.bytes() + dk_full_heads_.bytes() +
                                dv_full_heads_.bytes());
  }

  void forward(const ForwardArgs& args) override {
    LCAB_CUDNN_CHECK(cudnnSetStream(handle_, args.stream));
    Pointers pointers = common_pointers();
    slot(pointers, CudnnTensor::kQ) = const_cast<void*>(args.q);
    slot(pointers, CudnnTensor::kK) = const_cast<void*>(args.k);
    slot(pointers, CudnnTensor::kV) = const_cast<void*>(args.v);
    slot(pointers, CudnnTensor::kO) = args.out;
    slot(pointers, CudnnTensor::kStats) = m_.shape.ragged ? stats_.as<void>() : args.lse;
    forward_->execute(handle_, pointers, workspace_.as<void>());
    if (m_.shape.ragged) {  // [batch, tokens, heads] -> [batch, heads, tokens]
      transpose_batched_f32(stats_.as<float>(), args.lse, p_.batch, p_.seqlen_q, p_.heads, args.stream);
    }
  }

  void backward(const BackwardArgs& args) override {
    LCAB_CHECK(backward_ != nullptr, no_plan(Pass::kBackward, backward_failure_));
    if (dq_accumulator_.bytes() == 0) {  // first backward: its scratch (a forward-only plan holds none of it)
      const size_t rows = static_cast<size_t>(p_.batch * p_.heads * p_.seqlen_q);
      softmax_sum_ = DeviceBuffer(rows * sizeof(float));
      dq_accumulator_ = DeviceBuffer(rows * static_cast<size_t>(p_.head_dim) * sizeof(float));
      if (backward_->uses(CudnnTensor::kDKFullHeads)) {
        // [tokens, heads, d], sized in fp32 as cudnn-frontend sizes it
        const size_t full_heads = static_cast<size_t>(p_.batch * p_.seqlen_k * p_.heads * p_.head_dim) * 4;
        dk_full_heads_ = DeviceBuffer(full_heads);
        dv_full_heads_ = DeviceBuffer(full_heads);
      }
      if (workspace_.bytes() < static_cast<size_t>(backward_->workspace_bytes())) {
        workspace_ = DeviceBuffer(static_cast<size_t>(backward_->workspace_bytes()));
      }
    }
    LCAB_CUDNN_CHECK(cudnnSetStream(handle_, args.stream));
    Pointers pointers = common_pointers();
    slot(pointers, CudnnTensor::kQ) = const_cast<void*>(args.q);
    slot(pointers, CudnnTensor::kK) = const_cast<void*>(args.k);
    slot(pointers, CudnnTensor::kV) = const_cast<void*>(args.v);
    slot(pointers, CudnnTensor::kO) = const_cast<void*>(args.out);
    slot(pointers, CudnnTensor::kDO) = const_cast<void*>(args.dout);
    slot(pointers, CudnnTensor::kDQ) = args.dq;
    slot(pointers, CudnnTensor::kDK) = args.dk;
    slot(pointers, CudnnTensor::kDV) = args.dv;
    slot(pointers, CudnnTensor::kSoftmaxSum) = softmax_sum_.as<void>();
    slot(pointers, CudnnTensor::kDQAccumulator) = dq_accumulator_.as<void>();
    slot(pointers, CudnnTensor::kDKFullHeads) = dk_full_heads_.as<void>();
    slot(pointers, CudnnTensor::kDVFullHeads) = dv_full_heads_.as<void>();
    if (m_.shape.ragged) {  // [batch, heads, tokens] -> [batch, tokens, heads]
      transpose_batched_f32(args.lse, stats_.as<float>(), p_.batch, p_.heads, p_.seqlen_q, args.stream);
      slot(pointers, CudnnTensor::kStats) = stats_.as<void>();
    } else {
      slot(pointers, CudnnTensor::kStats) = const_cast<float*>(args.lse);
    }
    if (zero_dq_accumulator_) {  // cuDNN before 9.6 accumulates into whatever the buffer holds
      LCAB_CUDA_CHECK(cudaMemsetAsync(dq_accumulator_.as<void>(), 0, dq_accumulator_.bytes(), args.stream));
    }
    backward_->execute(handle_, pointers, workspace_.as<void>());
  }

 private:
  DeviceBuffer upload_offsets(const std::vector<int64_t>& offsets) const {
    if (m_.shape.offsets_int64) return DeviceBuffer::upload(offsets);
    std::vector<int32_t> narrow(offsets.begin(), offsets.end());
    return DeviceBuffer::upload(narrow);
  }

  Pointers common_pointers() const {
    Pointers pointers{};
    slot(pointers, CudnnTensor::kSeqLenQ) = sequence_lengths_.as<void>();
    slot(pointers, CudnnTensor::kSeqLenKV) = sequence_lengths_.as<void>();
    slot(pointers, CudnnTensor::kQOffsets) = q_offsets_.as<void>();
    slot(pointers, CudnnTensor::kKVOffsets) = kv_offsets_.as<void>();
    slot(pointers, CudnnTensor::kStatsOffsets) = stats_offsets_.as<void>();
    return pointers;
  }

  AttentionProblem p_;
  CudnnMapping m_;
  cudnnHandle_t handle_;
  std::shared_ptr<const CudnnSdpaGraph> forward_;
  std::shared_ptr<const CudnnSdpaGraph> backward_;
  std::string backward_failure_;
  bool zero_dq_accumulator_;
  DeviceBuffer workspace_;
  DeviceBuffer q_offsets_, kv_offsets_, stats_offsets_, sequence_lengths_;
  DeviceBuffer stats_;  ///< ragged: cuDNN's token-major stats
  DeviceBuffer softmax_sum_, dq_accumulator_, dk_full_heads_, dv_full_heads_;
};

class CudnnAttention final : public AttentionImpl {
 public:
  explicit CudnnAttention(int64_t largest_int32_offset) : largest_int32_offset_(largest_int32_offset) {}
  std::string name() const override { return "cudnn"; }
  std::string description() const override {
    return "cuDNN fused flash attention via the backend graph API (full, causal, sliding window, documents as "
           "ragged batches)";
  }

  Support supports(const AttentionProblem& problem, Pass pass) const override {
    try {
      const DeviceInfo device = current_device();
      CudnnMapping mapping;
      const std::string reason =
          map_problem(problem, cudnn_runtime_version(), device.sm, largest_int32_offset_, mapping);
      if (!reason.empty()) return Support::no(reason);
      if (pass == Pass::kBackward) {
        const std::string defect = backward_defect(mapping, cudnn_runtime_version(), problem.head_dim);
        if (!defect.empty()) return Support::no(defect);
      }
      for (Pass needed : {Pass::kForward, Pass::kBackward}) {
        if (needed == Pass::kBackward && pass == Pass::kForward) break;
        const GraphCache::Entry entry = graph_cache().get(device.device, mapping.shape, needed);
        if (!entry.graph) return Support::no(no_plan(needed, entry.failure));
      }
      return Support::yes();
    } catch (const std::exception& e) {
      return Support::no(std::string("cuDNN: ") + e.what());
    }
  }

  std::unique_ptr<AttentionPlan> prepare(const AttentionProblem& problem) const override {
    const DeviceInfo device = current_device();
    CudnnMapping mapping;
    const std::string reason =
        map_problem(problem, cudnn_runtime_version(), device.sm, largest_int32_offset_, mapping);
    LCAB_CHECK(reason.empty(), "cudnn: " << reason);
    const GraphCache::Entry forward = graph_cache().get(device.device, mapping.shape, Pass::kForward);
    LCAB_CHECK(forward.graph != nullptr, no_plan(Pass::kForward, forward.failure));
    GraphCache::Entry backward = graph_cache().get(device.device, mapping.shape, Pass::kBackward);
    const std::string defect = backward_defect(mapping, cudnn_runtime_version(), problem.head_dim);
    if (!defect.empty()) backward = GraphCache::Entry{nullptr, defect};  // backward() throws with the reason
    return std::make_unique<CudnnPlan>(problem, std::move(mapping), device.device, forward.graph, std::move(backward));
  }

 private:
  int64_t largest_int32_offset_;
};

}  // namespace

std::unique_ptr<AttentionImpl> make_cudnn_attention() {
  return std::make_unique<CudnnAttention>(std::numeric_limits<int32_t>::max());
}

std::unique_ptr<AttentionImpl> make_cudnn_attention_with_int32_offsets_up_to(int64_t largest_int32_offset) {
  return std::make_unique<CudnnAttention>(largest_int32_offset);
}

}  // namespace lcab::kernels
