// The all-gather method (DESIGN.md section 4), as in Llama 3 context parallelism: zigzag sharding over P ranks;
// K and V are all-gathered into one buffer of all P shards (rank order) while each rank computes its queries
// against its own KV (step 0); step 1 computes against every other rank's rows of the gathered buffer.
// Backward gathers K and V again, accumulates dK, dV for every row of the gathered buffer (own rows from step 0,
// the rest from step 1) and reduce-scatters them (grad_accum_bytes per element) back to their owners.
// Volumes per rank: all-gather sends (P - 1) x 2 t Hk D dtype bytes; reduce-scatter (P - 1) x 2 t Hk D
// grad_accum_bytes.
#pragma once

#include "model/cp/cp_method.h"

namespace lcab::cp {

/// Builds the schedule of a normalized, validated config (U = 1, R = P, W = 1).
Schedule build_allgather_schedule(const CpConfig& config, Pass pass);

/// The same schedule with the compute items `make_item` gives (ComputeItemMaker in cp_method.h; everything else
/// as build_allgather_schedule).
Schedule build_allgather_schedule_with(const CpConfig& config, Pass pass, const ComputeItemMaker& make_item);

/// The items build_allgather_schedule resolves from the mask, as a ComputeItemMaker of a normalized, validated
/// config (its maps are ignored): asked for ranks in increasing order, each rank's steps in order (as the builder
/// asks), it gives every item exactly as build_allgather_schedule makes it, so that a caller can make some ranks'
/// items only (a maker of its own calling this one for those ranks).
ComputeItemMaker allgather_resolving_maker(const CpConfig& config);

}  // namespace lcab::cp
