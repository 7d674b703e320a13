// Selecting the measured records a calibration or a check can use, and grouping them the way results are
// reported (kernel: implementation and pass; comm: operation and message-size class; cp: method and pass).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/record.h"

namespace lcab::calibrate {

/// Messages of at least this many bytes carry the communication accuracy target (issue 8) and feed the fit.
inline constexpr int64_t kCommTargetMinBytes = int64_t{1} << 20;

/// The implementation a kernel record's impl names: the earlier PyTorch peers script (kernels/bench/torch_peers.py)
/// wrote sdpa_flash, sdpa_cudnn and flex for the kernels measure/peers/torch_peers.py calls torch_sdpa_flash,
/// torch_sdpa_cudnn and torch_flex (the same PyTorch SDPA backends and FlexAttention); other names are returned
/// as they are.
std::string canonical_impl(const std::string& impl);

/// The records of `kind` ("kernel", "comm", "cp") that are measurements with status "ok" and a positive median
/// time (comm records also need at least 2 GPUs: on one GPU nothing crosses a link the model describes; kernel
/// records with a dense mask tensor ("dense_mask": true, SDPA with masks other than full and causal) are left
/// out: that kernel path computes every tile and reads the mask per tile, which the tile model does not
/// describe). Kernel records come back with key.impl = canonical_impl(key.impl). Of several records of one key
/// (a point measured again, e.g. after a kernel change) only the last given is kept: list re-measurements after
/// the files they supersede. `skipped` (optional) receives one line per record of that kind left out and why.
std::vector<Record> usable_measurements(const std::vector<Record>& records, const std::string& kind,
                                        std::vector<std::string>* skipped = nullptr);

/// The measured median time in milliseconds (throws when absent).
double measured_time_ms(const Record& record);

/// The reporting group of a record: "kernel lcab_flash fwd", "comm all_gather >= 1 MiB", "cp ring fwd".
std::string report_group(const Record& record);

/// A short description of the record's point for per-point listings:
/// "causal S=16K hd128 bf16 64/8", "256 MiB 2 GPUs world", "ring P=2 causal_document S=128K".
std::string describe_point(const Record& record);

}  // namespace lcab::calibrate
