// The SM clock the kernels actually ran at. Under a sustained load an H100 or H200 lowers its clocks to stay under
// its power limit (1.2-1.6 GHz of a 1.98 GHz maximum, measured), so the same kernel measures 10-15% apart in two
// processes depending on what ran before: a time means little without the clock it was taken at.
//
// A marker kernel (one block per SM) records, on each SM it lands on, the SM's cycle counter (%clock64) and the
// global nanosecond timer (%globaltimer); two markers on a stream bracket a region, and each SM sampled by both
// gives its mean clock over the region as cycles / nanoseconds. The markers are tiny kernels outside the CUDA-event
// pair that times the region; CUPTI sees them, and time_region (gpu_timing.h) removes them from its activities.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/device_buffer.h"

typedef struct CUstream_st* cudaStream_t;

namespace lcab::measure {

/// One SM's reading at a marker.
struct SmClockSample {
  uint32_t sm = 0;          ///< %smid
  uint64_t global_ns = 0;   ///< %globaltimer, nanoseconds
  uint64_t cycles = 0;      ///< %clock64 of that SM
};

/// The mean SM clock between two markers in MHz: per SM sampled in both (its first sample in each), cycles /
/// nanoseconds x 1000; the median over those SMs. nullopt when no SM was sampled twice or no time passed.
std::optional<double> sm_clock_mhz_between(const std::vector<SmClockSample>& before,
                                           const std::vector<SmClockSample>& after);

/// True for the name CUPTI reports for the marker kernel (so that trace summaries can leave it out).
bool is_sm_clock_marker(const std::string& kernel_name);

/// Markers on the current device. Not thread-safe; one per timing loop.
class SmClockProbe {
 public:
  /// Room for `max_marks` markers (each one block per SM of the current device).
  explicit SmClockProbe(int max_marks);
  /// Launches a marker on `stream`; returns its index. Throws when all `max_marks` are used.
  int mark(cudaStream_t stream);
  /// Once the markers' stream is synchronized: the mean SM clock between markers `from` and `to` (MHz).
  std::optional<double> clock_mhz(int from, int to) const;

 private:
  std::vector<SmClockSample> download(int mark) const;
  int blocks_ = 0;
  int max_marks_ = 0;
  int marks_ = 0;
  DeviceBuffer samples_;
};

}  // namespace lcab::measure
