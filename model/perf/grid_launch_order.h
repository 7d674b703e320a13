// The launch order of a grid of long items first (KernelScheduler::kGridLongItemsFirst: lcab_flash's Hopper backward),
// shared by the kernel's work list (kernels/flash_work.cpp) and the kernel cost model (kernel_cost.cpp), so that
// the model schedules the CTAs in the order the GPU receives them. Where the kernel pairs a document's k tiles,
// perf::backward_launch (backward_pairs.h) orders the CTA units with this function, a pair as one item of the sum
// of both keys, for the kernel's work list and the model alike.
//
// The items (CTAs) come head-major: every outer tile of head 0 costliest first, then head 1, ... (batch outermost).
// That order keeps the CTAs resident together on few heads' rows (L2), but when a few items are long compared with
// the load of one SM, those of the last heads start late and finish alone (a causal mask at 4K: 1.57 times the
// mean load). So the items whose key reaches a quarter of the mean load per slot go first, costliest first across
// heads; the others keep their head-major order (interleaving every head costs L2 locality on document masks).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace lcab::perf {

/// True when some item is long enough to be moved ahead: 4 x slots x max_key >= total_key.
bool grid_launch_promotes(int64_t max_key, int64_t total_key, int64_t slots);

/// The launch order, as indices into `keys` (item costs in any unit proportional to time, head-major order): first
/// the items with 4 x slots x key >= sum of keys, by key descending (equal keys in the given order), then the rest
/// in the given order. The identity when no item is that long.
std::vector<int32_t> grid_launch_order(std::span<const int64_t> keys, int64_t slots);
/// The same into `order`, with `short_items` as a buffer (both reused: no allocation once they have grown).
void grid_launch_order_into(std::span<const int64_t> keys, int64_t slots, std::vector<int32_t>& order,
                            std::vector<int32_t>& short_items);

}  // namespace lcab::perf
