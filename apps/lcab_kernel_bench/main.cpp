// lcab-kernel-bench: times attention implementations from the kernel registry (CUDA events, median of --iters
// runs after --warmup) over masks x sequence lengths x passes, and writes lcab.record/1 JSON Lines. A stand-in
// until `lcab-measure kernel` exists; the records have the same schema and key.
//
//   lcab-kernel-bench --impl lcab_flash --mask full,causal --seqlen 4k,16k --pass fwd,bwd --json out.jsonl
//   --docs FILE additionally writes, per (mask, seqlen), the mask's document lengths as JSON Lines so that
//   peers (PyTorch FlexAttention) can rebuild the same mask.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/cli/common_options.h"
#include "kernels/attention.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "measure/device_info.h"
#include "measure/kernel_record.h"
#include "measure/sm_clock.h"
#include "measure/time_stats.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "model/record.h"

namespace {

using lcab::kernels::AttentionImpl;
using lcab::kernels::AttentionPlan;
using lcab::kernels::AttentionProblem;
using lcab::kernels::DeviceBuffer;

// splitmix64 -> a float in [-2, 2), truncated to the top 16 bits (valid bf16; for fp16 built from the float).
void fill_random(std::vector<uint16_t>& bits, lcab::kernels::DType dtype, uint64_t seed) {
  uint64_t state = seed;
  for (uint16_t& b : bits) {
    state += 0x9e3779b97f4a7c15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const float value = static_cast<float>(z >> 40) / static_cast<float>(1 << 24) * 4.0f - 2.0f;
    if (dtype == lcab::kernels::DType::kBf16) {
      uint32_t u;
      std::memcpy(&u, &value, 4);
      b = static_cast<uint16_t>(u >> 16);
    } else {
      // fp16 from float: values in [-2, 2) are normal or zero-ish; round by truncating the mantissa.
      uint32_t u;
      std::memcpy(&u, &value, 4);
      const uint32_t sign = (u >> 16) & 0x8000u;
      const int exponent = static_cast<int>((u >> 23) & 0xff) - 127 + 15;
      b = exponent <= 0 ? static_cast<uint16_t>(sign)
                        : static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent) << 10) | ((u >> 13) & 0x3ffu));
    }
  }
}

struct Tensors {
  DeviceBuffer q, k, v, out, dout, dq, dk, dv, lse;
};

Tensors make_tensors(const AttentionProblem& p) {
  const size_t q_count = static_cast<size_t>(p.batch * p.seqlen_q * p.heads * p.head_dim);
  const size_t kv_count = static_cast<size_t>(p.batch * p.seqlen_k * p.kv_heads * p.head_dim);
  Tensors t{DeviceBuffer(q_count * 2), DeviceBuffer(kv_count * 2), DeviceBuffer(kv_count * 2),
            DeviceBuffer(q_count * 2), DeviceBuffer(q_count * 2), DeviceBuffer(q_count * 2),
            DeviceBuffer(kv_count * 2), DeviceBuffer(kv_count * 2),
            DeviceBuffer(static_cast<size_t>(p.batch * p.heads * p.seqlen_q) * 4)};
  uint64_t seed = 1;
  for (DeviceBuffer* b : {&t.q, &t.k, &t.v, &t.dout}) {
    std::vector<uint16_t> host(b->bytes() / 2);
    fill_random(host, p.dtype, seed++);
    LCAB_CUDA_CHECK(cudaMemcpy(b->as<void>(), host.data(), b->bytes(), cudaMemcpyHostToDevice));
  }
  return t;
}

double percentile(std::vector<double> values, double fraction) {
  std::sort(values.begin(), values.end());
  const double position = fraction * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(position);
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (position - static_cast<double>(lo));
}

struct PassTiming {
  lcab::TimeStatsMs time_ms;
  std::vector<double> sm_clock_mhz;  ///< per timed run, where the markers measured it (measure/sm_clock.h)
};

