#include "model/perf/a2a_staging.h"

#include "model/error.h"

namespace lcab::perf {

namespace {

/// Buffers the executor keeps in fp32 (schedule.h: accumulators), whatever bytes the schedule counts for them.
bool is_fp32_accumulator(cp::BufferRole role) {
  return role == cp::BufferRole::kOut || role == cp::BufferRole::kDQ || role == cp::BufferRole::kDKV;
}

constexpr double kAccumulatorBytes = 4;

}  // namespace

double a2a_staging_bytes(const cp::Schedule& schedule, const cp::CommOp& comm, int64_t members) {
  const double dtype = static_cast<double>(schedule.config.workload.dtype_bytes);
  LCAB_CHECK(dtype > 0 && members > 0, "all-to-all staging needs a dtype and a group");
  const double elements = static_cast<double>(comm.chunk_bytes) * static_cast<double>(members) / dtype;
  const auto role_of = [&](int buffer) {
    LCAB_CHECK(buffer >= 0 && buffer < static_cast<int>(schedule.buffers.size()),
               "all-to-all '" << comm.what << "' names buffer " << buffer);
    return schedule.buffers[static_cast<size_t>(buffer)].role;
  };
  double per_element = 0;
  if (is_fp32_accumulator(role_of(comm.src.buffer))) per_element += kAccumulatorBytes + dtype;
  if (comm.layout == cp::A2ALayout::kSeqToHead || comm.layout == cp::A2ALayout::kHeadToSeq) per_element += 2 * dtype;
  if (is_fp32_accumulator(role_of(comm.dst.buffer))) per_element += dtype + kAccumulatorBytes;
  return elements * per_element;
}

double a2a_staging_us(const cp::Schedule& schedule, const cp::CommOp& comm, int64_t members, double hbm_bytes_per_s) {
  LCAB_CHECK(hbm_bytes_per_s > 0, "all-to-all staging needs the HBM bandwidth");
  return a2a_staging_bytes(schedule, comm, members) / hbm_bytes_per_s * 1e6;
}

}  // namespace lcab::perf
