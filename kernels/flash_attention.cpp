// lcab_flash behind the AttentionImpl interface: prepare() picks the code path for the current device (the
// Hopper kernels on sm_90 when built for sm_90a, mma.sync otherwise, or mma.sync everywhere for `lcab_flash_sm80`), builds both passes' work lists for those paths' tile shapes and uploads them;
// forward()/backward() only launch kernels (plus a lazily allocated dQ accumulator).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "kernels/compressible_buffer.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/flash_kernels.h"
#include "kernels/flash_tiles.h"
#include "kernels/flash_work.h"
#include "kernels/hopper/flash_sm90.h"
#include "kernels/implementations.h"
#include "kernels/mma_sync_fit.h"
#include "model/cli_values.h"
#include "model/perf/backward_tail.h"

namespace lcab::kernels {
namespace {

struct UploadedWork {
  DeviceBuffer order, run_offsets, cta_items, cta_walks, tail_heads, tail_needs, runs, run_masks, slice_offsets,
      slices;
  flash::DeviceWork view;

  explicit UploadedWork(const FlashPassWork& work)
      : order(DeviceBuffer::upload(work.outer_order)),
        run_offsets(DeviceBuffer::upload(work.run_offsets)),
        cta_items(DeviceBuffer::upload(work.grid_items.empty() ? work.cta_items : work.grid_items)),
        cta_walks(DeviceBuffer::upload(work.grid_items.empty() ? work.cta_walks : work.grid_walks)),
        tail_heads(DeviceBuffer::upload(work.tail_heads)),
        tail_needs(DeviceBuffer::upload(work.tail_needs)),
        runs(DeviceBuffer::upload(work.runs)),
        run_masks(DeviceBuffer::upload(work.run_masks)),
        slice_offsets(DeviceBuffer::upload(work.slice_offsets)),
        slices(DeviceBuffer::upload(work.slices)) {
    view.shape = work.shape;
    view.outer_order = order.as<int32_t>();
    view.run_offsets = run_offsets.as<int32_t>();
    view.cta_items = cta_items.as<int32_t>();
    view.cta_walks = cta_walks.as<int8_t>();
    view.tail_heads = tail_heads.as<int32_t>();
    view.tail_needs = tail_needs.as<int32_t>();
    view.tail_counters = static_cast<int32_t>(work.tail_needs.size());
    view.runs = runs.as<DeviceRun>();
    view.run_masks = work.run_masks.empty() ? nullptr : run_masks.as<DeviceRunMask>();
    view.slice_offsets = slice_offsets.as<int32_t>();
    view.slices = slices.as<DeviceSlice>();
    view.num_masks = work.num_masks;
    view.outer_tiles = work.outer_tiles;
    view.q_tile_rows = work.q_tile_rows;
    view.section_heads = work.section_heads;
    view.tail_chunk_rows = work.tail_chunk_rows;
    view.grid_blocks = static_cast<int64_t>(work.grid_items.empty() ? work.cta_items.size() : work.grid_items.size());
    view.decoupled_warpgroups = backward_warpgroups_decoupled(work) ? 1 : 0;  // (read by the backward only)
  }
  int64_t bytes() const {
    return static_cast<int64_t>(order.bytes() + run_offsets.bytes() + cta_items.bytes() + cta_walks.bytes() +
                                tail_heads.bytes() + tail_needs.bytes() + runs.bytes() + run_masks.bytes() +
                                slice_offsets.bytes() + slices.bytes());
  }
};

struct DeviceTraits {
  int major = 0;
  int minor = 0;
  int sm_count = 0;
  int shared_bytes_per_block = 0;  ///< the per-block opt-in limit of dynamic shared memory
};

DeviceTraits current_device() {
  int device = 0;
  DeviceTraits traits;
  LCAB_CUDA_CHECK(cudaGetDevice(&device));
  LCAB_CUDA_CHECK(cudaDeviceGetAttribute(&traits.major, cudaDevAttrComputeCapabilityMajor, device));
  LCAB_CUDA_CHECK(cudaDeviceGetAttribute(&traits.minor, cudaDevAttrComputeCapabilityMinor, device));
  LCAB_CUDA_CHECK(cudaDeviceGetAttribute(&traits.sm_count, cudaDevAttrMultiProcessorCount, device));
  LCAB_CUDA_CHECK(
      cudaDeviceGetAttribute(&traits.shared_bytes_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return traits;
}

flash::MmaSyncDevice mma_sync_device(const DeviceTraits& device) {
  return {device.major, device.minor, static_cast<size_t>(device.shared_bytes_per_block)};
}

// The value of an environment variable that forces one of `valid` ("" when unset); any other value throws
// lcab::Error naming the variable and the valid values.
std::string forced_choice(const char* variable, std::initializer_list<std::string_view> valid) {
  const char* forced = std::getenv(variable);
  const std::string choice = forced ? forced : "";
  if (choice.empty() || std::find(valid.begin(), valid.end(), choice) != valid.end()) return choice;
  throw Error(std::string(variable) + "='" + choice + "'; valid: " + join({valid.begin(), valid.end()}) + " (or unset)");
}

// The mma.sync backward's tile on this device (mma_sync_backward_tile); at head dim 64 the environment variable
// LCAB_FLASH_BACKWARD_QUERIES=64|128 forces its queries per step (the GPU tests run both).
TileShape mma_sync_backward_tile_on(const DeviceTraits& device, int head_dim) {
  const std::string forced =
      head_dim == 64 ? forced_choice("LCAB_FLASH_BACKWARD_QUERIES", {"64", "128"}) : std::string();
  return flash::mma_sync_backward_tile(mma_sync_device(device), head_dim, forced.empty() ? 0 : std::stoi(forced));
}

// Why this device cannot run `pass` of the mma.sync kernels at `head_dim` ("" when it can; mma_sync_fit.h), the
// backward with `backward_queries` per step (unused for the forward).
std::string mma_sync_shortfall_on(const DeviceTraits& device, int head_dim, Pass pass, int backward_queries) {
  const size_t asked = pass == Pass::kForward ? flash::forward_shared_bytes(head_dim)
                                              : flash::backward_shared_bytes(head_dim, backward_queries);
  return flash::mma_sync_shortfall(mma_sync_device(device), asked, head_dim, pass);
}

/// How an lcab_flash registration chooses the forward's code path.
enum class PathChoice { kBestForDevice, kMmaSyncOnly };

FlashArch path_for(PathChoice choice, const DeviceTraits& device) {
  if (choice == PathChoice::kBestForDevice && device.major == 9 && flash::sm90_kernels_built()) return FlashArch::kSm90;
  return FlashArch::kMmaSync;
}

/// The current device's traits; none where no GPU is visible or a query fails (never throws).
std::optional<DeviceTraits> visible_device() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  try {
    return current_device();
  } catch (const Error&) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
}


// The backward's work list. On the Hopper path its kernel walks the q-tile row's slices on partial tiles or reads
// run masks, per mask (kBackwardRunMaskSlicesPerPartialTile, flash_work.h); the environment variable
// LCAB_FLASH_BACKWARD_MASKING=slices|run_masks forces one (the GPU tests run both on every mask).
FlashPassWork build_flash_backward_work_lists(const AttentionProblem& problem, FlashArch arch, TileShape shape,
                                              int sm_count) {
  const bool hopper = arch == FlashArch::kSm90;
  FlashPassWork plain = build_backward_work(problem, shape, sm_count, /*pair_documents=*/true,
                                            BackwardMasking::kSlices, /*idle_halves=*/hopper);
  if (!hopper || !backward_run_masks_built(problem.head_dim)) return plain;
  const std::string choice = forced_choice("LCAB_FLASH_BACKWARD_MASKING", {"slices", "run_masks"});
  const bool run_masks = choice.empty() ? slices_per_partial_tile(plain) >= kBackwardRunMaskSlicesPerPartialTile
                                        : choice == "run_masks";
  if (!run_masks) return plain;
  return build_backward_work(problem, shape, sm_count, /*pair_documents=*/true, BackwardMasking::kRunMasks,
                             /*idle_halves=*/hopper);
}

// The Hopper grid's blocks: each head's dQ conversion one wave after its last dK/dV CTA where the CTAs are about equally
// long (backward_conversion_after_heads), at the grid's end otherwise. LCAB_FLASH_BACKWARD_CONVERSION=after_heads|end
// forces one.
FlashPassWork with_grid_order(FlashPassWork work, const AttentionProblem& problem, int sm_count) {
  const std::string choice = forced_choice("LCAB_FLASH_BACKWARD_CONVERSION", {"after_heads", "end"});
  const bool after_heads = choice.empty() ? backward_conversion_after_heads(work) : choice == "after_heads";
  interleave_backward_conversion(work, perf::backward_tail_chunks_per_head(problem.seqlen_q, work.tail_chunk_rows),
                                 after_heads ? sm_count : -1);
  return work;
}

// The dQ accumulator's memory: compressible (CompressibleBuffer) unless LCAB_FLASH_DQ_COMPRESSION=0 asks for plain
// device memory.
CompressibleBuffer::Request dq_accum_request() {
  return forced_choice("LCAB_FLASH_DQ_COMPRESSION", {"0", "1"}) == "0" ? CompressibleBuffer::Request::kPlain : CompressibleBuffer::Request::kCompressible;
}

// The backward's tile: flash_tile_shape's on the Hopper path, the device's choice on the mma.sync path.
TileShape backward_tile_shape(const AttentionProblem& problem, FlashArch arch, const DeviceTraits& device) {
  if (arch == FlashArch::kSm90) return flash_tile_shape(problem.head_dim, problem.dtype, Pass::kBackward, arch);
  return mma_sync_backward_tile_on(device, static_cast<int>(problem.head_dim));
}

// The backward's lists, and on the Hopper path the order of its grid's blocks.
FlashPassWork build_flash_backward_work(const AttentionProblem& problem, FlashArch arch, const DeviceTraits& device) {
  FlashPassWork work = build_flash_backward_work_lists(problem, arch, backward_tile_shape(problem, arch, device),
                                                       device.sm_count);
  if (arch != FlashArch::kSm90) return work;
  return with_grid_order(std::move(work), problem, device.sm_count);
}

class FlashPlan final : public AttentionPlan {
 public:
  FlashPlan(const AttentionProblem& problem, FlashArch arch, const DeviceTraits& device)
      : problem_(problem),
        arch_(arch),
        sm_count_(device.sm_count),
        forward_work_(build_forward_work(
            problem, flash_tile_shape(problem.head_dim, problem.dtype, Pass::kForward, arch),
            arch == FlashArch::kSm90 ? ForwardMasking::kRunMasks : ForwardMasking::kSlices)),
        backward_work_(build_flash_backward_work(problem, arch, device)) {
    shape_.batch = static_cast<int32_t>(problem.batch);
    shape_.heads = static_cast<int32_t>(problem.heads);
    shape_.kv_heads = static_cast<int32_t>(problem.kv_heads);
    shape_.seqlen_q = static_cast<int32_t>(problem.seqlen_q);
    shape_.seqlen_k = static_cast<int32_t>(problem.seqlen_k);
    shape_.scale = problem.scale();
    const int head_dim = static_cast<int>(problem.head_dim);
    if (arch_ == FlashArch::kSm90) {
      flash::configure_forward_sm90(problem.dtype, head_dim);
      item_counter_ = DeviceBuffer(sizeof(int));
    } else {
      flash::configure_forward(problem.dtype, head_dim);
    }
    if (arch_ == FlashArch::kSm90) {
      flash::configure_backward_sm90(problem.dtype, head_dim);
    } else {
      // A forward-only plan where the backward's CTA does not fit (supports() says so for the backward pass).
      const int backward_queries = backward_work_.view.shape.q;  // the tile its list was built for
      backward_shortfall_ = mma_sync_shortfall_on(device, head_dim, Pass::kBackward, backward_queries);
      if (backward_shortfall_.empty()) flash::configure_backward(problem.dtype, head_dim, backward_queries);
    }
  }

  int64_t workspace_bytes() const override {
    return forward_work_.bytes() + backward_work_.bytes() +
           static_cast<int64_t>(dq_accum_.reserved_bytes() + delta_.bytes() + item_counter_.bytes() +
                                backward_counters_.bytes());
  }

  void forward(const ForwardArgs& args) override {
    flash::ForwardParams params;
    params.shape = shape_;
    params.work = forward_work_.view;
    params.q = args.q;
    params.k = args.k;
    params.v = args.v;
    params.out = args.out;
    params.lse = args.lse;
    const int head_dim = static_cast<int>(problem_.head_dim);
    if (arch_ == FlashArch::kSm90) {
      flash::launch_forward_sm90(params, problem_.dtype, head_dim, item_counter_.as<int>(), sm_count_, args.stream);
    } else {
      flash::launch_forward(params, problem_.dtype, head_dim, args.stream);
    }
  }

  void backward(const BackwardArgs& args) override {
    LCAB_CHECK(backward_shortfall_.empty(), backward_shortfall_);
    const int64_t q_elems = problem_.batch * problem_.seqlen_q * problem_.heads * problem_.head_dim;
    if (dq_accum_.bytes() == 0) {
      // Allocated on first use so that forward-only callers do not pay for it; a measurement's warm-up run
      // absorbs the allocation.
      // Compressible where the GPU grants it: the accumulator is zero before the grid and written zero again by
      // it, and zero lines cost the DRAM a fraction of their bytes (CompressibleBuffer, dq_accum_request).
      dq_accum_ = CompressibleBuffer(static_cast<size_t>(q_elems) * sizeof(float), dq_accum_request());
      if (arch_ == FlashArch::kSm90) {
        // Zeroed once: every Hopper backward leaves it zero again (its grid's tail writes zeros back over the rows it
        // converts), so no call zeroes it in front of its grid (BackwardParams::dq_accum_zeroed).
        LCAB_CUDA_CHECK(cudaMemsetAsync(dq_accum_.as<float>(), 0, dq_accum_.bytes(), args.stream));
      } else if (const char* poison = std::getenv("LCAB_FLASH_POISON_WORKSPACE"); poison != nullptr && poison[0] == '1') {
        // LCAB_FLASH_POISON_WORKSPACE=1 fills the accumulator with NaN once allocated (fresh device memory is often
        // zero): the GPU tests set it, so that a backward that reads rows of it it has not zeroed fails them.
        LCAB_CUDA_CHECK(cudaMemsetAsync(dq_accum_.as<float>(), 0xff, dq_accum_.bytes(), args.stream));
      }
      delta_ = DeviceBuffer(static_cast<size_t>(problem_.batch * problem_.heads * problem_.seqlen_q) * sizeof(float));
      if (arch_ == FlashArch::kSm90) {
        // (at least one: a call without query rows has no conversion chunks, but its launch checks for the buffer)
        backward_counters_ =
            DeviceBuffer(static_cast<size_t>(std::max<int32_t>(1, backward_work_.view.tail_counters)) * sizeof(int));
      }
    }
    flash::BackwardParams params;
    params.shape = shape_;
    params.work = backward_work_.view;
    params.q = args.q;
    params.k = args.k;
    params.v = args.v;
    params.out = args.out;
    params.dout = args.dout;
    params.lse = args.lse;
    params.dq = args.dq;
    params.dk = args.dk;
    params.dv = args.dv;
    params.dq_accum = dq_accum_.as<float>();
    params.delta = delta_.as<float>();
    params.counters = backward_counters_.as<int>();
    params.dq_accum_zeroed = arch_ == FlashArch::kSm90;
    if (arch_ == FlashArch::kSm90) {
      flash::launch_backward_sm90(params, problem_.dtype, static_cast<int>(problem_.head_dim), args.stream);
    } else {
      flash::launch_backward(params, problem_.dtype, static_cast<int>(problem_.head_dim), args.stream);
    }
  }

 private:
  AttentionProblem problem_;
  FlashArch arch_;
  int sm_count_;
  std::string backward_shortfall_;  ///< why this GPU cannot run the mma.sync backward ("" when it can)
  flash::Shape shape_;
  UploadedWork forward_work_;
  UploadedWork backward_work_;
  CompressibleBuffer dq_accum_;  ///< fp32 dQ accumulator (BackwardParams::dq_accum)
  DeviceBuffer delta_;
  DeviceBuffer item_counter_;  ///< the Hopper forward's work-item counter (plans are not shared across streams)
  DeviceBuffer backward_counters_;  ///< the Hopper backward's conversion counters (BackwardParams::counters)
};

class FlashAttention final : public AttentionImpl {
 public:
  explicit FlashAttention(PathChoice choice) : choice_(choice) {}
  std::string name() const override {
    return choice_ == PathChoice::kBestForDevice ? "lcab_flash" : "lcab_flash_sm80";
  }
  std::string description() const override {
    if (choice_ == PathChoice::kMmaSyncOnly) {
      return "lcab_flash restricted to its FlashAttention-2-style mma.sync kernels (sm_80+) on every GPU";
    }
    return "host-built tile work lists for any slice mask, bf16/fp16, GQA; on Hopper TMA + wgmma with warp "
           "specialization (sm_90a, head dims 64, 128 and 256), elsewhere FlashAttention-2-style mma.sync (sm_80+, "
           "head dims 64 and 128)";
  }
  Support supports(const AttentionProblem& problem, Pass pass) const override {
    if (!flash_supports_head_dim(problem.head_dim, FlashArch::kSm90)) {
      return Support::no("lcab_flash supports head dims 64 and 128 (and 256 on Hopper), not " +
                         std::to_string(problem.head_dim));
    }
    constexpr int64_t kIndexLimit = std::numeric_limits<int32_t>::max() / 2;
    if (problem.seqlen_q > kIndexLimit || problem.seqlen_k > kIndexLimit || problem.heads > kIndexLimit) {
      return Support::no("lcab_flash indexes tokens with 32-bit integers");
    }
    // The device decides the rest: the code path prepare() would pick (the mma.sync path where no GPU is visible,
    // what a host-only caller can rely on), whose head dims 256 is not (Hopper kernels only), and whether the GPU can
    // run the mma.sync kernels this pass would take: not older than sm_80, nor where a CTA's shared memory is past
    // its limit (the hd 128 backward on sm_86 and sm_89; unknown without a visible GPU).
    const std::optional<DeviceTraits> device = visible_device();
    const FlashArch path = device ? path_for(choice_, *device) : FlashArch::kMmaSync;
    if (!flash_supports_head_dim(problem.head_dim, path)) {
      return Support::no("lcab_flash runs head dim " + std::to_string(problem.head_dim) +
                         " on its Hopper kernels only (sm_90a on an sm_90 GPU)");
    }
    if (device && path == FlashArch::kMmaSync) {
      const int head_dim = static_cast<int>(problem.head_dim);
      std::string why;
      try {  // (an invalid LCAB_FLASH_BACKWARD_QUERIES throws: the backward is unsupported, and says why)
        const int backward_queries = pass == Pass::kBackward ? mma_sync_backward_tile_on(*device, head_dim).q : 0;
        why = mma_sync_shortfall_on(*device, head_dim, pass, backward_queries);
      } catch (const Error& e) {
        why = e.what();
      }
      if (!why.empty()) return Support::no(why);
    }
    return Support::yes();
  }
  std::unique_ptr<AttentionPlan> prepare(const AttentionProblem& problem) const override {
    const Support support = supports(problem, Pass::kForward);
    LCAB_CHECK(support.supported, support.reason);
    const DeviceTraits device = current_device();
    return std::make_unique<FlashPlan>(problem, path_for(choice_, device), device);
  }

 private:
  PathChoice choice_;
};

}  // namespace

std::unique_ptr<AttentionImpl> make_flash_attention() {
  return std::make_unique<FlashAttention>(PathChoice::kBestForDevice);
}
std::unique_ptr<AttentionImpl> make_flash_attention_mma_sync() {
  return std::make_unique<FlashAttention>(PathChoice::kMmaSyncOnly);
}

}  // namespace lcab::kernels
