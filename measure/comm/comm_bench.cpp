#include "measure/comm/comm_bench.h"

#include <algorithm>
#include <exception>
#include <thread>

#include <cuda_runtime_api.h>

#include "measure/comm/nccl_bootstrap.h"
#include "cp/nccl_check.h"
#include "kernels/cuda_check.h"
#include "measure/device_buffer.h"
#include "measure/gpu_timing.h"
#include "measure/random_fill.h"
#include "measure/time_stats.h"

namespace lcab::measure {

namespace {

// A communicator freed when it goes out of scope (the group communicators of a layout).
class OwnedComm {
 public:
  explicit OwnedComm(ncclComm_t comm) : comm_(comm) {}
  ~OwnedComm() {
    if (comm_) ncclCommDestroy(comm_);
  }
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_;
};

CommResult time_one(const Collective& op, int64_t requested_bytes, const CommSweepOptions& options,
                    ncclComm_t group, int group_rank, int group_size, ncclComm_t world, int world_size,
                    const DeviceBuffer& send, const DeviceBuffer& recv, DeviceBuffer& times, cudaStream_t stream) {
  const size_t bytes = op.round_bytes(static_cast<size_t>(requested_bytes), group_size);
  auto call = [&] { op.run(send.get(), recv.get(), bytes, group_rank, group_size, group, stream); };
  for (int n = 0; n < options.warmup; ++n) call();
  LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<cudaEvent_t> events(2 * static_cast<size_t>(options.iters));
  for (cudaEvent_t& e : events) LCAB_CUDA_CHECK(cudaEventCreate(&e));
  std::vector<float> local_ms(options.iters);
  try {
    for (int n = 0; n < options.iters; ++n) {
      LCAB_CUDA_CHECK(cudaEventRecord(events[2 * n], stream));
      call();
      LCAB_CUDA_CHECK(cudaEventRecord(events[2 * n + 1], stream));
    }
    LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int n = 0; n < options.iters; ++n) {
      LCAB_CUDA_CHECK(cudaEventElapsedTime(&local_ms[n], events[2 * n], events[2 * n + 1]));
    }
  } catch (...) {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    throw;
  }
  for (cudaEvent_t e : events) cudaEventDestroy(e);

  // The slowest rank's time of every iteration.
  LCAB_CUDA_CHECK(cudaMemcpyAsync(times.get(), local_ms.data(), local_ms.size() * sizeof(float),
                                    cudaMemcpyHostToDevice, stream));
  LCAB_NCCL_CHECK(ncclAllReduce(times.get(), times.get(), local_ms.size(), ncclFloat32, ncclMax, world, stream));
  LCAB_CUDA_CHECK(cudaMemcpyAsync(local_ms.data(), times.get(), local_ms.size() * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream));
  LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));

  CommResult result;
  result.op = op.name();
  result.bytes = static_cast<int64_t>(bytes);
  result.world_size = world_size;
  result.group_size = group_size;
  result.chunk_bytes = static_cast<int64_t>(op.chunk_bytes(bytes, group_size));
  result.time_ms = summarize_times(std::vector<double>(local_ms.begin(), local_ms.end()));
  const double seconds = result.time_ms.median * 1e-3;
  result.algbw_gb_per_s = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0;
  result.busbw_gb_per_s = result.algbw_gb_per_s * op.bus_factor(group_size);
  return result;
}

}  // namespace

