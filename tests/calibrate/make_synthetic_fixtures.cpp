// Writes SYNTHETIC calibration fixtures into a directory: synthetic_truth.json (the known parameters) and
// synthetic_measurements.jsonl (records the model computes from them, with 1% deterministic noise). The CLI
// tests of lcab-calibrate and lcab-check run on these; they are not measurements and are never committed as
// such (device.name and meta.synthetic say so in every record).
#include <filesystem>
#include <iostream>

#include "model/error.h"
#include "tests/calibrate/synthetic_records.h"

int main(int argc, char** argv) {
  using namespace lcab;
  using namespace lcab::calibrate::testing;
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUTPUT_DIR\n";
    return 1;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    const perf::HardwareProfile truth = synthetic_truth_profile();
    perf::save_profile(truth, (dir / "synthetic_truth.json").string());
    SyntheticOptions noisy;
    noisy.noise_fraction = 0.01;
    std::vector<Record> records = synthetic_kernel_records(
        truth, {"full", "causal", "sliding_window_causal:window=1024", "causal_document:seed=3"},
        {1024, 2048, 4096, 8192, 16384}, {"fwd", "bwd"}, noisy);
    for (const char* op : {"send_recv", "all_gather"}) {
      noisy.seed += 1;
      const std::vector<Record> comm = synthetic_comm_records(truth, op, 64 << 10, 1 << 30, noisy);
      records.insert(records.end(), comm.begin(), comm.end());
    }
    noisy.seed += 1;
    const std::vector<Record> cp = synthetic_cp_records(truth, "ring", {"causal", "full"}, {16384, 32768}, {"fwd"}, noisy);
    records.insert(records.end(), cp.begin(), cp.end());
    const std::filesystem::path measurements = dir / "synthetic_measurements.jsonl";
    std::filesystem::remove(measurements);
    RecordWriter writer(measurements.string());
    for (const Record& record : records) writer.write(record);
    std::cout << "wrote " << records.size() << " SYNTHETIC records to " << measurements.string() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": error: " << e.what() << "\n";
    return 1;
  }
}
