#include "apps/lcab_report/model_predictor.h"

#include "model/error.h"
#include "model/mask_spec.h"
#include "model/perf/cp_predictor.h"
#include "model/perf/kernel_cost.h"
#include "model/perf/planner.h"

namespace lcab::report_app {
namespace {

int64_t required(const std::optional<int64_t>& value, const char* name) {
  LCAB_CHECK(value.has_value(), "the record key has no " << name);
  return *value;
}

perf::KernelChoice kernel_choice(const RecordKey& key) {
  perf::KernelChoice choice;
  if (!key.impl.empty()) choice.impl = key.impl;
  if (!key.dtype.empty()) choice.dtype = key.dtype;
  return choice;
}

Record predicted(const std::string& kind, const RecordKey& key, double time_ms) {
  Record r;
  r.source = "predicted";
  r.kind = kind;
  r.key = key;
  r.time_ms = TimeStatsMs{time_ms, time_ms, time_ms};
  return r;
}

}  // namespace

cp::CpConfig cp_config_from_key(const RecordKey& key, const perf::ClusterShape& cluster) {
  LCAB_CHECK(!key.mask.empty(), "a cp record key needs a mask");
  const perf::AttentionShape shape = perf::attention_shape_of(key);
  return perf::cp_config_from_key(
      key, cluster,
      std::make_shared<const Mask>(make_mask(key.mask, required(key.seqlen, "seqlen"), shape.kv_heads)));
}

ModelPredictor::ModelPredictor(perf::HardwareProfile profile) : profile_(std::move(profile)) {}

std::string ModelPredictor::description() const {
  return "the model with profile '" + profile_.name + "' (" + profile_.provenance.kind + ")";
}

perf::ClusterShape ModelPredictor::cluster_of(const RecordKey& key) const {
  Record r;
  r.key = key;
  return calibrate::record_cluster(r, profile_);
}

Record ModelPredictor::predict_kernel(const RecordKey& key) const {
  const perf::KernelParams& params =
      profile_.kernel(key.impl, key.pass, required(key.head_dim, "head_dim"), key.dtype);
  const perf::AttentionShape shape = perf::attention_shape_of(key);
  const Mask mask = make_mask(key.mask, required(key.seqlen, "seqlen"), shape.kv_heads);
  const perf::KernelCost cost = perf::KernelCostModel(profile_, params).cost(mask, shape);
  LCAB_CHECK(cost.time_us > 0, "the kernel model gives no time for an empty mask");
  Record r = predicted("kernel", key, cost.time_us / 1000.0);
  r.flops = cost.flops;
  r.tflops = cost.tflops();
  r.area = mask.mean_area();
  r.peak_mem_bytes = cost.peak_mem_bytes;
  return r;
}

Record ModelPredictor::predict_cp(const RecordKey& key) const {
  const perf::ClusterShape cluster = cluster_of(key);
  perf::CpPredictor predictor(profile_, cluster);
  const perf::KernelChoice kernel = kernel_choice(key);
  perf::PredictOptions options;
  options.critical_path = false;
  options.keep_timings = false;
  const perf::CpPrediction prediction =
      predictor.predict(cp_config_from_key(key, cluster), kernel, {cp::parse_pass(key.pass)}, options);
  Record r = perf::cp_record(prediction, 0, kernel, profile_);
  r.key = key;  // the case asked for (normalization may spell degrees out), so that it joins its measurement
  return r;
}

std::optional<Record> ModelPredictor::predict(const std::string& kind, const RecordKey& key) const {
  try {
    if (kind == "kernel") return predict_kernel(key);
    if (kind == "cp") return predict_cp(key);
    if (kind == "comm") {
      Record r;
      r.kind = "comm";
      r.key = key;
      return predicted("comm", key, records_.predict_ms(profile_, r));
    }
  } catch (const Error&) {
    // Not covered: an implementation the profile lacks, a configuration the method rejects.
  }
  return std::nullopt;
}

std::vector<Record> ModelPredictor::plan(const RecordKey& key) const {
  std::vector<Record> records;
  try {
    const perf::ClusterShape cluster = cluster_of(key);
    perf::PlanRequest request;
    const cp::CpConfig base = cp_config_from_key([&] {
      RecordKey k = key;
      if (k.method.empty()) k.method = "ring";
      return k;
    }(), cluster);
    request.workload = base.workload;
    request.kernel = kernel_choice(key);
    request.passes = {cp::parse_pass(key.pass.empty() ? "fwd" : key.pass)};
    request.prune = false;  // the report ranks every config with its time
    const perf::Plan plan = perf::make_plan(profile_, cluster, request);
    for (const perf::PlanEntry& entry : plan.entries) {
      if (entry.fits) records.push_back(perf::cp_record(entry.prediction, 0, request.kernel, profile_));
    }
  } catch (const Error&) {
    records.clear();  // no plan for this workload and cluster
  }
  return records;
}

std::optional<perf::Timeline> ModelPredictor::cp_timeline(const RecordKey& key) const {
  try {
    const perf::ClusterShape cluster = cluster_of(key);
    perf::CpPredictor predictor(profile_, cluster);
    perf::PredictOptions options;
    options.keep_schedules = true;
    const perf::CpPrediction prediction = predictor.predict(cp_config_from_key(key, cluster), kernel_choice(key),
                                                            {cp::parse_pass(key.pass)}, options);
    perf::Timeline timeline;
    const perf::PassPrediction& pass = prediction.passes.at(0);
    perf::append_timeline(*pass.schedule, pass.simulation, timeline);
    return timeline;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace lcab::report_app
