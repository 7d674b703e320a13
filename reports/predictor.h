// What a report asks of the performance model. The report machinery works from records alone; given a
// Predictor (model_predictor.h adapts the model in model/perf), it adds predictions for every measured case,
// predicted lines beyond what was measured, the plan for a cluster and predicted CP timelines.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/perf/timeline.h"
#include "model/record.h"

namespace lcab::report {

class Predictor {
 public:
  virtual ~Predictor() = default;

  /// One line naming the model and its profile, for the report's notes.
  virtual std::string description() const = 0;

  /// The predicted record (source "predicted", same kind and key) of a kernel, cp or comm case; nullopt when
  /// the model does not cover the case (an unknown implementation, a configuration the method cannot run).
  virtual std::optional<Record> predict(const std::string& kind, const RecordKey& key) const = 0;

  /// Ranked CP configurations (predicted cp records, fastest first) for the workload and cluster in `key`
  /// (mask, seqlen, pass, shape, gpus, gpus_per_node); empty when the model has no planner or nothing fits.
  virtual std::vector<Record> plan(const RecordKey& key) const = 0;

  /// The simulated timeline of a CP case; nullopt when the model cannot simulate it.
  virtual std::optional<perf::Timeline> cp_timeline(const RecordKey& key) const = 0;
};

}  // namespace lcab::report
