// The CP simulator for step programs (cp::UlyssesRingProgram: ring, ulysses, usp, loongtrain), for summaries.
//
// simulate() (cp_simulator.h) plays a materialized schedule; simulate_lockstep() plays the same schedule while the
// program emits it, one step at a time over all ranks, and keeps only what the summaries need: a 1024-GPU ring pass
// is R^2 = 1M compute ops (and 2-3x as many transfers), which never need to exist at once.
//
// The rules are simulate()'s: an op is issued when the previous op of its stream and its dependencies are done,
// the dependencies being derived from the buffers ops read and write exactly as ScheduleBuilder derives them
// (read-after-write, write-after-write, write-after-read); a send/recv pair starts when both sides are issued and
// both end together; a collective starts when every member has issued it; compute overlapping communication is
// slowed by the overlap factor, measured in a first play. Every send/recv pair and collective of a program lies
// within one step, so each step is finished over all ranks before the next begins; inside a step, a rank whose next
// op waits for a transfer its peer has not reached yet is resumed when the transfer is matched. The arithmetic is
// simulate()'s, op for op (max of predecessors' ends, start + duration), so the summaries are the same numbers:
// tests/model/perf_lockstep_simulator_test.cpp compares every field against simulate() on the materialized
// schedule for every method of the engine, several masks (documents, block-sparse), P up to 64 and both passes.
//
// Classes of equivalent ranks: when every Ulysses member has the same items (a shared mask) and every ring group
// lies on the nodes alike (the same same-node relation between its positions), the U members of each Ulysses group
// have the same timeline; only member 0's ranks are played and its summaries are copied to the others.
//
// Cost: O(ops) per play (two plays when the overlap factor is above 1); memory: one step of ops over the played
// ranks, plus each played rank's communication and compute intervals.
#pragma once

#include <optional>

#include "model/cp/ulysses_ring_program.h"
#include "model/perf/cp_simulator.h"
#include "model/perf/ring_item_costs.h"

namespace lcab::perf {

/// Summaries of one pass of `program` (the pass of its skeleton), as simulate() on the materialized schedule with
/// SimulationOptions{critical_path = false, keep_timings = false} gives them: ranks, time_us, slowest_rank; no op or
/// step timings, no critical path. `items` must cover the program's pass; `models.kernel` must be for that pass
/// (only its pass is checked: item costs come from `items`). Throws lcab::Error when the program cannot finish.
CpSimulation simulate_lockstep(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                               const CpCostModels& models);

/// bound() (cp_simulator.h) of the program's pass without playing it: every rank of a ulysses/ring program
/// computes each source block's item of its position once, so its attention time is the sum of its row of the
/// item table, and its workspace the largest of them; the streams of two ranks (the ends of member 0's ring) are
/// summed op by op as the program emits them.
PassBound bound_lockstep(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                         const CpCostModels& models);

/// A cheaper bound of the program's pass from a table that costs only some ring positions' rows (a sample holding
/// positions 0 and R - 1; RingItemCosts' `costed`): bound_lockstep's terms over the sampled positions. Its time is
/// a lower bound of the pass, never above bound_lockstep's on the whole table: the largest row total over fewer
/// positions is no larger, and the streams of positions 0 and R - 1 are summed from the same item costs in the same
/// order. Its peak memory is exact: it is given only when some sampled item reaches RingItemCosts::workspace_limit,
/// the largest workspace any item can have; std::nullopt otherwise (the whole table is needed).
std::optional<PassBound> sampled_bound_lockstep(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                                                const CpCostModels& models);

/// True when the U members of every Ulysses group have the same timeline (see above), so that simulate_lockstep
/// plays only member 0's ranks.
bool ulysses_members_equivalent(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                                const CommCostModel& comm);

}  // namespace lcab::perf
