#include "model/record.h"

#include <chrono>
#include <ctime>

#include "model/error.h"
#include "model/line_reader.h"
#include "model/version.h"

namespace lcab {
namespace {
using nlohmann::json;

void put(json& j, const char* name, const std::string& v) {
  if (!v.empty()) j[name] = v;
}
template <typename T>
void put(json& j, const char* name, const std::optional<T>& v) {
  if (v) j[name] = *v;
}
std::string get_string(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return {};
  LCAB_CHECK(it->is_string(), "field '" << name << "' must be a string");
  return it->get<std::string>();
}
template <typename T>
std::optional<T> get_number(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::nullopt;
  LCAB_CHECK(it->is_number(), "field '" << name << "' must be a number");
  return it->get<T>();
}
}  // namespace

json to_json(const RecordKey& k) {
  json j = json::object();
  put(j, "impl", k.impl);
  put(j, "pass", k.pass);
  put(j, "mask", k.mask);
  put(j, "seqlen", k.seqlen);
  put(j, "batch", k.batch);
  put(j, "heads", k.heads);
  put(j, "kv_heads", k.kv_heads);
  put(j, "head_dim", k.head_dim);
  put(j, "dtype", k.dtype);
  put(j, "method", k.method);
  put(j, "gpus", k.gpus);
  put(j, "gpus_per_node", k.gpus_per_node);
  if (!k.degrees.empty()) j["degrees"] = k.degrees;
  put(j, "placement", k.placement);
  put(j, "op", k.op);
  put(j, "bytes", k.bytes);
  put(j, "group", k.group);
  return j;
}

RecordKey key_from_json(const json& j) {
  LCAB_CHECK(j.is_object(), "'key' must be an object");
  RecordKey k;
  k.impl = get_string(j, "impl");
  k.pass = get_string(j, "pass");
  k.mask = get_string(j, "mask");
  k.seqlen = get_number<int64_t>(j, "seqlen");
  k.batch = get_number<int64_t>(j, "batch");
  k.heads = get_number<int64_t>(j, "heads");
  k.kv_heads = get_number<int64_t>(j, "kv_heads");
  k.head_dim = get_number<int64_t>(j, "head_dim");
  k.dtype = get_string(j, "dtype");
  k.method = get_string(j, "method");
  k.gpus = get_number<int64_t>(j, "gpus");
  k.gpus_per_node = get_number<int64_t>(j, "gpus_per_node");
  if (auto it = j.find("degrees"); it != j.end() && !it->is_null()) {
    LCAB_CHECK(it->is_object(), "'degrees' must be an object");
    for (auto& [name, value] : it->items()) {
      LCAB_CHECK(value.is_number_integer(), "degree '" << name << "' must be an integer");
      k.degrees[name] = value.get<int64_t>();
    }
  }
  k.placement = get_string(j, "placement");
  k.op = get_string(j, "op");
  k.bytes = get_number<int64_t>(j, "bytes");
  k.group = get_string(j, "group");
  return k;
}

json to_json(const Record& r) {
  json j = r.extra.is_object() ? r.extra : json::object();
  j["schema"] = kRecordSchema;
  j["source"] = r.source;
  j["kind"] = r.kind;
  j["key"] = to_json(r.key);
  j["status"] = r.status;
  put(j, "error", r.error);
  if (r.time_ms) j["time_ms"] = {{"median", r.time_ms->median}, {"p20", r.time_ms->p20}, {"p80", r.time_ms->p80}};
  put(j, "tflops", r.tflops);
  put(j, "area", r.area);
  put(j, "flops", r.flops);
  put(j, "peak_mem_bytes", r.peak_mem_bytes);
  if (r.breakdown) {
    json b = json::object();
    put(b, "compute_ms", r.breakdown->compute_ms);
    put(b, "comm_ms", r.breakdown->comm_ms);
    put(b, "exposed_comm_ms", r.breakdown->exposed_comm_ms);
    if (!r.breakdown->per_rank_ms.empty()) b["per_rank_ms"] = r.breakdown->per_rank_ms;
    j["breakdown"] = b;
  }
  if (r.device) {
    json d = json::object();
    put(d, "name", r.device->name);
    put(d, "sms", r.device->sms);
    put(d, "driver", r.device->driver);
    j["device"] = d;
  }
  if (!r.meta.empty()) j["meta"] = r.meta;
  return j;
}

Record record_from_json(const json& j) {
  LCAB_CHECK(j.is_object(), "a record must be a JSON object");
  const std::string schema = get_string(j, "schema");
  LCAB_CHECK(schema == kRecordSchema, "schema is '" << schema << "', expected '" << kRecordSchema << "'");
  Record r;
  r.source = get_string(j, "source");
  LCAB_CHECK(r.source == "measured" || r.source == "predicted",
             "source is '" << r.source << "'; valid: measured, predicted");
  r.kind = get_string(j, "kind");
  LCAB_CHECK(!r.kind.empty(), "field 'kind' is missing");
  LCAB_CHECK(j.contains("key"), "field 'key' is missing");
  r.key = key_from_json(j.at("key"));
  r.status = get_string(j, "status");
  LCAB_CHECK(r.status == "ok" || r.status == "oom" || r.status == "unsupported" || r.status == "error",
             "status is '" << r.status << "'; valid: ok, oom, unsupported, error");
  r.error = get_string(j, "error");
  if (auto it = j.find("time_ms"); it != j.end() && !it->is_null()) {
    LCAB_CHECK(it->is_object() && it->contains("median"), "'time_ms' must be an object with a median");
    TimeStatsMs t;
    t.median = get_number<double>(*it, "median").value_or(0);
    t.p20 = get_number<double>(*it, "p20").value_or(t.median);
    t.p80 = get_number<double>(*it, "p80").value_or(t.median);
    r.time_ms = t;
  }
  r.tflops = get_number<double>(j, "tflops");
  r.area = get_number<double>(j, "area");
  r.flops = get_number<double>(j, "flops");
  r.peak_mem_bytes = get_number<int64_t>(j, "peak_mem_bytes");
  if (auto it = j.find("breakdown"); it != j.end() && !it->is_null()) {
    LCAB_CHECK(it->is_object(), "'breakdown' must be an object");
    Breakdown b;
    b.compute_ms = get_number<double>(*it, "compute_ms");
    b.comm_ms = get_number<double>(*it, "comm_ms");
    b.exposed_comm_ms = get_number<double>(*it, "exposed_comm_ms");
    if (auto pr = it->find("per_rank_ms"); pr != it->end()) b.per_rank_ms = pr->get<std::vector<double>>();
    r.breakdown = b;
  }
  if (auto it = j.find("device"); it != j.end() && !it->is_null()) {
    LCAB_CHECK(it->is_object(), "'device' must be an object");
    DeviceInfo d;
    d.name = get_string(*it, "name");
    d.sms = get_number<int64_t>(*it, "sms");
    d.driver = get_string(*it, "driver");
    r.device = d;
  }
  if (auto it = j.find("meta"); it != j.end() && it->is_object()) r.meta = *it;
  static const char* known[] = {"schema", "source", "kind",  "key",            "status",    "error", "time_ms",
                                "tflops", "area",   "flops", "peak_mem_bytes", "breakdown", "device", "meta"};
  for (auto& [name, value] : j.items()) {
    bool is_known = false;
    for (const char* k : known) is_known = is_known || name == k;
    if (!is_known) r.extra[name] = value;
  }
  return r;
}

std::string key_id(const RecordKey& key) { return to_json(key).dump(); }

json make_meta(int argc, const char* const* argv) {
  json args = json::array();
  for (int n = 0; n < argc; ++n) args.push_back(argv[n]);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buffer[32];
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {{"lcab_version", kLcabVersion}, {"git_sha", kLcabGitSha}, {"time", buffer}, {"argv", args}};
}

RecordReadResult read_records(const std::string& path) {
  LineReader in(path);
  RecordReadResult result;
  std::string line;
  int64_t number = 0;
  while (in.next(line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      result.records.push_back(record_from_json(json::parse(line)));
    } catch (const json::exception& e) {
      result.problems.push_back(in.path() + ":" + std::to_string(number) + ": not valid JSON: " + e.what());
    } catch (const Error& e) {
      result.problems.push_back(in.path() + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  return result;
}

RecordReadResult read_records(const std::vector<std::string>& paths) {
  RecordReadResult all;
  for (const std::string& p : paths) {
    RecordReadResult one = read_records(p);
    for (auto& r : one.records) all.records.push_back(std::move(r));
    for (auto& e : one.problems) all.problems.push_back(std::move(e));
  }
  return all;
}

RecordWriter::RecordWriter(const std::string& path) : path_(path) {
  if (path == "-") {
    file_ = stdout;
  } else {
    // Compressed files are finished ones (line_reader.h): appending plain lines would corrupt one, and appending
    // beside one (PATH while only PATH.gz is stored) would hide its records from every reader of PATH.
    LCAB_CHECK(!path.ends_with(".gz"),
               "cannot append records to the compressed file '" << path << "': write to a new .jsonl file");
    LCAB_CHECK(stored_path(path) == path, "'" << path << "' is stored compressed as '" << path
                                              << ".gz': write to a new .jsonl file (or decompress it first)");
    file_ = std::fopen(path.c_str(), "a");
    LCAB_CHECK(file_ != nullptr, "cannot open '" << path << "' for appending records");
    owned_ = true;
  }
}

RecordWriter::~RecordWriter() {
  if (owned_ && file_) std::fclose(file_);
}

void RecordWriter::write(const Record& record) {
  const std::string line = to_json(record).dump() + "\n";
  LCAB_CHECK(std::fwrite(line.data(), 1, line.size(), file_) == line.size(), "writing a record to '" << path_
                                                                                                      << "' failed");
  std::fflush(file_);
}

}  // namespace lcab
