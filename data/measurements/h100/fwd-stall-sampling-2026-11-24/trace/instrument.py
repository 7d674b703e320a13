#!/usr/bin/env python3
"""Instruments kernels/hopper/flash_forward_sm90.cu as of 6ffe615 (main) with a phase trace, compiled in only with
-DLCAB_FORWARD_TRACE: clock64() at each item's phases in each consumer warpgroup's thread 0 (who 0, 1) and warp 3
(who 3, 4: epilogue events only) and in the loader (who 2), for the first 64 items of CTAs 0-7 (the last launch's
values), written at exit to $LCAB_FORWARD_TRACE_FILE as lines "cta who item e0 .. e15".
Consumer events: 0 item start, 1 Q ready, 2 K_0 ready, 3 turn for S_0, 4 S_0 done, 5 P_0 ready, 6 loop end,
7 turn for the last P V, 8 last P V done, 9 staging barrier passed, 12 O staged (before the fence), 13 fenced,
14 second barrier, 15 TMA store issued, 10 item done; 11 = the item's tiles. Loader: 0 item read, 1 Q issued,
2 K_0 issued, 3 last V issued.
    python3 instrument.py kernels/hopper/flash_forward_sm90.cu   (in place; build with CMAKE_CUDA_FLAGS=-DLCAB_FORWARD_TRACE)
"""
import sys
path = sys.argv[1]
s = open(path).read()


def rep(old, new):
    global s
    assert old in s, "anchor not found: " + old[:70]
    s = s.replace(old, new, 1)


anchor = "// The scheduler's decoding of item"
rep(anchor, '''#ifdef LCAB_FORWARD_TRACE
}  // namespace
constexpr int kTraceCtas = 8, kTraceItems = 64, kTraceEvents = 16, kTraceWho = 5;
__device__ unsigned long long g_fwd_trace[kTraceCtas][kTraceWho][kTraceItems][kTraceEvents];
namespace {
__device__ __forceinline__ void trace_value(int who, int item, int event, unsigned long long v) {
  if (blockIdx.x < kTraceCtas && item < kTraceItems) g_fwd_trace[blockIdx.x][who][item][event] = v;
}
#define LCAB_TRACE(cond, who, item, event) do { if (cond) trace_value(who, item, event, clock64()); } while (0)
#define LCAB_TRACE_VALUE(cond, who, item, event, v) do { if (cond) trace_value(who, item, event, v); } while (0)
#else
#define LCAB_TRACE(cond, who, item, event) do {} while (0)
#define LCAB_TRACE_VALUE(cond, who, item, event, v) do {} while (0)
#endif

''' + anchor)
rep('''    if (it.linear >= a.total_items) break;
    const int q_buffer''', '''    if (it.linear >= a.total_items) break;
    LCAB_TRACE(true, 2, item_use, 0);
    const int q_buffer''')
rep('''    ++q_use;

    // In the order the consumers use them''', '''    ++q_use;
    LCAB_TRACE(true, 2, item_use, 1);

    // In the order the consumers use them''')
rep('''      load(&a.k_map, bars->k_full, bars->k_empty, C::kKOffset, kv_use, c.tile);''',
    '''      load(&a.k_map, bars->k_full, bars->k_empty, C::kKOffset, kv_use, c.tile);
      LCAB_TRACE(previous_tile < 0, 2, item_use, 2);''')
rep('''    load(&a.v_map, bars->v_full, bars->v_empty, C::kVOffset, kv_use - 1, previous_tile);
  }
}''', '''    load(&a.v_map, bars->v_full, bars->v_empty, C::kVOffset, kv_use - 1, previous_tile);
    LCAB_TRACE(true, 2, item_use, 3);
  }
}''')
rep('''    if (it.linear() >= a.total_items) break;
    const int q_row0''', '''    if (it.linear() >= a.total_items) break;
    const int trace_item = item_use - 1;
    const bool tracer = thread == 0, tracer3 = thread == 96;
    LCAB_TRACE(tracer, warpgroup, trace_item, 0);
    const int q_row0''')
rep('''      if (!C::kOStagedInQ) sm90::mbar_wait(&bars->q_full[q_buffer], (q_use / C::kQBuffers) & 1);''',
    '''      if (!C::kOStagedInQ) sm90::mbar_wait(&bars->q_full[q_buffer], (q_use / C::kQBuffers) & 1);
      LCAB_TRACE(tracer, warpgroup, trace_item, 1);''')
rep('''        sm90::mbar_wait(&bars->k_full[previous_stage], (kv_use / C::kStages) & 1);
        sm90::named_barrier_sync(my_turn, 256);''', '''        sm90::mbar_wait(&bars->k_full[previous_stage], (kv_use / C::kStages) & 1);
        LCAB_TRACE(tracer, warpgroup, trace_item, 2);
        sm90::named_barrier_sync(my_turn, 256);
        LCAB_TRACE(tracer, warpgroup, trace_item, 3);''')