PassTiming time_pass(AttentionPlan& plan, const Tensors& t, bool backward, int warmup, int iters) {
  lcab::kernels::ForwardArgs fwd{t.q.as<void>(), t.k.as<void>(), t.v.as<void>(), t.out.as<void>(), t.lse.as<float>(),
                                 nullptr};
  lcab::kernels::BackwardArgs bwd{t.q.as<void>(),  t.k.as<void>(),  t.v.as<void>(),  t.out.as<void>(),
                                  t.dout.as<void>(), t.lse.as<float>(), t.dq.as<void>(), t.dk.as<void>(),
                                  t.dv.as<void>(), nullptr};
  plan.forward(fwd);  // backward needs out and lse
  auto run = [&] { backward ? plan.backward(bwd) : plan.forward(fwd); };
  for (int n = 0; n < warmup; ++n) run();
  LCAB_CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  LCAB_CUDA_CHECK(cudaEventCreate(&start));
  LCAB_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  lcab::measure::SmClockProbe clock(2 * iters);
  PassTiming timing;
  for (int n = 0; n < iters; ++n) {
    clock.mark(nullptr);
    LCAB_CUDA_CHECK(cudaEventRecord(start));
    run();
    LCAB_CUDA_CHECK(cudaEventRecord(stop));
    clock.mark(nullptr);
    LCAB_CUDA_CHECK(cudaEventSynchronize(stop));
    LCAB_CUDA_CHECK(cudaDeviceSynchronize());
    float ms = 0;
    LCAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
    if (const std::optional<double> mhz = clock.clock_mhz(2 * n, 2 * n + 1)) timing.sm_clock_mhz.push_back(*mhz);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  timing.time_ms = {percentile(times, 0.5), percentile(times, 0.2), percentile(times, 0.8)};
  return timing;
}

int run(int argc, char** argv) {
  namespace po = lcab::cli::po;
  lcab::cli::WorkloadText text;
  lcab::cli::WorkloadOptions workload;
  lcab::cli::OutputOptions output;
  int warmup = 5;
  int iters = 20;
  std::string docs_path;
  po::options_description desc("lcab-kernel-bench options");
  lcab::cli::add_workload_options(desc, text, workload);
  lcab::cli::add_output_options(desc, output);
  desc.add_options()("warmup", po::value(&warmup)->default_value(5), "untimed runs first")(
      "iters", po::value(&iters)->default_value(20), "timed runs (median, p20, p80 reported)")(
      "docs", po::value(&docs_path), "write each mask's document lengths as JSON Lines to FILE");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!lcab::cli::parse_or_help(args, desc, "lcab-kernel-bench [options]")) return 0;
  lcab::cli::finish_workload_options(text, workload);
  LCAB_CHECK(iters > 0 && warmup >= 0, "--iters must be positive and --warmup non-negative");

  lcab::kernels::AttentionRegistry registry;
  lcab::kernels::register_all(registry);
  std::unique_ptr<lcab::RecordWriter> writer;
  if (!output.json_path.empty()) writer = std::make_unique<lcab::RecordWriter>(output.json_path);
  std::ofstream docs;
  if (!docs_path.empty()) docs.open(docs_path, std::ios::app);
  const lcab::DeviceInfo device = lcab::measure::query_device_info(0);
  const nlohmann::json meta = lcab::make_meta(argc, argv);

  std::printf("| impl | pass | mask | seqlen | heads | time_ms | TFLOP/s | SM MHz | status |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  // Every heads x kv heads x head dim of the lists, at every seqlen (the table and the records name each shape).
  struct HeadShape {
    int64_t heads, kv_heads, head_dim;
  };
  std::vector<HeadShape> head_shapes;
  for (int64_t heads : workload.heads) {
    for (int64_t kv_heads : workload.kv_heads) {
      for (int64_t head_dim : workload.head_dims) head_shapes.push_back({heads, kv_heads, head_dim});
    }
  }
  for (int64_t seqlen : workload.seqlens) {
    for (size_t shape_index = 0; shape_index < head_shapes.size(); ++shape_index) {
      const auto [heads, kv_heads, head_dim] = head_shapes[shape_index];
      // Inputs depend on the shape only: one set per (seqlen, head shape, dtype), shared by every mask and
      // implementation.
      std::optional<Tensors> tensors;
      std::string tensors_dtype;
      for (const std::string& spec : workload.masks) {
        const lcab::Mask mask = lcab::make_mask(spec, seqlen, kv_heads);
        if (docs.is_open() && shape_index == 0) {
          docs << nlohmann::json{{"mask", spec},
                                 {"seqlen", seqlen},
                                 {"document_lengths", mask.info().document_lengths},
                                 {"area", mask.mean_area()}}
                      .dump()
               << "\n";
        }
        for (const std::string& dtype_name : workload.dtypes) {
          const AttentionProblem problem =
              lcab::kernels::make_problem(mask, workload.batch, heads, kv_heads, head_dim,
                                          lcab::kernels::parse_dtype(dtype_name));
          for (const std::string& impl_name : workload.impls) {
            const AttentionImpl& impl = registry.find(impl_name);
            for (const std::string& pass : workload.passes) {
              const bool backward = pass == "bwd";
              lcab::Record record;
              record.key.impl = impl_name;
              record.key.pass = pass;
              record.key.mask = spec;
              record.key.seqlen = seqlen;
              record.key.batch = problem.batch;
              record.key.heads = problem.heads;
              record.key.kv_heads = problem.kv_heads;
              record.key.head_dim = problem.head_dim;
              record.key.dtype = dtype_name;
              record.device = device;
              record.meta = meta;
              record.area = mask.mean_area();
              const double flops = backward ? problem.backward_flops() : problem.forward_flops();
              record.flops = flops;
              const auto support =
                  impl.supports(problem, backward ? lcab::kernels::Pass::kBackward : lcab::kernels::Pass::kForward);
              if (!support.supported) {
                record.status = "unsupported";
                record.error = support.reason;
              } else {
                try {
                  if (!tensors || tensors_dtype != dtype_name) {
                    tensors.reset();
                    tensors.emplace(make_tensors(problem));
                    tensors_dtype = dtype_name;
                  }
                  std::unique_ptr<AttentionPlan> plan = impl.prepare(problem);
                  const PassTiming timing = time_pass(*plan, *tensors, backward, warmup, iters);
                  record.time_ms = timing.time_ms;
                  if (!timing.sm_clock_mhz.empty()) {
                    record.extra["sm_clock_mhz"] = lcab::measure::sm_clock_field(timing.sm_clock_mhz);
                  }
                  record.tflops = flops / (record.time_ms->median * 1e-3) / 1e12;
                  size_t free_bytes = 0, total_bytes = 0;
                  LCAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
                  record.peak_mem_bytes = static_cast<int64_t>(total_bytes - free_bytes);
                } catch (const lcab::kernels::OutOfMemory& e) {
                  record.status = "oom";
                  record.error = e.what();
                } catch (const lcab::Error& e) {
                  record.status = "error";
                  record.error = e.what();
                }
              }
              const double clock_mhz =
                  lcab::measure::record_sm_clock_mhz(record).value_or(0.0);
              std::printf("| %s | %s | %s | %lld | %lld/%lld hd%lld | %.3f | %.1f | %.0f | %s |\n", impl_name.c_str(),
                          pass.c_str(), spec.c_str(), static_cast<long long>(seqlen), static_cast<long long>(heads),
                          static_cast<long long>(kv_heads), static_cast<long long>(head_dim),
                          record.time_ms ? record.time_ms->median : 0.0, record.tflops.value_or(0.0), clock_mhz,
                          record.status.c_str());
              std::fflush(stdout);
              if (writer) writer->write(record);
            }
          }
        }
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lcab-kernel-bench: %s\n", e.what());
    return 1;
  }
}
