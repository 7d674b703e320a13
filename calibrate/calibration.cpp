#include "calibrate/calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <sstream>

#include "calibrate/comm_parameters.h"
#include "calibrate/kernel_parameters.h"
#include "calibrate/measurements.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/version.h"
#include "reports/table.h"

namespace lcab::calibrate {

namespace {

/// Records of one fit group, in input order.
struct GroupRecords {
  std::string group;
  std::vector<Record> records;
};

std::vector<GroupRecords> group_by(const std::vector<Record>& records,
                                   const std::function<std::string(const Record&)>& group_of) {
  std::vector<GroupRecords> groups;
  std::map<std::string, size_t> index;
  for (const Record& record : records) {
    const std::string group = group_of(record);
    if (group.empty()) continue;
    auto [it, inserted] = index.try_emplace(group, groups.size());
    if (inserted) groups.push_back({group, {}});
    groups[it->second].records.push_back(record);
  }
  return groups;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string devices_of(const std::vector<Record>& records) {
  std::set<std::string> names;
  for (const Record& record : records)
    if (record.device && !record.device->name.empty()) names.insert(record.device->name);
  std::vector<std::string> list(names.begin(), names.end());
  return list.empty() ? std::string("unknown devices") : join(list);
}

/// The Sourced text of a fitted parameter.
std::string fitted_source(const GroupFit& fit, const std::vector<Record>& records) {
  std::ostringstream out;
  out << "lcab-calibrate " << utc_now().substr(0, 10) << ": fitted to " << fit.records << " measured records on "
      << devices_of(records) << " (in-sample MAPE " << format_fixed(fit.stats.mape_pct, 2) << "%, p90 "
      << format_fixed(fit.stats.p90_pct, 2) << "%";
  if (fit.outliers > 0) out << ", " << fit.outliers << " outliers ignored";
  out << ")";
  return out.str();
}

/// Runs one model fit and turns it into a GroupFit (or a failure); on success the profile holds the new values.
bool run_group_fit(const std::string& group, std::vector<ProfileParameter> parameters,
                   const std::vector<Record>& records, const CalibrationOptions& options,
                   const RecordPredictor& predictor, CalibrationResult& result, GroupFit& fit) {
  ModelFitProblem problem;
  problem.group = group;
  problem.parameters = std::move(parameters);
  for (const Record& record : records) problem.measured_ms.push_back(measured_time_ms(record));
  problem.predict = [&](const perf::HardwareProfile& profile, size_t n) {
    return predictor.predict_ms(profile, records[n]);
  };
  try {
    const ModelFitResult model_fit = fit_model_parameters(problem, result.profile, options.fit);
    fit.group = group;
    for (const ProfileParameter& p : problem.parameters) fit.parameter_names.push_back(p.name);
    fit.parameter_values = model_fit.values;
    fit.records = static_cast<int64_t>(records.size());
    fit.outliers = static_cast<int64_t>(model_fit.outlier_rows.size());
    fit.stats = model_fit.stats;
    fit.inlier_stats = model_fit.inlier_stats;
    fit.standard_errors.clear();
    for (size_t n = 0; n < problem.parameters.size() && n < model_fit.standard_errors.size(); ++n)
      fit.standard_errors.emplace_back(problem.parameters[n].name, model_fit.standard_errors[n]);
    return true;
  } catch (const Error& e) {
    result.failures.push_back({group, e.what()});
    return false;
  }
}

/// A parameter stored as a Sourced value; `field` maps a (const or mutable) profile to it.
template <typename Field>
ProfileParameter sourced_parameter(std::string name, std::string hint, double scale, Field field) {
  ProfileParameter p;
  p.name = std::move(name);
  p.hint = std::move(hint);
  p.scale = scale > 0 ? scale : 1.0;
  p.get = [field](const perf::HardwareProfile& profile) { return field(profile).value; };
  p.set = [field](perf::HardwareProfile& profile, double value) { field(profile).value = value; };
  return p;
}

std::string kernel_group(const std::string& impl, const RecordKey& key) {
  return "kernel " + impl + " " + key.pass + " hd" + std::to_string(key.head_dim.value_or(0)) + " " + key.dtype;
}

/// The implementation a CP record runs (key.impl; lcab_flash when not recorded).
std::string cp_impl(const RecordKey& key) { return key.impl.empty() ? "lcab_flash" : key.impl; }

size_t kernel_index(const perf::HardwareProfile& profile, const Record& record) {
  const perf::KernelParams& params =
      profile.kernel(record.key.impl, record.key.pass, record.key.head_dim.value_or(0), record.key.dtype);
  return static_cast<size_t>(&params - profile.kernels.data());
}

void fit_kernel_group(const GroupRecords& group, const CalibrationOptions& options, const RecordPredictor& predictor,
                      CalibrationResult& result) {
  size_t index = 0;
  try {
    index = kernel_index(result.profile, group.records.front());
  } catch (const Error& e) {
    result.failures.push_back({group.group, e.what()});
    return;
  }
  GroupFit fit;
  std::vector<double> measured_ms;
  for (const Record& record : group.records) measured_ms.push_back(measured_time_ms(record));
  std::nth_element(measured_ms.begin(), measured_ms.begin() + static_cast<std::ptrdiff_t>(measured_ms.size() / 4),
                   measured_ms.end());
  seed_optional_terms(result.profile.kernels[index], measured_ms[measured_ms.size() / 4]);
  std::vector<std::string> dropped_terms;  // optional terms the records could not determine, and why
  // Optional terms (slice_us, kv_tile_us, ...) the records cannot determine (e.g. kv_tile_us from GQA records
  // only) leave the entry, so that the others are still fitted: the terms each failed fit names, one fit after the
  // other; all of them only when a failure names none.
  while (true) {
    CalibrationResult attempt;
    attempt.profile = result.profile;
    const std::vector<ProfileParameter> parameters = kernel_fit_parameters(result.profile, index);
    if (run_group_fit(group.group, parameters, group.records, options, predictor, attempt, fit)) {
      // An optional term may stand in for the unmasked tile (the sustained slowdown grows with the work as the
      // tiles do): a fit without any unmasked-tile cost is not taken while optional terms can leave.
      if (attempt.profile.kernels[index].full_tile_us.value > 0 ||
          optional_term_names(result.profile.kernels[index]).empty()) {
        result.profile = attempt.profile;
        break;
      }
      attempt.failures.push_back({group.group, "the fit gave full_tile_us = 0 with the optional terms"});  // names none
    }
    perf::KernelParams& entry = result.profile.kernels[index];
    const std::vector<std::string> optional = optional_term_names(entry);
    if (optional.empty()) {
      result.failures.insert(result.failures.end(), attempt.failures.begin(), attempt.failures.end());
      return;
    }
    const std::string reason = attempt.failures.empty() ? std::string() : attempt.failures.back().reason;
    std::vector<std::string> removed;
    for (const std::string& name : optional)
      if (reason.find("'" + name + "'") != std::string::npos) removed.push_back(name);
    if (removed.empty()) removed = optional;
    for (const std::string& name : removed) remove_optional_term(entry, name);
    dropped_terms.push_back(join(removed) + ": " + reason);
  }
  perf::KernelParams& params = result.profile.kernels[index];
  if (params.full_tile_us.value <= 0) {
    result.failures.push_back({group.group, group.group + ": the fit gave full_tile_us = 0; the records do not "
                                                          "determine the cost of an unmasked tile"});
    return;
  }
  const std::vector<perf::Sourced*> fields = kernel_fit_fields(params);
  for (size_t n = 0; n < fit.parameter_values.size(); ++n) fit.parameter_values[n] = fields.at(n)->value;
  const std::string source = fitted_source(fit, group.records);
  for (perf::Sourced* field : fields) field->source = source;
  params.fit = to_json(fit);
  if (!dropped_terms.empty()) params.fit["terms_left_out"] = dropped_terms;
  result.fits.push_back(fit);
}

/// Two protocol lines are 4 parameters: fitted from at least twice as many records.
constexpr size_t kMinRecordsForTwoLines = 8;

/// Whether the bus bandwidth's growth with the group size (profile.h) can be fitted: a collective (not send/recv)
/// whose records have groups of at least two sizes.
bool records_have_two_group_sizes(const GroupRecords& group) {
  if (perf::parse_collective_op(group.records.front().key.op) == perf::CollectiveOp::kSendRecv) return false;
  std::set<size_t> sizes;
  for (const Record& record : group.records) {
    if (!record.key.gpus || *record.key.gpus <= 0) return false;  // the prediction names the missing field
    try {
      sizes.insert(comm_groups(record.key.group, *record.key.gpus).front().size());
    } catch (const Error&) {
      return false;  // and the invalid layout
    }
  }
  return sizes.size() >= 2;
}

/// One attempt at a collective entry: both protocol lines, or the Simple line alone.
bool try_comm_fit(const GroupRecords& group, size_t index, bool with_low_latency_line,
                  const CalibrationOptions& options, const RecordPredictor& predictor, CalibrationResult& result,
                  GroupFit& fit) {
  perf::HardwareProfile trial = result.profile;
  std::vector<double> volumes;
  for (const Record& record : group.records) volumes.push_back(static_cast<double>(comm_chunk_bytes(record)));
  std::nth_element(volumes.begin(), volumes.begin() + static_cast<std::ptrdiff_t>(volumes.size() / 2), volumes.end());
  const std::vector<ProfileParameter> parameters = comm_fit_parameters(
      trial, index, with_low_latency_line, volumes[volumes.size() / 2], records_have_two_group_sizes(group));
  CalibrationResult attempt;
  attempt.profile = trial;
  if (!run_group_fit(group.group, parameters, group.records, options, predictor, attempt, fit)) {
    result.failures.insert(result.failures.end(), attempt.failures.begin(), attempt.failures.end());
    return false;
  }
  perf::CollectiveParams& params = attempt.profile.collectives[index];
  // The fit ends at us_per_byte = 0 only when no record informs the bandwidth (its value then is 1e36).
  const bool no_bandwidth = params.bytes_per_s.value > 1e30;
  const bool no_low_latency_line = with_low_latency_line && params.ll_bytes_per_s.value > 1e30;
  if (no_bandwidth || no_low_latency_line) {
    result.failures.push_back({group.group, group.group + ": the fit gave no " +
                                                (no_bandwidth ? std::string("bandwidth term; measure larger messages")
                                                              : std::string("low-latency protocol line"))});
    return false;
  }
  result.profile.collectives[index] = params;
  return true;
}

/// Collective parameters: NCCL's two protocol lines (comm_parameters.h); where the records cannot separate the
/// low-latency line (e.g. only large messages), the Simple line alone.
void fit_comm_group(const GroupRecords& group, const CalibrationOptions& options, const RecordPredictor& predictor,
                    CalibrationResult& result) {
  const Record& first = group.records.front();
  size_t index = 0;
  try {
    const perf::CollectiveOp op = perf::parse_collective_op(first.key.op);
    const perf::LinkClass link = comm_link(first, result.profile);
    index = static_cast<size_t>(&result.profile.collective(op, link) - result.profile.collectives.data());
  } catch (const Error& e) {
    result.failures.push_back({group.group, e.what()});
    return;
  }
  // Both lines where the records determine them (at least two records per parameter) and they fit better than
  // the Simple line alone.
  CalibrationResult two_lines;
  two_lines.profile = result.profile;
  GroupFit two_line_fit;
  const bool two_ok = group.records.size() >= kMinRecordsForTwoLines &&
                      try_comm_fit(group, index, true, options, predictor, two_lines, two_line_fit);
  GroupFit fit;
  CalibrationResult one_line;
  one_line.profile = result.profile;
  perf::CollectiveParams& simple_only = one_line.profile.collectives[index];
  simple_only.ll_latency_us = perf::CollectiveParams{}.ll_latency_us;
  simple_only.ll_bytes_per_s = perf::CollectiveParams{}.ll_bytes_per_s;
  const bool one_ok = try_comm_fit(group, index, false, options, predictor, one_line, fit);
  if (two_ok && (!one_ok || two_line_fit.stats.mape_pct < fit.stats.mape_pct)) {
    result.profile = two_lines.profile;
    fit = two_line_fit;
  } else if (one_ok) {
    result.profile = one_line.profile;
  } else {
    result.failures.insert(result.failures.end(), one_line.failures.begin(), one_line.failures.end());
    return;
  }
  perf::CollectiveParams& params = result.profile.collectives[index];
  fit.parameter_names.clear();
  fit.parameter_values.clear();
  for (const auto& [name, value] : reported_comm_parameters(params)) {
    fit.parameter_names.push_back(name);
    fit.parameter_values.push_back(value);
  }
  const std::string source = fitted_source(fit, group.records);
  params.latency_us.source = source;
  params.bytes_per_s.source = source;
  if (params.small_group_us_per_byte.value > 0)
    params.small_group_us_per_byte.source = source + "; bus bandwidth growing with the group size";
  if (params.has_low_latency_line()) {
    params.ll_latency_us.source = source + "; NCCL's low-latency protocol line";
    params.ll_bytes_per_s.source = params.ll_latency_us.source;
  }
  params.fit = to_json(fit);
  result.fits.push_back(fit);
}

/// Standard errors by which a fitted overlap slowdown must exceed 1 to be kept (fit_overlap).
constexpr double kOverlapSignificance = 2.0;

void fit_overlap(const std::vector<Record>& cp_records, const CalibrationOptions& options,
                 const RecordPredictor& predictor, CalibrationResult& result) {
  const std::string group = "overlap";
  std::vector<Record> usable;
  std::string first_excluded;
  for (const Record& record : cp_records) {
    const std::string needed = kernel_group(cp_impl(record.key), record.key);
    if (result.fitted(needed)) usable.push_back(record);
    else if (first_excluded.empty()) first_excluded = needed;
  }
  if (usable.empty()) {
    result.failures.push_back({group, "no CP record whose kernel group was calibrated (e.g. " + first_excluded +
                                          "); measure that kernel too"});
    return;
  }
  ProfileParameter excess;
  excess.name = "overlap_slowdown_minus_1";
  excess.hint = "CP records whose communication overlaps compute (ring, allgather)";
  excess.scale = 0.1;
  excess.get = [](const perf::HardwareProfile& p) { return p.overlap_slowdown.value - 1.0; };
  excess.set = [](perf::HardwareProfile& p, double value) { p.overlap_slowdown.value = 1.0 + value; };
  // The executor's elementwise passes, fitted as microseconds per byte (linear, >= 0).
  ProfileParameter pass_time;
  pass_time.name = "executor_us_per_byte";
  pass_time.hint = "CP records with short steps or all-to-alls (packed documents, Ulysses)";
  pass_time.scale = 1e6 / result.profile.gpu.hbm_bytes_per_s.value;
  pass_time.get = [](const perf::HardwareProfile& p) { return 1e6 / p.executor_pass_rate(); };
  pass_time.set = [](perf::HardwareProfile& p, double us_per_byte) {
    p.executor_pass_bytes_per_s.value = 1e6 / std::max(us_per_byte, 1e-30);
  };
  GroupFit fit;
  if (!run_group_fit(group, {excess, pass_time}, usable, options, predictor, result, fit)) return;
  // A slowdown under overlap departs from the model's neutral assumption (compute runs beside communication as
  // fast as alone), so it stays only where the records show it: at least kOverlapSignificance standard errors
  // above none. Otherwise the slowdown is held at 1 and the pass bandwidth fitted alone; a term the records
  // cannot tell from noise would otherwise move with every refit (and every plan with it).
  const double fitted_excess = result.profile.overlap_slowdown.value - 1.0;
  const double excess_error = fit.standard_errors.empty() ? 0.0 : fit.standard_errors.front().second;
  if (fitted_excess > 0 && !(fitted_excess >= kOverlapSignificance * excess_error)) {
    CalibrationResult held;
    held.profile = result.profile;
    held.profile.overlap_slowdown.value = 1.0;
    GroupFit held_fit;
    if (run_group_fit(group, {pass_time}, usable, options, predictor, held, held_fit)) {
      std::ostringstream note;
      note << "overlap_slowdown held at 1: the records put it at " << format_fixed(1.0 + fitted_excess, 3)
           << " +- " << format_fixed(excess_error, 3) << " (standard error), less than " << kOverlapSignificance
           << " standard errors above 1";
      held_fit.note = note.str();
      held_fit.standard_errors.insert(held_fit.standard_errors.begin(), fit.standard_errors.front());
      result.profile = held.profile;
      fit = held_fit;
    }
  }
  fit.parameter_names = {"overlap_slowdown", "executor_pass_bytes_per_s"};
  fit.parameter_values = {result.profile.overlap_slowdown.value, result.profile.executor_pass_bytes_per_s.value};
  const std::string source = fitted_source(fit, usable);
  result.profile.overlap_slowdown.source = fit.note.empty() ? source : source + "; " + fit.note;
  result.profile.executor_pass_bytes_per_s.source = source;
  result.fits.push_back(fit);
}

}  // namespace

bool CalibrationResult::fitted(const std::string& group) const {
  return std::any_of(fits.begin(), fits.end(), [&](const GroupFit& f) { return f.group == group; });
}

std::string CalibrationResult::failure(const std::string& group) const {
  for (const GroupFailure& f : failures)
    if (f.group == group) return f.reason;
  return "";
}

std::string fit_group(const Record& record, const perf::HardwareProfile& profile) {
  const RecordKey& key = record.key;
  if (record.kind == "kernel") return kernel_group(key.impl, key);
  if (record.kind == "comm") {
    std::string link = "unknown_link";
    try {
      link = std::string(perf::to_string(comm_link(record, profile)));
    } catch (const Error&) {
      // An invalid layout: the group name still identifies the record; its fit reports the error.
    }
    return "comm " + key.op + " " + link;
  }
  if (record.kind == "cp") return "overlap";
  return "";
}

nlohmann::json to_json(const GroupFit& fit) {
  nlohmann::json parameters = nlohmann::json::object();
  for (size_t n = 0; n < fit.parameter_names.size(); ++n) parameters[fit.parameter_names[n]] = fit.parameter_values[n];
  nlohmann::json errors = nlohmann::json::object();
  for (const auto& [name, error] : fit.standard_errors)
    if (std::isfinite(error)) errors[name] = error;
  nlohmann::json out = {{"records", fit.records},
                        {"outliers", fit.outliers},
                        {"parameters", parameters},
                        {"standard_errors", errors},
                        {"residuals", to_json(fit.stats)},
                        {"inlier_residuals", to_json(fit.inlier_stats)}};
  if (!fit.note.empty()) out["note"] = fit.note;
  return out;
}

CalibrationResult calibrate(const std::vector<Record>& records, const perf::HardwareProfile& base,
                            const CalibrationOptions& options, const RecordPredictor& predictor) {
  CalibrationResult result;
  result.profile = base;
  result.profile.name = options.profile_name.empty() ? base.name + ".calibrated" : options.profile_name;

  const std::vector<Record> kernels = usable_measurements(records, "kernel");
  for (const GroupRecords& group : group_by(kernels, [&](const Record& r) { return fit_group(r, base); }))
    fit_kernel_group(group, options, predictor, result);

  std::vector<Record> comms;
  for (const Record& record : usable_measurements(records, "comm"))
    if (record.key.bytes.value_or(0) >= options.comm_min_bytes) comms.push_back(record);
  // Intra-node first: an inter-node all-to-all also pays the intra-node part.
  std::vector<GroupRecords> comm_groups = group_by(comms, [&](const Record& r) { return fit_group(r, base); });
  std::stable_partition(comm_groups.begin(), comm_groups.end(),
                        [](const GroupRecords& g) { return g.group.ends_with("intra_node"); });
  for (const GroupRecords& group : comm_groups) fit_comm_group(group, options, predictor, result);

  const std::vector<Record> cps = usable_measurements(records, "cp");
  if (!cps.empty()) fit_overlap(cps, options, predictor, result);

  // Provenance: what went in, where it was measured, when, and how well each group fits.
  std::vector<Record> used;
  used.insert(used.end(), kernels.begin(), kernels.end());
  used.insert(used.end(), comms.begin(), comms.end());
  used.insert(used.end(), cps.begin(), cps.end());
  perf::Provenance& provenance = result.profile.provenance;
  provenance.kind = "calibrated";
  provenance.inputs = options.input_files;
  std::set<std::string> devices;
  std::string first_time, last_time;
  for (const Record& record : used) {
    if (record.device && !record.device->name.empty()) devices.insert(record.device->name);
    if (record.meta.contains("time") && record.meta["time"].is_string()) {
      const std::string time = record.meta["time"].get<std::string>();
      if (first_time.empty() || time < first_time) first_time = time;
      if (last_time.empty() || time > last_time) last_time = time;
    }
  }
  provenance.devices.assign(devices.begin(), devices.end());
  provenance.date = utc_now();
  provenance.git_sha = kLcabGitSha;
  std::ostringstream description;
  description << "lcab-calibrate: " << result.fits.size() << " groups fitted to " << used.size()
              << " measured records (kernel " << kernels.size() << ", comm >= " << options.comm_min_bytes
              << " B " << comms.size() << ", cp " << cps.size() << ")";
  if (!first_time.empty()) description << " measured " << first_time << " to " << last_time;
  description << "; base profile '" << base.name << "' (" << base.provenance.kind
              << ") for everything not fitted";
  if (!result.failures.empty()) description << "; " << result.failures.size() << " groups not fitted";
  provenance.description = description.str();
  provenance.residuals = nlohmann::json::object();
  for (const GroupFit& fit : result.fits) provenance.residuals[fit.group] = to_json(fit);
  return result;
}

}  // namespace lcab::calibrate