std::vector<CommResult> run_comm_sweep_rank(const CollectiveRegistry& registry, const CommSweepOptions& options,
                                            ncclComm_t world, int rank, int world_size, int device) {
  LCAB_CHECK(options.iters > 0, "--iters must be positive, got " << options.iters);
  LCAB_CHECK(options.warmup >= 0, "--warmup must not be negative, got " << options.warmup);
  LCAB_CHECK(!options.sizes.empty() && !options.ops.empty() && !options.groups.empty(),
             "nothing to measure: no sizes, operations or group layouts");
  for (const GroupLayout& layout : options.groups) layout.validate(world_size);
  LCAB_CUDA_CHECK(cudaSetDevice(device));

  std::vector<const Collective*> ops;
  for (const std::string& name : options.ops) ops.push_back(&registry.find(name));
  size_t send_bytes = 0, recv_bytes = 0;
  const size_t largest = static_cast<size_t>(*std::max_element(options.sizes.begin(), options.sizes.end()));
  for (const GroupLayout& layout : options.groups) {
    const int n = layout.size(world_size);
    for (const Collective* op : ops) {
      const CollectiveBuffers b = op->buffers(op->round_bytes(largest, n), n);
      send_bytes = std::max(send_bytes, b.send_bytes);
      recv_bytes = std::max(recv_bytes, b.recv_bytes);
    }
  }
  Stream stream;
  DeviceBuffer send(send_bytes), recv(recv_bytes), times(static_cast<size_t>(options.iters) * sizeof(float));
  fill_random(send.get(), static_cast<int64_t>(send_bytes / kCommElementBytes), FillType::kBf16,
              1000 + static_cast<uint64_t>(rank), 1.0f, stream.get());
  fill_random(recv.get(), static_cast<int64_t>(recv_bytes / kCommElementBytes), FillType::kBf16,
              2000 + static_cast<uint64_t>(rank), 1.0f, stream.get());

  std::vector<CommResult> results;
  for (const GroupLayout& layout : options.groups) {
    const int group_size = layout.size(world_size);
    const int group_rank = layout.rank_in_group(rank, world_size);
    ncclComm_t split = nullptr;
    if (layout.kind != GroupLayout::Kind::kWorld) {
      LCAB_NCCL_CHECK(ncclCommSplit(world, layout.color(rank, world_size), group_rank, &split, nullptr));
    }
    OwnedComm group_comm(split);
    ncclComm_t group = split ? split : world;
    for (const Collective* op : ops) {
      for (int64_t bytes : options.sizes) {
        CommResult r = time_one(*op, bytes, options, group, group_rank, group_size, world, world_size, send, recv,
                                times, stream.get());
        r.group = layout.to_string();
        results.push_back(std::move(r));
      }
    }
  }
  return results;
}

std::vector<CommResult> run_comm_sweep_threads(const CollectiveRegistry& registry, const CommSweepOptions& options,
                                               const std::vector<int>& devices) {
  disable_nvls_unless_set();
  std::vector<ncclComm_t> comms = init_comms_single_process(devices);
  const int world_size = static_cast<int>(devices.size());
  std::vector<std::vector<CommResult>> results(devices.size());
  std::vector<std::exception_ptr> errors(devices.size());
  std::vector<std::thread> threads;
  for (int rank = 0; rank < world_size; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        results[rank] = run_comm_sweep_rank(registry, options, comms[rank], rank, world_size, devices[rank]);
      } catch (...) {
        errors[rank] = std::current_exception();
        ncclCommAbort(comms[rank]);  // unblocks peers waiting on this rank
        comms[rank] = nullptr;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (ncclComm_t comm : comms) {
    if (comm) ncclCommDestroy(comm);
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return results[0];
}

std::vector<CommResult> run_comm_sweep_process(const CollectiveRegistry& registry, const CommSweepOptions& options,
                                               const RankEnvironment& env, const std::string& id_file,
                                               double id_timeout_s) {
  disable_nvls_unless_set();
  LCAB_CUDA_CHECK(cudaSetDevice(env.local_rank));
  const ncclUniqueId id = share_unique_id(env, id_file, id_timeout_s);
  ncclComm_t world = nullptr;
  LCAB_NCCL_CHECK(ncclCommInitRank(&world, env.world_size, id, env.rank));
  OwnedComm world_comm(world);
  std::vector<CommResult> results =
      run_comm_sweep_rank(registry, options, world, env.rank, env.world_size, env.local_rank);
  remove_unique_id_file(env, id_file);
  return results;
}

Record make_comm_record(const CommResult& result, const DeviceInfo& device, const nlohmann::json& meta,
                        const std::string& launch) {
  Record record;
  record.source = "measured";
  record.kind = "comm";
  record.key.op = result.op;
  record.key.bytes = result.bytes;
  record.key.gpus = result.world_size;
  record.key.group = result.group;
  record.status = "ok";
  record.time_ms = result.time_ms;
  record.device = device;
  record.meta = meta;
  record.extra["group_size"] = result.group_size;
  record.extra["chunk_bytes"] = result.chunk_bytes;
  record.extra["algbw_GBps"] = result.algbw_gb_per_s;
  record.extra["busbw_GBps"] = result.busbw_gb_per_s;
  record.extra["launch"] = launch;
  int version = 0;
  if (ncclGetVersion(&version) == ncclSuccess) record.extra["nccl_version"] = version;
  return record;
}

}  // namespace lcab::measure
