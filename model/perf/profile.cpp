#include "model/perf/profile.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::perf {
namespace detail {
extern const std::string_view kBuiltinProfileH100Json;
extern const std::string_view kBuiltinProfileH200Json;
}  // namespace detail

namespace {
using nlohmann::json;

template <typename Enum, size_t N>
Enum parse_enum(std::string_view name, const std::pair<Enum, const char*> (&table)[N], const char* what) {
  std::vector<std::string> valid;
  for (const auto& [value, text] : table) {
    if (name == text) return value;
    valid.emplace_back(text);
  }
  LCAB_THROW("unknown " << what << " '" << name << "'; valid: " << join(valid));
}
template <typename Enum, size_t N>
std::string_view enum_name(Enum value, const std::pair<Enum, const char*> (&table)[N]) {
  for (const auto& [v, text] : table)
    if (v == value) return text;
  return "?";
}

constexpr std::pair<KernelScheduler, const char*> kSchedulerNames[] = {
    {KernelScheduler::kPersistentLongestFirst, "persistent_longest_first"},
    {KernelScheduler::kGridWaves, "grid_waves"},
    {KernelScheduler::kGridCostliestFirst, "grid_costliest_first"},
    {KernelScheduler::kGridLongItemsFirst, "grid_long_items_first"},
    {KernelScheduler::kGridPairedDocuments, "grid_paired_documents"}};
constexpr std::pair<KernelWorkItem, const char*> kWorkItemNames[] = {
    {KernelWorkItem::kQRowPerHead, "q_row_per_head"},
    {KernelWorkItem::kKColumnPerHead, "k_column_per_head"},
    {KernelWorkItem::kKColumnPerKvHead, "k_column_per_kv_head"},
    {KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead, "k_column_per_kv_head_and_q_row_per_head"}};
constexpr std::pair<CollectiveOp, const char*> kOpNames[] = {
    {CollectiveOp::kSendRecv, "send_recv"},       {CollectiveOp::kAllToAll, "all_to_all"},
    {CollectiveOp::kAllGather, "all_gather"},     {CollectiveOp::kReduceScatter, "reduce_scatter"},
    {CollectiveOp::kAllReduce, "all_reduce"}};
constexpr std::pair<LinkClass, const char*> kLinkNames[] = {{LinkClass::kIntraNode, "intra_node"},
                                                            {LinkClass::kInterNode, "inter_node"}};

// ---- reading, with the path of every field in error messages ----

const json& field(const json& j, const std::string& path, const char* name) {
  LCAB_CHECK(j.is_object(), "profile: '" << path << "' must be an object");
  auto it = j.find(name);
  LCAB_CHECK(it != j.end(), "profile: missing field '" << path << (path.empty() ? "" : ".") << name << "'");
  return *it;
}
std::string sub(const std::string& path, const char* name) { return path.empty() ? name : path + "." + name; }

Sourced read_sourced(const json& parent, const std::string& path, const char* name) {
  const json& j = field(parent, path, name);
  const std::string where = sub(path, name);
  LCAB_CHECK(j.is_object() && j.contains("value") && j.contains("source"),
             "profile: '" << where << "' must be {\"value\": number, \"source\": text}");
  LCAB_CHECK(j["value"].is_number(), "profile: '" << where << ".value' must be a number");
  LCAB_CHECK(j["source"].is_string() && !j["source"].get<std::string>().empty(),
             "profile: '" << where << ".source' must be a non-empty text saying where the number comes from");
  return {j["value"].get<double>(), j["source"].get<std::string>()};
}
std::string read_string(const json& parent, const std::string& path, const char* name) {
  const json& j = field(parent, path, name);
  LCAB_CHECK(j.is_string(), "profile: '" << sub(path, name) << "' must be a string");
  return j.get<std::string>();
}
int read_int(const json& parent, const std::string& path, const char* name) {
  const json& j = field(parent, path, name);
  LCAB_CHECK(j.is_number_integer(), "profile: '" << sub(path, name) << "' must be an integer");
  return j.get<int>();
}
json read_object_or_empty(const json& parent, const char* name) {
  auto it = parent.find(name);
  if (it == parent.end() || it->is_null()) return json::object();
  return *it;
}
std::vector<std::string> read_strings(const json& parent, const char* name) {
  std::vector<std::string> out;
  auto it = parent.find(name);
  if (it == parent.end()) return out;
  LCAB_CHECK(it->is_array(), "profile: 'provenance." << name << "' must be an array of strings");
  for (const json& s : *it) {
    LCAB_CHECK(s.is_string(), "profile: 'provenance." << name << "' must be an array of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::string join_ints(const std::set<int>& values) {
  std::vector<std::string> texts;
  for (int v : values) texts.push_back(std::to_string(v));
  return join(texts);
}
json object_or_empty(const json& j) { return j.is_null() ? json::object() : j; }

json write_sourced(const Sourced& s) { return {{"value", s.value}, {"source", s.source}}; }

// ---- validation ----

void check_positive(const Sourced& s, const std::string& what) {
  LCAB_CHECK(std::isfinite(s.value) && s.value > 0, "profile: " << what << " must be positive, got " << s.value);
}
void check_non_negative(const Sourced& s, const std::string& what) {
  LCAB_CHECK(std::isfinite(s.value) && s.value >= 0, "profile: " << what << " must be >= 0, got " << s.value);
}
std::string kernel_label(const KernelParams& k) {
  return k.impl + "/" + k.pass + "/hd" + std::to_string(k.head_dim) + "/" + k.dtype;
}

std::string_view builtin_json(std::string_view name) {
  if (name == "h100_sxm") return detail::kBuiltinProfileH100Json;
  if (name == "h200_sxm") return detail::kBuiltinProfileH200Json;
  return {};
}
}  // namespace

std::string_view to_string(KernelScheduler scheduler) { return enum_name(scheduler, kSchedulerNames); }
KernelScheduler parse_kernel_scheduler(std::string_view name) {
  return parse_enum(name, kSchedulerNames, "kernel scheduler");
}
std::string_view to_string(KernelWorkItem item) { return enum_name(item, kWorkItemNames); }
KernelWorkItem parse_kernel_work_item(std::string_view name) {
  return parse_enum(name, kWorkItemNames, "kernel work item");
}
std::string_view to_string(CollectiveOp op) { return enum_name(op, kOpNames); }
CollectiveOp parse_collective_op(std::string_view name) { return parse_enum(name, kOpNames, "collective op"); }
std::string_view to_string(LinkClass link) { return enum_name(link, kLinkNames); }
LinkClass parse_link_class(std::string_view name) { return parse_enum(name, kLinkNames, "link class"); }

std::string describe_fit_basis(const HardwareProfile& profile, std::string_view impl, std::string_view dtype,
                               int64_t head_dim, const std::vector<std::string>& passes) {
  // "fwd, bwd fitted to measurements": the passes (or links) of each source together, sources in the order first seen.
  const auto grouped = [](const std::vector<std::pair<std::string, std::string>>& source_items) {
    std::vector<std::string> parts;
    for (const auto& [source, items] : group_by_label(source_items)) parts.push_back(join(items) + " " + source);
    return parts;
  };
  std::vector<std::pair<std::string, std::string>> kernels;
  for (const std::string& pass : passes) {
    const KernelParams* k = profile.find_kernel(impl, pass, head_dim, dtype);
    kernels.emplace_back(!k ? "(no entry)" : k->fitted() ? "fitted to measurements" : "from the datasheet", pass);
  }
  std::vector<std::pair<std::string, std::string>> links;
  for (const LinkClass link : {LinkClass::kIntraNode, LinkClass::kInterNode}) {
    int64_t fitted = 0, total = 0;
    for (const CollectiveParams& c : profile.collectives) {
      if (c.link != link) continue;
      ++total;
      fitted += !c.fit.empty();
    }
    if (total == 0) continue;
    links.emplace_back(fitted == total ? "fitted to measurements"
                       : fitted == 0   ? "from the datasheet"
                                       : "partly fitted (" + std::to_string(fitted) + " of " + std::to_string(total) +
                                             " collectives)",
                       link == LinkClass::kIntraNode ? "intra-node" : "inter-node");
  }
  std::ostringstream out;
  out << impl << " " << dtype << " hd " << head_dim << ": " << join(grouped(kernels))
      << "; collectives: " << join(grouped(links));
  return out.str();
}

const KernelParams* HardwareProfile::find_kernel(std::string_view impl, std::string_view pass, int64_t head_dim,
                                                 std::string_view dtype) const {
  for (const KernelParams& k : kernels)
    if (k.impl == impl && k.pass == pass && k.head_dim == head_dim && k.dtype == dtype) return &k;
  return nullptr;
}

const KernelParams& HardwareProfile::kernel(std::string_view impl, std::string_view pass, int64_t head_dim,
                                            std::string_view dtype) const {
  if (const KernelParams* k = find_kernel(impl, pass, head_dim, dtype)) return *k;
  std::set<std::string> impls, dtypes;
  std::set<int> dims;
  for (const KernelParams& k : kernels) {
    impls.insert(k.impl);
    if (k.impl == impl) {
      dims.insert(k.head_dim);
      dtypes.insert(k.dtype);
    }
  }
  LCAB_CHECK(impls.count(std::string(impl)), "profile '" << name << "' has no kernel parameters for impl '" << impl
                                                         << "'; valid: " << join({impls.begin(), impls.end()}));
  LCAB_THROW("profile '" << name << "' has no kernel parameters for " << impl << " pass " << pass << " head_dim "
                         << head_dim << " dtype " << dtype << "; " << impl << " has head_dim "
                         << join_ints(dims) << ", dtype " << join({dtypes.begin(), dtypes.end()})
                         << ", pass fwd, bwd");
}

std::vector<std::string> HardwareProfile::kernel_impls() const {
  std::vector<std::string> names;
  for (const KernelParams& k : kernels)
    if (std::find(names.begin(), names.end(), k.impl) == names.end()) names.push_back(k.impl);
  return names;
}

const CollectiveParams& HardwareProfile::collective(CollectiveOp op, LinkClass link) const {
  for (const CollectiveParams& c : collectives)
    if (c.op == op && c.link == link) return c;
  LCAB_THROW("profile '" << name << "' has no parameters for collective " << to_string(op) << " over "
                         << to_string(link));
}

void validate_profile(const HardwareProfile& p) {
  LCAB_CHECK(!p.name.empty(), "profile: 'name' must not be empty");
  LCAB_CHECK(p.provenance.kind == "datasheet" || p.provenance.kind == "calibrated",
             "profile: provenance.kind must be 'datasheet' or 'calibrated', got '" << p.provenance.kind << "'");
  check_positive(p.gpu.sms, "gpu.sms");
  LCAB_CHECK(p.gpu.sms.value == std::floor(p.gpu.sms.value), "profile: gpu.sms must be a whole number");
  check_positive(p.gpu.peak_dense_flops_per_s, "gpu.peak_dense_flops_per_s");
  check_positive(p.gpu.hbm_bytes_per_s, "gpu.hbm_bytes_per_s");
  check_positive(p.gpu.memory_bytes, "gpu.memory_bytes");
  check_positive(p.node.gpus_per_node, "node.gpus_per_node");
  check_positive(p.node.intra_bytes_per_s, "node.intra_bytes_per_s");
  check_non_negative(p.node.intra_latency_us, "node.intra_latency_us");
  check_positive(p.network.bytes_per_s, "network.bytes_per_s");
  check_non_negative(p.network.latency_us, "network.latency_us");
  LCAB_CHECK(std::isfinite(p.overlap_slowdown.value) && p.overlap_slowdown.value >= 1,
             "profile: overlap_slowdown must be >= 1 (compute is never faster while communication runs), got "
                 << p.overlap_slowdown.value);
  check_non_negative(p.executor_pass_bytes_per_s, "executor_pass_bytes_per_s");
  LCAB_CHECK(!p.kernels.empty(), "profile: 'kernels' must list at least one implementation");
  std::set<std::string> seen;
  for (const KernelParams& k : p.kernels) {
    const std::string label = "kernel " + kernel_label(k);
    LCAB_CHECK(seen.insert(kernel_label(k)).second, "profile: duplicate " << label);
    LCAB_CHECK(k.pass == "fwd" || k.pass == "bwd", "profile: " << label << ": pass must be fwd or bwd");
    LCAB_CHECK(k.dtype == "bf16" || k.dtype == "fp16", "profile: " << label << ": dtype must be bf16 or fp16");
    LCAB_CHECK(k.head_dim > 0 && k.tile.q > 0 && k.tile.k > 0,
               "profile: " << label << ": head_dim, tile_q and tile_k must be positive");
    check_positive(k.ctas_per_sm, label + " ctas_per_sm");
    check_positive(k.full_tile_us, label + " full_tile_us");
    check_non_negative(k.partial_tile_us, label + " partial_tile_us");
    check_non_negative(k.row_us, label + " row_us");
    check_non_negative(k.launch_us, label + " launch_us");
    check_non_negative(k.q_pass_bytes_per_element, label + " q_pass_bytes_per_element");
    if (k.slice_us) check_non_negative(*k.slice_us, label + " slice_us");
    if (k.kv_tile_us) check_non_negative(*k.kv_tile_us, label + " kv_tile_us");
    if (k.kv_expand_bytes_per_element)
      check_non_negative(*k.kv_expand_bytes_per_element, label + " kv_expand_bytes_per_element");
    if (k.tail_pass_bytes_per_element) {
      check_non_negative(*k.tail_pass_bytes_per_element, label + " tail_pass_bytes_per_element");
      LCAB_CHECK(k.scheduler != KernelScheduler::kPersistentLongestFirst,
                 "profile: " << label << ": tail_pass_bytes_per_element needs a grid scheduler (the pass runs in the "
                             "grid's tail)");
    }
    if (k.sustained_slowdown) check_non_negative(*k.sustained_slowdown, label + " sustained_slowdown");
    if (k.sustained_rate_per_us) check_non_negative(*k.sustained_rate_per_us, label + " sustained_rate_per_us");
    LCAB_CHECK(k.sustained_slowdown.has_value() == k.sustained_rate_per_us.has_value(),
               "profile: " << label << ": sustained_slowdown and sustained_rate_per_us come together");
    if (k.host_floor_us) check_non_negative(*k.host_floor_us, label + " host_floor_us");
    if (k.dq_tile_fraction) check_non_negative(*k.dq_tile_fraction, label + " dq_tile_fraction");
    if (k.unmasked_tile_us) check_non_negative(*k.unmasked_tile_us, label + " unmasked_tile_us");
    if (k.idle_half_tile_us) {
      check_non_negative(*k.idle_half_tile_us, label + " idle_half_tile_us");
      LCAB_CHECK(k.tile.k % 2 == 0, "profile: " << label
                                                << ": idle_half_tile_us needs an even tile_k (two key halves), got "
                                                << k.tile.k);
    }
    if (k.register_slices) check_non_negative(*k.register_slices, label + " register_slices");
    if (k.spilled_slice_us) check_non_negative(*k.spilled_slice_us, label + " spilled_slice_us");
    LCAB_CHECK(k.register_slices.has_value() == k.spilled_slice_us.has_value(),
               "profile: " << label << ": register_slices and spilled_slice_us come together");
    LCAB_CHECK(!k.register_slices || k.slices_by_table_width,
               "profile: " << label << ": register_slices needs slices_by_table_width");
  }
  for (CollectiveOp op : kAllCollectiveOps) {
    for (LinkClass link : {LinkClass::kIntraNode, LinkClass::kInterNode}) {
      int found = 0;
      for (const CollectiveParams& c : p.collectives) {
        if (c.op != op || c.link != link) continue;
        ++found;
        const std::string label = "collective " + std::string(to_string(op)) + "/" + std::string(to_string(link));
        check_non_negative(c.latency_us, label + " latency_us");
        check_positive(c.bytes_per_s, label + " bytes_per_s");
        check_non_negative(c.ll_latency_us, label + " ll_latency_us");
        check_non_negative(c.ll_bytes_per_s, label + " ll_bytes_per_s");
        check_non_negative(c.small_group_us_per_byte, label + " small_group_us_per_byte");
      }
      LCAB_CHECK(found == 1, "profile: needs exactly one entry for collective " << to_string(op) << " over "
                                                                                << to_string(link) << ", found "
                                                                                << found);
    }
  }
}

json to_json(const HardwareProfile& p) {
  json j;
  j["schema"] = kProfileSchema;
  j["name"] = p.name;
  j["provenance"] = {{"kind", p.provenance.kind},       {"description", p.provenance.description},
                     {"inputs", p.provenance.inputs},   {"devices", p.provenance.devices},
                     {"date", p.provenance.date},       {"git_sha", p.provenance.git_sha},
                     {"residuals", object_or_empty(p.provenance.residuals)}};
  j["gpu"] = {{"name", p.gpu.name},
              {"sms", write_sourced(p.gpu.sms)},
              {"peak_dense_flops_per_s", write_sourced(p.gpu.peak_dense_flops_per_s)},
              {"hbm_bytes_per_s", write_sourced(p.gpu.hbm_bytes_per_s)},
              {"memory_bytes", write_sourced(p.gpu.memory_bytes)}};
  j["node"] = {{"gpus_per_node", write_sourced(p.node.gpus_per_node)},
               {"intra_bytes_per_s", write_sourced(p.node.intra_bytes_per_s)},
               {"intra_latency_us", write_sourced(p.node.intra_latency_us)}};
  j["network"] = {{"bytes_per_s", write_sourced(p.network.bytes_per_s)},
                  {"latency_us", write_sourced(p.network.latency_us)}};
  j["overlap_slowdown"] = write_sourced(p.overlap_slowdown);
  if (p.executor_pass_bytes_per_s.value > 0) j["executor_pass_bytes_per_s"] = write_sourced(p.executor_pass_bytes_per_s);
  json kernels = json::array();
  for (const KernelParams& k : p.kernels) {
    kernels.push_back({{"impl", k.impl},
                       {"pass", k.pass},
                       {"head_dim", k.head_dim},
                       {"dtype", k.dtype},
                       {"tile_q", k.tile.q},
                       {"tile_k", k.tile.k},
                       {"scheduler", to_string(k.scheduler)},
                       {"work_item", to_string(k.work_item)},
                       {"ctas_per_sm", write_sourced(k.ctas_per_sm)},
                       {"full_tile_us", write_sourced(k.full_tile_us)},
                       {"partial_tile_us", write_sourced(k.partial_tile_us)},
                       {"row_us", write_sourced(k.row_us)},
                       {"launch_us", write_sourced(k.launch_us)},
                       {"fit", object_or_empty(k.fit)}});
    if (k.q_pass_bytes_per_element.value > 0)
      kernels.back()["q_pass_bytes_per_element"] = write_sourced(k.q_pass_bytes_per_element);
    if (k.slice_us) kernels.back()["slice_us"] = write_sourced(*k.slice_us);
    if (k.kv_tile_us) kernels.back()["kv_tile_us"] = write_sourced(*k.kv_tile_us);
    if (k.whole_sequence_band) kernels.back()["whole_sequence_band"] = true;
    if (k.ragged_sequences) kernels.back()["ragged_sequences"] = true;
    if (k.kv_expand_bytes_per_element)
      kernels.back()["kv_expand_bytes_per_element"] = write_sourced(*k.kv_expand_bytes_per_element);
    if (k.tail_pass_bytes_per_element)
      kernels.back()["tail_pass_bytes_per_element"] = write_sourced(*k.tail_pass_bytes_per_element);
    if (k.sustained_slowdown) kernels.back()["sustained_slowdown"] = write_sourced(*k.sustained_slowdown);
    if (k.sustained_rate_per_us) kernels.back()["sustained_rate_per_us"] = write_sourced(*k.sustained_rate_per_us);
    if (k.host_floor_us) kernels.back()["host_floor_us"] = write_sourced(*k.host_floor_us);
    if (k.dq_tile_fraction) kernels.back()["dq_tile_fraction"] = write_sourced(*k.dq_tile_fraction);
    if (k.unmasked_tile_us) kernels.back()["unmasked_tile_us"] = write_sourced(*k.unmasked_tile_us);
    if (k.idle_half_tile_us) kernels.back()["idle_half_tile_us"] = write_sourced(*k.idle_half_tile_us);
    if (k.slices_by_table_width) kernels.back()["slices_by_table_width"] = true;
    if (k.register_slices) kernels.back()["register_slices"] = write_sourced(*k.register_slices);
    if (k.spilled_slice_us) kernels.back()["spilled_slice_us"] = write_sourced(*k.spilled_slice_us);
  }
  j["kernels"] = kernels;
  json collectives = json::array();
  for (const CollectiveParams& c : p.collectives) {
    collectives.push_back({{"op", to_string(c.op)},
                           {"link", to_string(c.link)},
                           {"latency_us", write_sourced(c.latency_us)},
                           {"bytes_per_s", write_sourced(c.bytes_per_s)},
                           {"fit", object_or_empty(c.fit)}});
    if (c.has_low_latency_line()) {
      collectives.back()["ll_latency_us"] = write_sourced(c.ll_latency_us);
      collectives.back()["ll_bytes_per_s"] = write_sourced(c.ll_bytes_per_s);
    }
    if (c.small_group_us_per_byte.value > 0)
      collectives.back()["small_group_us_per_byte"] = write_sourced(c.small_group_us_per_byte);
  }
  j["collectives"] = collectives;
  return j;
}

HardwareProfile profile_from_json(const json& j) {
  LCAB_CHECK(j.is_object(), "profile: the top level must be a JSON object");
  const std::string schema = read_string(j, "", "schema");
  LCAB_CHECK(schema == kProfileSchema,
             "profile: schema '" << schema << "' is not supported; valid: " << kProfileSchema);
  HardwareProfile p;
  p.name = read_string(j, "", "name");
  const json& prov = field(j, "", "provenance");
  p.provenance.kind = read_string(prov, "provenance", "kind");
  if (prov.contains("description")) p.provenance.description = read_string(prov, "provenance", "description");
  p.provenance.inputs = read_strings(prov, "inputs");
  p.provenance.devices = read_strings(prov, "devices");
  if (prov.contains("date")) p.provenance.date = read_string(prov, "provenance", "date");
  if (prov.contains("git_sha")) p.provenance.git_sha = read_string(prov, "provenance", "git_sha");
  p.provenance.residuals = read_object_or_empty(prov, "residuals");

  const json& gpu = field(j, "", "gpu");
  p.gpu.name = read_string(gpu, "gpu", "name");
  p.gpu.sms = read_sourced(gpu, "gpu", "sms");
  p.gpu.peak_dense_flops_per_s = read_sourced(gpu, "gpu", "peak_dense_flops_per_s");
  p.gpu.hbm_bytes_per_s = read_sourced(gpu, "gpu", "hbm_bytes_per_s");
  p.gpu.memory_bytes = read_sourced(gpu, "gpu", "memory_bytes");
  const json& node = field(j, "", "node");
  p.node.gpus_per_node = read_sourced(node, "node", "gpus_per_node");
  p.node.intra_bytes_per_s = read_sourced(node, "node", "intra_bytes_per_s");
  p.node.intra_latency_us = read_sourced(node, "node", "intra_latency_us");
  const json& net = field(j, "", "network");
  p.network.bytes_per_s = read_sourced(net, "network", "bytes_per_s");
  p.network.latency_us = read_sourced(net, "network", "latency_us");
  p.overlap_slowdown = read_sourced(j, "", "overlap_slowdown");
  if (j.contains("executor_pass_bytes_per_s"))
    p.executor_pass_bytes_per_s = read_sourced(j, "", "executor_pass_bytes_per_s");

  const json& kernels = field(j, "", "kernels");
  LCAB_CHECK(kernels.is_array(), "profile: 'kernels' must be an array");
  for (size_t n = 0; n < kernels.size(); ++n) {
    const std::string path = "kernels[" + std::to_string(n) + "]";
    const json& e = kernels[n];
    KernelParams k;
    k.impl = read_string(e, path, "impl");
    k.pass = read_string(e, path, "pass");
    k.head_dim = read_int(e, path, "head_dim");
    k.dtype = read_string(e, path, "dtype");
    k.tile.q = read_int(e, path, "tile_q");
    k.tile.k = read_int(e, path, "tile_k");
    k.scheduler = parse_kernel_scheduler(read_string(e, path, "scheduler"));
    if (e.contains("work_item")) k.work_item = parse_kernel_work_item(read_string(e, path, "work_item"));
    k.ctas_per_sm = read_sourced(e, path, "ctas_per_sm");
    k.full_tile_us = read_sourced(e, path, "full_tile_us");
    k.partial_tile_us = read_sourced(e, path, "partial_tile_us");
    k.row_us = read_sourced(e, path, "row_us");
    k.launch_us = read_sourced(e, path, "launch_us");
    k.q_pass_bytes_per_element =
        e.contains("q_pass_bytes_per_element")
            ? read_sourced(e, path, "q_pass_bytes_per_element")
            : KernelParams{}.q_pass_bytes_per_element;
    if (e.contains("slice_us")) k.slice_us = read_sourced(e, path, "slice_us");
    if (e.contains("kv_tile_us")) k.kv_tile_us = read_sourced(e, path, "kv_tile_us");
    for (auto [name, member] : {std::pair{"kv_expand_bytes_per_element", &KernelParams::kv_expand_bytes_per_element},
                                std::pair{"tail_pass_bytes_per_element", &KernelParams::tail_pass_bytes_per_element},
                                std::pair{"sustained_slowdown", &KernelParams::sustained_slowdown},
                                std::pair{"sustained_rate_per_us", &KernelParams::sustained_rate_per_us},
                                std::pair{"host_floor_us", &KernelParams::host_floor_us},
                                std::pair{"dq_tile_fraction", &KernelParams::dq_tile_fraction},
                                std::pair{"unmasked_tile_us", &KernelParams::unmasked_tile_us},
                                std::pair{"idle_half_tile_us", &KernelParams::idle_half_tile_us},
                                std::pair{"register_slices", &KernelParams::register_slices},
                                std::pair{"spilled_slice_us", &KernelParams::spilled_slice_us}})
      if (e.contains(name)) k.*member = read_sourced(e, path, name);
    if (e.contains("whole_sequence_band")) {
      LCAB_CHECK(e["whole_sequence_band"].is_boolean(), "profile: " << path << ".whole_sequence_band must be true or false");
      k.whole_sequence_band = e["whole_sequence_band"].get<bool>();
    }
    if (e.contains("ragged_sequences")) {
      LCAB_CHECK(e["ragged_sequences"].is_boolean(), "profile: " << path << ".ragged_sequences must be true or false");
      k.ragged_sequences = e["ragged_sequences"].get<bool>();
    }
    if (e.contains("slices_by_table_width")) {
      LCAB_CHECK(e["slices_by_table_width"].is_boolean(),
                 "profile: " << path << ".slices_by_table_width must be true or false");
      k.slices_by_table_width = e["slices_by_table_width"].get<bool>();
    }
    k.fit = read_object_or_empty(e, "fit");
    p.kernels.push_back(std::move(k));
  }
  const json& collectives = field(j, "", "collectives");
  LCAB_CHECK(collectives.is_array(), "profile: 'collectives' must be an array");
  for (size_t n = 0; n < collectives.size(); ++n) {
    const std::string path = "collectives[" + std::to_string(n) + "]";
    const json& e = collectives[n];
    CollectiveParams c;
    c.op = parse_collective_op(read_string(e, path, "op"));
    c.link = parse_link_class(read_string(e, path, "link"));
    c.latency_us = read_sourced(e, path, "latency_us");
    c.bytes_per_s = read_sourced(e, path, "bytes_per_s");
    if (e.contains("ll_latency_us")) c.ll_latency_us = read_sourced(e, path, "ll_latency_us");
    if (e.contains("ll_bytes_per_s")) c.ll_bytes_per_s = read_sourced(e, path, "ll_bytes_per_s");
    if (e.contains("small_group_us_per_byte"))
      c.small_group_us_per_byte = read_sourced(e, path, "small_group_us_per_byte");
    c.fit = read_object_or_empty(e, "fit");
    p.collectives.push_back(std::move(c));
  }
  validate_profile(p);
  return p;
}

HardwareProfile load_profile(const std::string& path) {
  std::ifstream in(path);
  LCAB_CHECK(in.good(), "cannot open profile '" << path << "'; give a built-in name (" << join(builtin_profile_names())
                                                << ") or a path to a profile JSON file");
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    LCAB_THROW("profile '" << path << "' is not valid JSON: " << e.what());
  }
  try {
    return profile_from_json(j);
  } catch (const Error& e) {
    LCAB_THROW("profile '" << path << "': " << e.what());
  }
}

void save_profile(const HardwareProfile& profile, const std::string& path) {
  validate_profile(profile);
  std::ofstream out(path);
  LCAB_CHECK(out.good(), "cannot write profile '" << path << "'");
  out << to_json(profile).dump(2) << "\n";
  LCAB_CHECK(out.good(), "writing profile '" << path << "' failed");
}

std::vector<std::string> builtin_profile_names() { return {"h100_sxm", "h200_sxm"}; }

const HardwareProfile& builtin_profile(std::string_view name) {
  static std::mutex mutex;
  static std::map<std::string, HardwareProfile, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  const std::string_view text = builtin_json(name);
  LCAB_CHECK(!text.empty(), "unknown built-in profile '" << name << "'; valid: " << join(builtin_profile_names())
                                                         << " (or a path to a profile JSON file)");
  HardwareProfile profile;
  try {
    profile = profile_from_json(json::parse(text));
  } catch (const json::exception& e) {
    LCAB_THROW("built-in profile '" << name << "' is not valid JSON: " << e.what());
  }
  return cache.emplace(std::string(name), std::move(profile)).first->second;
}

HardwareProfile resolve_profile(const std::string& name_or_path) {
  if (!builtin_json(name_or_path).empty()) return builtin_profile(name_or_path);
  return load_profile(name_or_path);
}

}  // namespace lcab::perf
