// The memory passes the CP executor (cp/executor.cu) runs around each attention call of a schedule, on the
// compute stream, priced at the GPU's HBM bandwidth. A single-GPU kernel call has none of them, so the kernel
// records do not contain them; the simulator adds them to every compute item.
//
// Per element (q element: q row x q head x head dim; k element: k row x kv head x head dim; x batch):
//   forward:  the call's partial output (dtype) is merged into the fp32 output accumulator and its dtype mirror:
//             read dtype + read 4 + write 4 + write dtype bytes per q element
//   backward: the partial dQ, dK, dV are zeroed (dtype) before the call, then added into the fp32 accumulators
//             and their dtype copies: dtype + (dtype + 4 + 4 + dtype) bytes per q element, and the same per k element
//             for dK and for dV
#pragma once

#include "model/cp/schedule.h"

namespace lcab::perf {

/// Bytes read and written around compute item `item` of a `pass` schedule with this workload.
double cp_item_pass_bytes(const cp::ComputeItem& item, cp::Pass pass, const cp::Workload& workload);

/// The same as time (microseconds) at hbm_bytes_per_s.
double cp_item_pass_us(const cp::ComputeItem& item, cp::Pass pass, const cp::Workload& workload,
                       double hbm_bytes_per_s);

}  // namespace lcab::perf
