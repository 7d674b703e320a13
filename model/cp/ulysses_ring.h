// The 2-D engine behind ring, ulysses, usp and loongtrain (DESIGN.md section 4): Ulysses all-to-alls over U
// around a double ring over R positions split into W windows. ring = (1, P, 1), ulysses = (P, 1, 1),
// usp = (U, R, 1), loongtrain = (U, R, W); one implementation, so the methods cannot drift apart.
//
// Layout: rank (u, p) from GridLayout; ring position p = window a * w + index i, w = R / W. Sharding over the R
// positions (zigzag by default), each position's rows split contiguously over its U Ulysses members.
//
// Steps: with U > 1, step 0 is the all-to-all in and step R + 1 the all-to-all out; ring steps are numbered
// from 1 (from 0 when U = 1). Ring step (o, m), o = outer step 0..W-1, m = inner step 0..w-1, computes the
// local queries against the KV block of position (a - o, i - m): m = 0 on the outer block (o = 0: the rank's own
// KV), else on inner buffer kv_inner[m % 2], received at step (o, m - 1) from (a, i - 1) while that step
// computed; outer blocks come from (a - 1, i) during outer step o - 1 into kv_outer[o % 2] (streams
// outer_send / outer_recv, overlapped with the inner ring). Hops per rank: W(w - 1) inner + W - 1 outer = R - 1.
//
// Forward:  [a2a q, kv: sequence -> heads]  R ring steps (online (out, lse) merge)  [a2a out: heads -> sequence]
// Backward: [a2a dout]  R ring steps with KV travelling as in forward and dKV travelling with it: an inner dKV
//           buffer starts at zero at m = 0 (the outer block's grads), every later step adds its grads (computed
//           into dkv_scratch, overlapping the dKV transfer) into the dKV received from (a, i - 1), then passes it
//           on; after w inner hops (one more than KV: the last one brings it back to the rank that holds the
//           outer block) it holds window a's share. With W > 1 it then adds the partial received from window
//           a - 1 and sends the sum to (a + 1, i); after W outer hops it is home. W = 1: the inner home hop
//           delivers into dkv directly (plain ring: dKV arrives home after P hops).
//           Own-block tail (R > 1, CpConfig::overlap_dkv_home_hop, the default): the final hop (the inner home
//           hop for W = 1, the last outer hop for W > 1) would follow the last compute with nothing to overlap.
//           So the rank's own block (o = 0, m = 0) is cut by q rows: its head (a share e / (e + g) of its pairs)
//           is computed at the first ring step as above, its tail after the last ring step straight into dkv,
//           while the final hop lands in a dKV buffer that is free by then (dkv_inner[w % 2] for W = 1,
//           dkv_outer for W > 1); an add then sums the two. Same hops and bytes; one more kernel and one add.
//           [a2a dq, dkv: heads -> sequence (kv replicas of Hk < U summed)]
// Inputs of the backward pass in head layout (q_heads, kv_heads, out_heads, lse_heads) are what forward left.
#pragma once

#include "model/cp/schedule.h"

namespace lcab::cp {

/// Builds the schedule of a normalized, validated config (degrees, windows, sharding filled in).
Schedule build_ulysses_ring_schedule(const CpConfig& config, Pass pass);

}  // namespace lcab::cp
