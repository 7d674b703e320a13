#include "measure/kernel_bench.h"

#include <algorithm>

#include <cuda_runtime_api.h>

#include "kernels/cuda_check.h"
#include "measure/cupti_tracer.h"
#include "measure/device_buffer.h"
#include "measure/random_fill.h"

namespace lcab::measure {

namespace {

// Device tensors of one point, filled with random values (out/lse are produced by a forward run for bwd).
struct AttentionTensors {
  DeviceBuffer q, k, v, out, lse, dout, dq, dk, dv;
};

AttentionTensors allocate_tensors(const kernels::AttentionProblem& p, bool backward, cudaStream_t stream) {
  const size_t element = static_cast<size_t>(kernels::dtype_bytes(p.dtype));
  const int64_t q_count = p.batch * p.seqlen_q * p.heads * p.head_dim;
  const int64_t kv_count = p.batch * p.seqlen_k * p.kv_heads * p.head_dim;
  AttentionTensors t;
  t.q = DeviceBuffer(q_count * element);
  t.k = DeviceBuffer(kv_count * element);
  t.v = DeviceBuffer(kv_count * element);
  t.out = DeviceBuffer(q_count * element);
  t.lse = DeviceBuffer(static_cast<size_t>(p.batch * p.heads * p.seqlen_q) * sizeof(float));
  const FillType type = p.dtype == kernels::DType::kBf16 ? FillType::kBf16 : FillType::kFp16;
  fill_random(t.q.get(), q_count, type, 1, 1.0f, stream);
  fill_random(t.k.get(), kv_count, type, 2, 1.0f, stream);
  fill_random(t.v.get(), kv_count, type, 3, 1.0f, stream);
  fill_random(t.out.get(), q_count, type, 4, 1.0f, stream);  // overwritten by the kernel; never zeros
  if (backward) {
    t.dout = DeviceBuffer(q_count * element);
    t.dq = DeviceBuffer(q_count * element);
    t.dk = DeviceBuffer(kv_count * element);
    t.dv = DeviceBuffer(kv_count * element);
    fill_random(t.dout.get(), q_count, type, 5, 1.0f, stream);
  }
  return t;
}

// After a failed point: make sure nothing is pending and no error is left for the next point.
bool context_still_usable() {
  const cudaError_t sync = cudaDeviceSynchronize();
  (void)cudaGetLastError();
  return !kernels::is_sticky_cuda_error(sync);
}

}  // namespace

KernelBenchResult measure_kernel_point(const kernels::AttentionImpl& impl, const KernelPoint& point,
                                       const Mask& mask, const TimingOptions& timing, const L2Flusher& flusher,
                                       cudaStream_t stream) {
  KernelBenchResult result;
  KernelMeasurement& m = result.measurement;
  m.area = mask.mean_area();
  m.warmup = timing.warmup;
  const bool backward = point.pass == "bwd";
  try {
    const kernels::DType dtype = point.dtype == "fp16" ? kernels::DType::kFp16 : kernels::DType::kBf16;
    const kernels::AttentionProblem problem =
        kernels::make_problem(mask, point.batch, point.heads, point.kv_heads, point.head_dim, dtype);
    const kernels::Support support =
        impl.supports(problem, backward ? kernels::Pass::kBackward : kernels::Pass::kForward);
    if (!support.supported) {
      m.status = "unsupported";
      m.error = support.reason.empty() ? "not supported by " + point.impl : support.reason;
      return result;
    }
    LCAB_CUDA_CHECK(cudaDeviceSynchronize());
    const int64_t baseline_bytes = device_memory_used_bytes();
    AttentionTensors t = allocate_tensors(problem, backward, stream);
    std::unique_ptr<kernels::AttentionPlan> plan = impl.prepare(problem);
    LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    int64_t peak_bytes = device_memory_used_bytes();

    kernels::ForwardArgs fwd{t.q.get(), t.k.get(), t.v.get(), t.out.get(), t.lse.as<float>(), stream};
    kernels::BackwardArgs bwd{t.q.get(),  t.k.get(),  t.v.get(),  t.out.get(), t.dout.get(), t.lse.as<float>(),
                              t.dq.get(), t.dk.get(), t.dv.get(), stream};
    if (backward) plan->forward(fwd);  // out and lse for the backward pass; not timed
    auto region = [&](cudaStream_t s) {
      if (backward) {
        bwd.stream = s;
        plan->backward(bwd);
      } else {
        fwd.stream = s;
        plan->forward(fwd);
      }
    };
    CuptiActivityTracer tracer;
    TimedRegion timed = time_region(region, timing, flusher, stream, &tracer);
    peak_bytes = std::max(peak_bytes, device_memory_used_bytes());
    m.region_ms = std::move(timed.region_ms);
    m.sm_clock_mhz = std::move(timed.sm_clock_mhz);
    m.kernels = summarize_region(timed.activities, timing.reps, flusher.bytes());
    m.peak_mem_bytes = std::max<int64_t>(0, peak_bytes - baseline_bytes);
    m.notes = "peak_mem_bytes: device memory in use (cudaMemGetInfo) after setup and after the runs, minus the "
              "memory in use before the point";
    result.activities = std::move(timed.activities);
    m.status = "ok";
  } catch (const kernels::OutOfMemory& e) {
    m.status = "oom";
    m.error = e.what();
    result.context_poisoned = !context_still_usable();
  } catch (const kernels::CudaContextPoisoned& e) {
    m.status = "error";
    m.error = e.what();
    result.context_poisoned = true;
  } catch (const std::exception& e) {
    m.status = "error";
    m.error = e.what();
    result.context_poisoned = !context_still_usable();
  }
  if (m.status != "ok") {
    m.region_ms.clear();
    m.kernels.reset();
  }
  return result;
}

}  // namespace lcab::measure
