#include "cp/communicators.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

#include "cp/nccl_check.h"
#include "kernels/cuda_check.h"

namespace lcab::cp {

static_assert(sizeof(ncclUniqueId) == sizeof(CommUniqueId::bytes), "NCCL unique id size changed");

CommUniqueId new_unique_id() {
  disable_nvls_unless_set();
  ncclUniqueId id;
  LCAB_NCCL_CHECK(ncclGetUniqueId(&id));
  CommUniqueId out;
  std::memcpy(out.bytes.data(), &id, sizeof(id));
  return out;
}

void disable_nvls_unless_set() { setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); }

RankComms::RankComms(int rank, int world_size, int device, const CommUniqueId& id)
    : rank_(rank), size_(world_size), device_(device) {
  LCAB_CHECK(rank >= 0 && rank < world_size, "rank " << rank << " outside a world of " << world_size);
  disable_nvls_unless_set();
  LCAB_CUDA_CHECK(cudaSetDevice(device));
  ncclUniqueId nccl_id;
  std::memcpy(&nccl_id, id.bytes.data(), sizeof(nccl_id));
  LCAB_NCCL_CHECK(ncclCommInitRank(&world_, world_size, nccl_id, rank));
  LCAB_NCCL_CHECK(ncclCommSplit(world_, 0, rank, &outer_, nullptr));
  LCAB_CUDA_CHECK(cudaMalloc(&scratch_, sizeof(double) * static_cast<size_t>(world_size)));
}

RankComms::~RankComms() {
  cudaSetDevice(device_);
  for (auto& [ranks, comm] : groups_) ncclCommDestroy(comm);
  if (outer_) ncclCommDestroy(outer_);
  if (world_) ncclCommDestroy(world_);
  cudaFree(scratch_);
}

ncclComm_t RankComms::p2p(P2pChannel channel) const { return channel == P2pChannel::kInner ? world_ : outer_; }

void RankComms::prepare_groups(const std::vector<Group>& groups) {
  // Distinct rank lists not yet created, in first-seen order (the same on every rank).
  std::vector<std::vector<int>> missing;
  std::set<std::vector<int>> seen;
  for (const Group& g : groups) {
    for (int r : g.ranks)
      LCAB_CHECK(r >= 0 && r < size_, "group rank " << r << " outside a world of " << size_);
    if (groups_.count(g.ranks) || !seen.insert(g.ranks).second) continue;
    missing.push_back(g.ranks);
  }
  // Layers of groups with disjoint ranks; one ncclCommSplit per layer (colour = the group's index in the layer).
  std::vector<std::vector<int>> layers;  // indices into missing
  std::vector<std::set<int>> layer_ranks;
  for (int i = 0; i < static_cast<int>(missing.size()); ++i) {
    size_t layer = 0;
    for (; layer < layers.size(); ++layer) {
      bool disjoint = true;
      for (int r : missing[i]) disjoint = disjoint && !layer_ranks[layer].count(r);
      if (disjoint) break;
    }
    if (layer == layers.size()) {
      layers.emplace_back();
      layer_ranks.emplace_back();
    }
    layers[layer].push_back(i);
    layer_ranks[layer].insert(missing[i].begin(), missing[i].end());
  }
  LCAB_CUDA_CHECK(cudaSetDevice(device_));
  for (const std::vector<int>& layer : layers) {
    int color = NCCL_SPLIT_NOCOLOR;
    int key = 0;
    int mine = -1;
    for (int colour = 0; colour < static_cast<int>(layer.size()); ++colour) {
      const std::vector<int>& ranks = missing[layer[colour]];
      for (int i = 0; i < static_cast<int>(ranks.size()); ++i)
        if (ranks[i] == rank_) {
          color = colour;
          key = i;
          mine = layer[colour];
        }
    }
    ncclComm_t comm = nullptr;
    LCAB_NCCL_CHECK(ncclCommSplit(world_, color, key, &comm, nullptr));
    if (mine >= 0) groups_[missing[mine]] = comm;
  }
}

ncclComm_t RankComms::group(const Group& group) const {
  auto it = groups_.find(group.ranks);
  LCAB_CHECK(it != groups_.end(), "rank " << rank_ << " has no communicator for group " << to_string(group.kind)
                                          << " of " << group.ranks.size()
                                          << " ranks (not a member, or prepare_groups not called)");
  return it->second;
}

void RankComms::barrier(cudaStream_t stream) {
  LCAB_CUDA_CHECK(cudaSetDevice(device_));
  LCAB_NCCL_CHECK(ncclAllReduce(scratch_, scratch_, 1, ncclFloat64, ncclSum, world_, stream));
  LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

double RankComms::max_over_ranks(double value, cudaStream_t stream) {
  LCAB_CUDA_CHECK(cudaSetDevice(device_));
  LCAB_CUDA_CHECK(cudaMemcpyAsync(scratch_, &value, sizeof(double), cudaMemcpyHostToDevice, stream));
  LCAB_NCCL_CHECK(ncclAllReduce(scratch_, scratch_, 1, ncclFloat64, ncclMax, world_, stream));
  double result = 0;
  LCAB_CUDA_CHECK(cudaMemcpyAsync(&result, scratch_, sizeof(double), cudaMemcpyDeviceToHost, stream));
  LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

std::vector<double> RankComms::gather_all(double value, cudaStream_t stream) {
  LCAB_CUDA_CHECK(cudaSetDevice(device_));
  LCAB_CUDA_CHECK(cudaMemcpyAsync(scratch_ + rank_, &value, sizeof(double), cudaMemcpyHostToDevice, stream));
  LCAB_NCCL_CHECK(ncclAllGather(scratch_ + rank_, scratch_, 1, ncclFloat64, world_, stream));
  std::vector<double> result(static_cast<size_t>(size_));
  LCAB_CUDA_CHECK(cudaMemcpyAsync(result.data(), scratch_, sizeof(double) * result.size(),
                                     cudaMemcpyDeviceToHost, stream));
  LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

std::vector<double> RankComms::gather_all(const std::vector<double>& values, cudaStream_t stream) {
  LCAB_CUDA_CHECK(cudaSetDevice(device_));
  const size_t n = values.size();
  std::vector<double> result(n * static_cast<size_t>(size_));
  if (n == 0) return result;
  double* device = nullptr;
  LCAB_CUDA_CHECK(cudaMalloc(&device, sizeof(double) * result.size()));
  const std::unique_ptr<double, cudaError_t (*)(void*)> owned(device, cudaFree);
  double* mine = device + n * static_cast<size_t>(rank_);
  LCAB_CUDA_CHECK(cudaMemcpyAsync(mine, values.data(), sizeof(double) * n, cudaMemcpyHostToDevice, stream));
  LCAB_NCCL_CHECK(ncclAllGather(mine, device, n, ncclFloat64, world_, stream));
  LCAB_CUDA_CHECK(cudaMemcpyAsync(result.data(), device, sizeof(double) * result.size(), cudaMemcpyDeviceToHost,
                                     stream));
  LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

}  // namespace lcab::cp
