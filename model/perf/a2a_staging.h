// The memory passes around an all-to-all of a CP schedule (Ulysses): what the executor (cp/executor.cu) does on
// the collective stream besides the NCCL transfer, priced at the GPU's HBM bandwidth.
//
// Per element of the rank's send buffer (E = chunk_bytes x members / dtype bytes elements):
//   an fp32 accumulator source (out, dq, dkv heads) is converted to dtype first:   read 4 B, write dtype bytes
//   sequence -> heads layout (q, k, v, dout): heads packed into per-member blocks: read + write dtype bytes
//   heads -> sequence layout (out, dq, dkv): received blocks unpacked:              read + write dtype bytes
//   an fp32 accumulator destination is converted back from dtype:                   read dtype bytes, write 4 B
// The NCCL benchmark records (lcab-measure comm) time the transfer alone, so the collective's parameters do not
// contain these passes; the simulator adds them to the all-to-all's time.
#pragma once

#include <cstdint>

#include "model/cp/schedule.h"

namespace lcab::perf {

/// Bytes read and written through HBM by the passes around all-to-all `comm` on a rank of `schedule`.
double a2a_staging_bytes(const cp::Schedule& schedule, const cp::CommOp& comm, int64_t members);

/// The same as time: bytes / hbm_bytes_per_s, in microseconds.
double a2a_staging_us(const cp::Schedule& schedule, const cp::CommOp& comm, int64_t members, double hbm_bytes_per_s);

}  // namespace lcab::perf
