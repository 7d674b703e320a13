// The model's prediction for a measured record, by kind: a kernel record through the kernel cost model, a comm
// record through the communication cost model (with the record's group layout), a cp record through the CP
// simulator playing the method's schedule. lcab-check, the fits and the cross-validation all predict through
// this one class, so that what is checked is what was fitted.
//
// Cluster shape of comm and cp records: key.gpus_per_node when present, else all GPUs on one node when they fit
// the profile's node (the measuring machines here), else the profile's GPUs per node.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/cp/schedule.h"
#include "model/mask.h"
#include "model/perf/comm_cost.h"
#include "model/perf/profile.h"
#include "model/record.h"

namespace lcab::calibrate {

/// Groups of a comm record's layout ("world", "contiguous:N", "strided:N"; empty is world) over `gpus` ranks,
/// as lcab-measure comm forms them: contiguous:N is [0,N), [N,2N), ...; strided:N is {0, W/N, 2W/N, ...},
/// {1, 1+W/N, ...}. Throws lcab::Error on a layout that does not fit.
std::vector<std::vector<int>> comm_groups(const std::string& layout, int64_t gpus);

/// B of model/perf/profile.h for a comm record: extra.chunk_bytes when recorded, else derived from key.bytes
/// with nccl-tests' size convention (all-gather, reduce-scatter, all-to-all: bytes / group size; all-reduce and
/// send/recv: bytes).
int64_t comm_chunk_bytes(const Record& record);

/// The cluster a comm or cp record ran on (see the header comment).
perf::ClusterShape record_cluster(const Record& record, const perf::HardwareProfile& profile);

/// The link class a comm record's traffic crosses: inter-node when any group (or ring hop) spans nodes.
perf::LinkClass comm_link(const Record& record, const perf::HardwareProfile& profile);

class RecordPredictor {
 public:
  /// The model's time in milliseconds for the record's key under `profile`. Throws lcab::Error when the profile
  /// lacks an entry the record needs (naming it) or the key is incomplete.
  double predict_ms(const perf::HardwareProfile& profile, const Record& record) const;

 private:
  double kernel_ms(const perf::HardwareProfile& profile, const Record& record) const;
  double comm_ms(const perf::HardwareProfile& profile, const Record& record) const;
  double cp_ms(const perf::HardwareProfile& profile, const Record& record) const;
  /// Masks depend only on the key, schedules on the key and the record's dkv_home_overlap (the ring backward's
  /// own-block tail, absent = off: measured before it existed): built once, kept for the fits' many evaluations.
  std::shared_ptr<const Mask> mask_for(const RecordKey& key) const;
  const cp::Schedule& schedule_for(const Record& record, const perf::HardwareProfile& profile) const;

  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const Mask>> masks_;
  mutable std::map<std::string, std::unique_ptr<cp::Schedule>> schedules_;
};

}  // namespace lcab::calibrate
