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
//   kv_expand_bytes_per_element, sustained_slowdown, host_floor_us
//                    likewise (profile.h): K/V repeated to the q heads under GQA, the slowdown of sustained-load
//                    clocks (their time constant, sustained_rate_per_us, is the GPU's and comes from the base entry),
//                    the host's dispatch floor
//   dq_tile_fraction a dQ item's tile as a fraction of a dK/dV item's (FlexAttention's backward); likewise
//   idle_half_tile_us a boundary tile with one idle key half (lcab_flash's Hopper backward); likewise, fitted as its
//                    own time (it may be below full_tile_us: the idle half's products are skipped)
#pragma once

#include <cstddef>
#include <string>
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

/// A starting value for the host floor where the base entry has it at 0, whose effect is nil there (so that the
/// first linearization sees it): the group's first-quartile measured time (so that the shortest calls bind).
void seed_optional_terms(perf::KernelParams& params, double short_measured_ms);

/// Names of the optional terms (slice_us, kv_tile_us, ...) an entry has, as kernel_fit_parameters() names them.
std::vector<std::string> optional_term_names(const perf::KernelParams& params);
/// Removes the optional term called `name` (both sustained-clock parameters for either of them).
void remove_optional_term(perf::KernelParams& params, const std::string& name);

}  // namespace lcab::calibrate
