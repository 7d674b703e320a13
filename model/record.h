// Records (DESIGN.md section 5): every measurement and every prediction is one JSON object, one per line in a
// JSON Lines file, appended as soon as it exists. Measured and predicted records share this type and its key,
// so that a check can join them.
//
// Readers ignore fields they do not know but keep them (Record::extra) so that a record read and written back
// loses nothing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lcab {

inline constexpr const char* kRecordSchema = "lcab.record/1";

/// What a record is about. Fields that do not apply are left empty and are not written.
struct RecordKey {
  std::string impl;                    ///< kernel implementation, e.g. "lcab_flash"
  std::string pass;                    ///< "fwd" | "bwd"
  std::string mask;                    ///< mask spec string
  std::optional<int64_t> seqlen;       ///< tokens
  std::optional<int64_t> batch;
  std::optional<int64_t> heads;        ///< q heads
  std::optional<int64_t> kv_heads;
  std::optional<int64_t> head_dim;
  std::string dtype;                   ///< "bf16" | "fp16"
  std::string method;                  ///< CP method
  std::optional<int64_t> gpus;
  std::optional<int64_t> gpus_per_node;
  std::map<std::string, int64_t> degrees;  ///< e.g. {"ulysses":2,"ring":4,"windows":2}
  std::string placement;               ///< "ulysses_intra" | "ring_intra"
  std::string op;                      ///< communication operation
  std::optional<int64_t> bytes;        ///< communication message size
  std::string group;                   ///< communication group layout ("world", "contiguous:4", "strided:4")

  friend bool operator==(const RecordKey&, const RecordKey&) = default;
};

struct TimeStatsMs {
  double median = 0;
  double p20 = 0;
  double p80 = 0;
};

struct Breakdown {
  std::optional<double> compute_ms;
  std::optional<double> comm_ms;
  std::optional<double> exposed_comm_ms;
  std::vector<double> per_rank_ms;
};

struct DeviceInfo {
  std::string name;
  std::optional<int64_t> sms;
  std::string driver;
};

struct Record {
  std::string source = "measured";  ///< "measured" | "predicted"
  std::string kind = "kernel";      ///< "kernel" | "comm" | "cp" | "mask"
  RecordKey key;
  std::string status = "ok";        ///< "ok" | "oom" | "unsupported" | "error"
  std::string error;
  std::optional<TimeStatsMs> time_ms;
  std::optional<double> tflops;
  std::optional<double> area;
  std::optional<double> flops;
  std::optional<int64_t> peak_mem_bytes;
  std::optional<Breakdown> breakdown;
  std::optional<DeviceInfo> device;
  nlohmann::json meta = nlohmann::json::object();   ///< lcab_version, git_sha, time, argv
  nlohmann::json extra = nlohmann::json::object();  ///< any other top-level fields, kept verbatim
};

nlohmann::json to_json(const RecordKey& key);
RecordKey key_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Record& record);
/// Throws lcab::Error when a required field is missing or has the wrong type, or the schema is not ours.
Record record_from_json(const nlohmann::json& j);

/// Canonical text of a key (sorted JSON): equal keys give equal strings. Used to join records.
std::string key_id(const RecordKey& key);

/// The meta block: lcab_version, git_sha, time (UTC, ISO 8601) and argv.
nlohmann::json make_meta(int argc, const char* const* argv);

struct RecordReadResult {
  std::vector<Record> records;
  std::vector<std::string> problems;  ///< "file:line: what is wrong", one per malformed line
};

/// Reads a JSON Lines file, plain or gzip-compressed, and PATH.gz where PATH does not exist (line_reader.h);
/// malformed lines are reported in problems and skipped, good lines kept. Throws lcab::Error only when the file
/// cannot be opened or its compressed stream is corrupt or truncated.
RecordReadResult read_records(const std::string& path);
/// Reads several files; a path that does not exist is an error.
RecordReadResult read_records(const std::vector<std::string>& paths);

/// Appends records to a JSON Lines file (or stdout for "-"), one line each, flushed at once so that an
/// interrupted run loses nothing. Refuses a compressed file (PATH.gz, or PATH where only PATH.gz is stored).
class RecordWriter {
 public:
  explicit RecordWriter(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  void write(const Record& record);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool owned_ = false;
};

}  // namespace lcab
