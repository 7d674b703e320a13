#include "calibrate/record_prediction.h"

#include <algorithm>

#include "model/cli_values.h"
#include "model/cp/cp_method.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "model/perf/cp_predictor.h"
#include "model/perf/cp_simulator.h"
#include "model/perf/kernel_cost.h"

namespace lcab::calibrate {

namespace {

template <typename T>
T required(const std::optional<T>& value, const char* field, const Record& record) {
  LCAB_CHECK(value.has_value(), record.kind << " record " << key_id(record.key) << " has no key." << field);
  return *value;
}

perf::AttentionShape attention_shape(const Record& record) {
  try {
    return perf::attention_shape_of(record.key);
  } catch (const Error& e) {
    LCAB_THROW(record.kind << " record: " << e.what());
  }
}

}  // namespace

std::vector<std::vector<int>> comm_groups(const std::string& layout, int64_t gpus) {
  LCAB_CHECK(gpus > 0, "a comm record needs key.gpus > 0");
  std::vector<std::vector<int>> groups;
  if (layout.empty() || layout == "world") {
    groups.emplace_back();
    for (int r = 0; r < gpus; ++r) groups.back().push_back(r);
    return groups;
  }
  const size_t colon = layout.find(':');
  const std::string kind = layout.substr(0, colon);
  LCAB_CHECK(colon != std::string::npos && (kind == "contiguous" || kind == "strided"),
             "comm group layout '" << layout << "' is not valid; valid: world, contiguous:N, strided:N");
  const int64_t size = parse_int(layout.substr(colon + 1));
  LCAB_CHECK(size > 0 && gpus % size == 0,
             "comm group layout '" << layout << "' does not divide " << gpus << " GPUs into equal groups");
  const int64_t count = gpus / size;
  groups.resize(static_cast<size_t>(count));
  for (int64_t r = 0; r < gpus; ++r) {
    const int64_t group = kind == "contiguous" ? r / size : r % count;
    groups[static_cast<size_t>(group)].push_back(static_cast<int>(r));
  }
  return groups;
}

int64_t comm_chunk_bytes(const Record& record) {
  if (record.extra.contains("chunk_bytes") && record.extra["chunk_bytes"].is_number_integer())
    return record.extra["chunk_bytes"].get<int64_t>();
  const int64_t bytes = required(record.key.bytes, "bytes", record);
  const int64_t members = static_cast<int64_t>(comm_groups(record.key.group, required(record.key.gpus, "gpus", record))
                                                   .front()
                                                   .size());
  switch (perf::parse_collective_op(record.key.op)) {
    case perf::CollectiveOp::kAllGather:
    case perf::CollectiveOp::kReduceScatter:
    case perf::CollectiveOp::kAllToAll: return bytes / members;
    case perf::CollectiveOp::kAllReduce:
    case perf::CollectiveOp::kSendRecv: return bytes;
  }
  return bytes;
}

perf::ClusterShape record_cluster(const Record& record, const perf::HardwareProfile& profile) {
  perf::ClusterShape cluster;
  cluster.gpus = required(record.key.gpus, "gpus", record);
  const auto profile_per_node = static_cast<int64_t>(profile.node.gpus_per_node.value);
  cluster.gpus_per_node = record.key.gpus_per_node.value_or(
      cluster.gpus <= profile_per_node ? cluster.gpus : profile_per_node);
  perf::validate_cluster(cluster);
  return cluster;
}

perf::LinkClass comm_link(const Record& record, const perf::HardwareProfile& profile) {
  const perf::ClusterShape cluster = record_cluster(record, profile);
  for (const std::vector<int>& group : comm_groups(record.key.group, cluster.gpus)) {
    int64_t first_node = cluster.node_of(group.front());
    for (int rank : group)
      if (cluster.node_of(rank) != first_node) return perf::LinkClass::kInterNode;
  }
  return perf::LinkClass::kIntraNode;
}

double RecordPredictor::predict_ms(const perf::HardwareProfile& profile, const Record& record) const {
  if (record.kind == "kernel") return kernel_ms(profile, record);
  if (record.kind == "comm") return comm_ms(profile, record);
  if (record.kind == "cp") return cp_ms(profile, record);
  LCAB_THROW("the model predicts kernel, comm and cp records, not '" << record.kind << "'");
}

std::shared_ptr<const Mask> RecordPredictor::mask_for(const RecordKey& key) const {
  LCAB_CHECK(!key.mask.empty() && key.seqlen, "a kernel or cp record needs key.mask and key.seqlen");
  const int64_t kv_heads = key.kv_heads.value_or(key.heads.value_or(1));
  const std::string id = key.mask + "|" + std::to_string(*key.seqlen) + "|" + std::to_string(kv_heads);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = masks_.find(id);
    if (it != masks_.end()) return it->second;
  }
  auto mask = std::make_shared<const Mask>(make_mask(key.mask, *key.seqlen, kv_heads));
  std::lock_guard<std::mutex> lock(mutex_);
  return masks_.emplace(id, std::move(mask)).first->second;
}

