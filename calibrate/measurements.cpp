#include "calibrate/measurements.h"

#include <cmath>
#include <unordered_map>
#include <sstream>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::calibrate {

std::string canonical_impl(const std::string& impl) {
  if (impl == "sdpa_flash") return "torch_sdpa_flash";
  if (impl == "sdpa_cudnn") return "torch_sdpa_cudnn";
  if (impl == "flex") return "torch_flex";
  return impl;
}

std::vector<Record> usable_measurements(const std::vector<Record>& records, const std::string& kind,
                                        std::vector<std::string>* skipped) {
  std::vector<Record> usable;
  for (const Record& record : records) {
    if (record.kind != kind || record.source != "measured") continue;
    std::string why;
    if (record.status != "ok") why = "status " + record.status;
    else if (!record.time_ms) why = "no time_ms";
    else if (!(std::isfinite(record.time_ms->median) && record.time_ms->median > 0)) why = "non-positive time";
    else if (kind == "comm" && record.key.gpus.value_or(0) < 2) why = "a single GPU: nothing crosses a link";
    else if (kind == "kernel" && record.extra.value("dense_mask", false))
      why = "a dense mask tensor: every tile computed, the mask read per tile (not in the tile model)";
    if (!why.empty()) {
      if (skipped) skipped->push_back(describe_point(record) + ": " + why);
      continue;
    }
    usable.push_back(record);
    if (kind == "kernel") usable.back().key.impl = canonical_impl(record.key.impl);
  }
  // A re-measurement supersedes: of several records of one key, the last given is kept (as lcab-report does).
  std::unordered_map<std::string, size_t> last;
  for (size_t i = 0; i < usable.size(); ++i) last[key_id(usable[i].key)] = i;
  std::vector<Record> latest;
  latest.reserve(last.size());
  for (size_t i = 0; i < usable.size(); ++i) {
    if (last[key_id(usable[i].key)] == i) {
      latest.push_back(std::move(usable[i]));
    } else if (skipped) {
      skipped->push_back(describe_point(usable[i]) + ": superseded by a later record of the same key");
    }
  }
  return latest;
}

double measured_time_ms(const Record& record) {
  LCAB_CHECK(record.time_ms.has_value(), "record " << key_id(record.key) << " has no time_ms");
  return record.time_ms->median;
}

std::string report_group(const Record& record) {
  const RecordKey& key = record.key;
  if (record.kind == "kernel") return "kernel " + key.impl + " " + key.pass;
  if (record.kind == "comm")
    return "comm " + key.op + (key.bytes.value_or(0) >= kCommTargetMinBytes ? " >= 1 MiB" : " < 1 MiB");
  if (record.kind == "cp") return "cp " + key.method + " " + key.pass;
  return record.kind;
}

std::string describe_point(const Record& record) {
  const RecordKey& key = record.key;
  std::ostringstream out;
  if (record.kind == "comm") {
    out << key.op << " " << (key.bytes ? std::to_string(*key.bytes) + " B" : std::string("? B"));
    if (key.gpus) out << " " << *key.gpus << " GPUs";
    if (key.gpus_per_node) out << " (" << *key.gpus_per_node << "/node)";
    if (!key.group.empty()) out << " " << key.group;
    return out.str();
  }
  if (record.kind == "cp") {
    out << key.method;
    if (key.gpus) out << " P=" << *key.gpus;
    for (const auto& [name, degree] : key.degrees) out << " " << name << "=" << degree;
    if (!key.placement.empty()) out << " " << key.placement;
    out << " " << key.pass << " ";
  } else {
    out << key.impl << " " << key.pass << " ";
  }
  out << key.mask;
  if (key.seqlen) out << " S=" << format_tokens(*key.seqlen);
  if (key.head_dim) out << " hd" << *key.head_dim;
  if (!key.dtype.empty()) out << " " << key.dtype;
  if (key.heads && key.kv_heads) out << " " << *key.heads << "/" << *key.kv_heads;
  if (key.batch && *key.batch != 1) out << " b" << *key.batch;
  return out.str();
}

}  // namespace lcab::calibrate
