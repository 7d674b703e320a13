// The report's Predictor (reports/predictor.h) on the performance model of model/perf with one hardware
// profile: kernel cases through the kernel cost model, comm cases through calibrate's RecordPredictor (the one
// lcab-check uses), CP cases through the CP predictor (full records: breakdown, memory), plans through the
// planner and timelines through the simulator. Lives with lcab-report because it joins reports and calibrate.
#pragma once

#include <memory>
#include <string>

#include "calibrate/record_prediction.h"
#include "model/cp/schedule.h"
#include "model/perf/comm_cost.h"
#include "model/perf/profile.h"
#include "reports/predictor.h"

namespace lcab::report_app {

class ModelPredictor : public report::Predictor {
 public:
  explicit ModelPredictor(perf::HardwareProfile profile);

  std::string description() const override;
  std::optional<Record> predict(const std::string& kind, const RecordKey& key) const override;
  std::vector<Record> plan(const RecordKey& key) const override;
  std::optional<perf::Timeline> cp_timeline(const RecordKey& key) const override;

 private:
  Record predict_kernel(const RecordKey& key) const;
  Record predict_cp(const RecordKey& key) const;
  perf::ClusterShape cluster_of(const RecordKey& key) const;

  perf::HardwareProfile profile_;
  calibrate::RecordPredictor records_;
};

/// The CP configuration a cp record key names (method, GPUs, degrees, windows, placement, workload), the
/// inverse of perf::cp_record_key. Throws lcab::Error on a key without method, mask, seqlen, heads or head_dim.
cp::CpConfig cp_config_from_key(const RecordKey& key, const perf::ClusterShape& cluster);

}  // namespace lcab::report_app
