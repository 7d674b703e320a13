// The fitted parameters of one kernel cost entry (model/perf/kernel_cost.h), as the fits see them.
//
//   full_tile_us     one slot's time for an unmasked tile
//   partial_tile_us  one slot's time for a boundary tile; fitted as its excess over full_tile_us, which is >= 0:
//                    a boundary tile does all the work of an unmasked tile (the kernels compute the whole tile)
//                    and then masks it, so it never costs less. The fit reports and stores the tile's time.
//   row_us           per q-tile row (prologue, epilogue)
//   launch_us        per call
//   slice_us         per boundary tile and slice meeting its q-tile row; only where the base entry has the term
//   kv_tile_us       per tile, a K/V tile's load from HBM shared by the GQA group; only where the base entry has it
#pragma once

#include <cstddef>
#include <vector>

#include "calibrate/model_fit.h"
#include "model/perf/profile.h"

namespace lcab::calibrate {

/// Parameters of profile.kernels[index], in the order above; their get/set act on any profile with the same
/// kernel list.
std::vector<ProfileParameter> kernel_fit_parameters(const perf::HardwareProfile& profile, size_t index);

/// The profile field each parameter of kernel_fit_parameters() stands for, in the same order (for sources and the
/// values to report: the partial tile's time, not its excess).
std::vector<perf::Sourced*> kernel_fit_fields(perf::KernelParams& params);

}  // namespace lcab::calibrate