double RecordPredictor::kernel_ms(const perf::HardwareProfile& profile, const Record& record) const {
  const RecordKey& key = record.key;
  const perf::KernelParams& params =
      profile.kernel(key.impl, key.pass, required(key.head_dim, "head_dim", record), key.dtype);
  const perf::KernelCostModel model(profile, params);
  return model.cost(*mask_for(key), attention_shape(record)).time_us / 1000.0;
}

double RecordPredictor::comm_ms(const perf::HardwareProfile& profile, const Record& record) const {
  const perf::ClusterShape cluster = record_cluster(record, profile);
  const perf::CommCostModel model(profile, cluster);
  const perf::CollectiveOp op = perf::parse_collective_op(record.key.op);
  const int64_t chunk = comm_chunk_bytes(record);
  double slowest_us = 0;
  // Groups run at the same time; the record's time is the slowest group's.
  for (const std::vector<int>& group : comm_groups(record.key.group, cluster.gpus)) {
    if (op == perf::CollectiveOp::kSendRecv) {
      // Ring exchange: every member sends to the next and receives from the previous, all at once.
      for (size_t n = 0; n < group.size() && group.size() > 1; ++n)
        slowest_us = std::max(slowest_us, model.send_recv_us(group[n], group[(n + 1) % group.size()], chunk));
    } else {
      slowest_us = std::max(slowest_us, model.collective_us(op, group, chunk));
    }
  }
  return slowest_us / 1000.0;
}

const cp::Schedule& RecordPredictor::schedule_for(const Record& record, const perf::HardwareProfile& profile) const {
  const perf::ClusterShape cluster = record_cluster(record, profile);
  // The schedule as it was measured: the ring backward's own-block tail is recorded in extra.dkv_home_overlap;
  // records written before that option existed were measured without the tail.
  const bool dkv_home_overlap = record.extra.value("dkv_home_overlap", false);
  const std::string id = key_id(record.key) + "|" + std::to_string(cluster.gpus_per_node) + "|" +
                         (dkv_home_overlap ? "tail" : "no-tail");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = schedules_.find(id);
    if (it != schedules_.end()) return *it->second;
  }
  const RecordKey& key = record.key;
  cp::CpConfig config = perf::cp_config_from_key(key, cluster, mask_for(key));
  config.overlap_dkv_home_hop = dkv_home_overlap;
  auto schedule = std::make_unique<cp::Schedule>(cp::build_schedule(config, cp::parse_pass(key.pass)));
  std::lock_guard<std::mutex> lock(mutex_);
  return *schedules_.emplace(id, std::move(schedule)).first->second;
}

double RecordPredictor::cp_ms(const perf::HardwareProfile& profile, const Record& record) const {
  const RecordKey& key = record.key;
  const std::string impl = key.impl.empty() ? "lcab_flash" : key.impl;
  const perf::KernelParams& params =
      profile.kernel(impl, key.pass, required(key.head_dim, "head_dim", record), key.dtype);
  const perf::KernelCostModel kernel(profile, params);
  const perf::CommCostModel comm(profile, record_cluster(record, profile));
  const cp::Schedule& schedule = schedule_for(record, profile);
  perf::SimulationOptions options;
  options.critical_path = false;
  return perf::simulate(schedule, perf::cost_models(profile, kernel, comm), options).time_us / 1000.0;
}

}  // namespace lcab::calibrate