rep('''        sm90::wgmma_wait<0>();
        sm90::fence_registers(sacc);
        __syncwarp();
        if (lane == 0) sm90::mbar_arrive(&bars->k_empty[previous_stage]);
        float correction[2];
        scores_to_p(c, bits, correction);
        to_a_fragments<T>(sacc, pfrag);''', '''        sm90::wgmma_wait<0>();
        sm90::fence_registers(sacc);
        LCAB_TRACE(tracer, warpgroup, trace_item, 4);
        __syncwarp();
        if (lane == 0) sm90::mbar_arrive(&bars->k_empty[previous_stage]);
        float correction[2];
        scores_to_p(c, bits, correction);
        to_a_fragments<T>(sacc, pfrag);
        LCAB_TRACE(tracer, warpgroup, trace_item, 5);''')
rep('''      // The last tile's P V.
      sm90::mbar_wait(&bars->v_full[previous_stage], ((kv_use - 1) / C::kStages) & 1);
      sm90::named_barrier_sync(my_turn, 256);''', '''      // The last tile's P V.
      LCAB_TRACE(tracer, warpgroup, trace_item, 6);
      sm90::mbar_wait(&bars->v_full[previous_stage], ((kv_use - 1) / C::kStages) & 1);
      sm90::named_barrier_sync(my_turn, 256);
      LCAB_TRACE(tracer, warpgroup, trace_item, 7);''')
rep('''      sm90::named_barrier_arrive(other_turn, 256);
      sm90::wgmma_wait<0>();
      sm90::fence_registers(o);''', '''      sm90::named_barrier_arrive(other_turn, 256);
      sm90::wgmma_wait<0>();
      sm90::fence_registers(o);
      LCAB_TRACE(tracer, warpgroup, trace_item, 8);''')
rep('''    sm90::named_barrier_sync(3 + warpgroup, 128);
    float* lse_base''', '''    sm90::named_barrier_sync(3 + warpgroup, 128);
    LCAB_TRACE(tracer, warpgroup, trace_item, 9);
    LCAB_TRACE(tracer3, 3 + warpgroup, trace_item, 9);
    float* lse_base''')
rep('''    sm90::fence_async_shared();
    sm90::named_barrier_sync(3 + warpgroup, 128);
    if (thread == 0) {''', '''    LCAB_TRACE(tracer, warpgroup, trace_item, 12);
    LCAB_TRACE(tracer3, 3 + warpgroup, trace_item, 12);
    sm90::fence_async_shared();
    LCAB_TRACE(tracer, warpgroup, trace_item, 13);
    sm90::named_barrier_sync(3 + warpgroup, 128);
    LCAB_TRACE(tracer, warpgroup, trace_item, 14);
    LCAB_TRACE(tracer3, 3 + warpgroup, trace_item, 14);
    if (thread == 0) {''')
rep('''      sm90::bulk_commit();
      if constexpr (C::kOStagedInQ) {''', '''      sm90::bulk_commit();
      LCAB_TRACE(tracer, warpgroup, trace_item, 15);
      if constexpr (C::kOStagedInQ) {''')
rep('''    if (lane == 0) sm90::mbar_arrive(&bars->item_empty[slot]);
  }
  if (thread == 0) sm90::bulk_wait();''', '''    if (lane == 0) sm90::mbar_arrive(&bars->item_empty[slot]);
    LCAB_TRACE(tracer, warpgroup, trace_item, 10);
  }
  if (thread == 0) sm90::bulk_wait();''')
rep('''    flash_forward_sm90_kernel<T, kHeadDim><<<ctas, C::kThreads, C::kSmemBytes, stream>>>(args);
    LCAB_CUDA_CHECK_LAUNCH();''', '''    flash_forward_sm90_kernel<T, kHeadDim><<<ctas, C::kThreads, C::kSmemBytes, stream>>>(args);
    LCAB_CUDA_CHECK_LAUNCH();
#ifdef LCAB_FORWARD_TRACE
    static bool registered = false;
    if (!registered) {
      registered = true;
      std::atexit([] {
        static unsigned long long h[kTraceCtas][kTraceWho][kTraceItems][kTraceEvents];
        if (cudaMemcpyFromSymbol(h, g_fwd_trace, sizeof(h)) != cudaSuccess) return;
        const char* path = std::getenv("LCAB_FORWARD_TRACE_FILE");
        FILE* f = std::fopen(path ? path : "forward-trace.txt", "w");
        if (!f) return;
        for (int c = 0; c < kTraceCtas; ++c)
          for (int w = 0; w < kTraceWho; ++w)
            for (int i = 0; i < kTraceItems; ++i) {
              std::fprintf(f, "%d %d %d", c, w, i);
              for (int e = 0; e < kTraceEvents; ++e) std::fprintf(f, " %llu", h[c][w][i][e]);
              std::fprintf(f, "\\n");
            }
        std::fclose(f);
      });
    }
#endif''')
s = s.replace('#include <cmath>\n', '#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n', 1)
open(path, 'w').write(s)
