#!/usr/bin/env python3
"""Times PyTorch's attention peers of lcab_flash and writes lcab.record/1 JSON Lines (DESIGN.md section 5).

Peers: SDPA's FlashAttention-2 backend (impl "sdpa_flash") and cuDNN backend ("sdpa_cudnn") for the masks
they express (full, causal; K/V repeated to the q heads), and FlexAttention ("flex", GQA native) for
full, causal, sliding_window_causal, causal_document and block_causal_document. Document masks are rebuilt
from the document lengths that `lcab-kernel-bench --docs FILE` wrote for the same (mask, seqlen), so every
implementation computes the same mask. Timing: CUDA events around each call, median (p20, p80) of --iters
runs after --warmup runs. FLOPs follow the FlashAttention convention: fwd 4 * area * Hq * D, bwd 2.5x fwd.

  python3 kernels/bench/torch_peers.py --docs docs.jsonl --seqlen 4096,16384 --mask full,causal --out peers.jsonl
"""
import argparse
import datetime
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def parse_spec(spec):
    name, _, rest = spec.partition(":")
    params = dict(kv.split("=", 1) for kv in rest.split(",") if kv) if rest else {}
    return name, params


def document_ids(lengths, device):
    ids = torch.repeat_interleave(torch.arange(len(lengths), device=device),
                                  torch.tensor(lengths, device=device))
    return ids


def mask_mod_for(spec, seqlen, docs, device):
    """Returns (mask_mod or None for full, area)."""
    name, params = parse_spec(spec)
    info = docs.get((spec, seqlen))
    if name == "full":
        return None, float(seqlen) * seqlen
    if name == "causal":
        return (lambda b, h, q, k: q >= k), seqlen * (seqlen + 1) / 2
    if info is None:
        raise KeyError(f"no --docs entry for mask {spec} at seqlen {seqlen}")
    area = info["area"]
    if name == "sliding_window_causal":
        window = int(params.get("window", 1024))
        return (lambda b, h, q, k: (q >= k) & (q - k <= window)), area
    doc = document_ids(info["document_lengths"], device)
    if name == "causal_document":
        return (lambda b, h, q, k: (doc[q] == doc[k]) & (q >= k)), area
    if name == "block_causal_document":
        block = int(params.get("block", 1024))
        return (lambda b, h, q, k: (doc[q] == doc[k]) & (k // block <= q // block)), area
    raise KeyError(f"FlexAttention peer has no mask_mod for {spec}")


def time_ms(fn, warmup, iters):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()

    def pct(f):
        pos = f * (len(times) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(times) - 1)
        return times[lo] + (times[hi] - times[lo]) * (pos - lo)

    return {"median": pct(0.5), "p20": pct(0.2), "p80": pct(0.8)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seqlen", default="4096,16384,32768")
    ap.add_argument("--mask", default="full,causal")
    ap.add_argument("--pass", dest="passes", default="fwd,bwd")
    ap.add_argument("--impl", default="sdpa_flash,sdpa_cudnn,flex")
    ap.add_argument("--heads", type=int, default=64)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--docs", default="", help="document lengths written by lcab-kernel-bench --docs")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="-")
    args = ap.parse_args()

    device = "cuda"
    docs = {}
    if args.docs:
        with open(args.docs) as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    docs[(d["mask"], d["seqlen"])] = d
    # lcab's mask specs contain commas inside parameter lists only after a ':' (e.g. "a:x=1,y=2").
    specs = []
    for part in args.mask.split(","):
        if specs and "=" in part and ":" not in part.split("=")[0]:
            specs[-1] += "," + part
        else:
            specs.append(part)
    props = torch.cuda.get_device_properties(0)
    device_info = {"name": props.name, "sms": props.multi_processor_count}
    meta = {"argv": sys.argv, "time": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "torch": torch.__version__, "cuda": torch.version.cuda}
    out = sys.stdout if args.out == "-" else open(args.out, "a")
    # Every mask_mod and grad mode is a new graph: lift Dynamo's recompile limit (8) so that FlexAttention
    # never falls back to its unfused (S x S materializing) path in the middle of a sweep.
    for knob in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 4096)
    flex = torch.compile(flex_attention, dynamic=False)
    H, HK, D = args.heads, args.kv_heads, args.head_dim
    print("| impl | pass | mask | seqlen | time_ms | TFLOP/s | status |\n|---|---|---|---|---|---|---|", file=sys.stderr)
    for seqlen in [int(s) for s in args.seqlen.split(",")]:
        gen = torch.Generator(device=device).manual_seed(seqlen)
        q = torch.randn(1, H, seqlen, D, device=device, dtype=torch.bfloat16, generator=gen)
        k = torch.randn(1, HK, seqlen, D, device=device, dtype=torch.bfloat16, generator=gen)
        v = torch.randn(1, HK, seqlen, D, device=device, dtype=torch.bfloat16, generator=gen)
        dout = torch.randn(1, H, seqlen, D, device=device, dtype=torch.bfloat16, generator=gen)
        k_rep = k.repeat_interleave(H // HK, dim=1)
        v_rep = v.repeat_interleave(H // HK, dim=1)
        for spec in specs:
            for impl in args.impl.split(","):
                for pass_name in args.passes.split(","):
                    record = {"schema": "lcab.record/1", "source": "measured", "kind": "kernel",
                              "key": {"impl": impl, "pass": pass_name, "mask": spec, "seqlen": seqlen, "batch": 1,
                                      "heads": H, "kv_heads": HK, "head_dim": D, "dtype": "bf16"},
                              "device": device_info, "meta": meta}
                    try:
                        mask_mod, area = mask_mod_for(spec, seqlen, docs, device)
                        name = parse_spec(spec)[0]
                        if impl.startswith("sdpa"):
                            if name not in ("full", "causal"):
                                raise NotImplementedError(f"{impl} expresses full and causal only")
                            backend = SDPBackend.FLASH_ATTENTION if impl == "sdpa_flash" else SDPBackend.CUDNN_ATTENTION
                            causal = name == "causal"
                            qq, kk, vv = q, k_rep, v_rep

                            def call(qq=qq, kk=kk, vv=vv, backend=backend, causal=causal):
                                with sdpa_kernel([backend]):
                                    return F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
                        elif impl == "flex":
                            block_mask = None if mask_mod is None else create_block_mask(
                                mask_mod, None, None, seqlen, seqlen, device=device)
                            qq, kk, vv = q, k, v

                            def call(qq=qq, kk=kk, vv=vv, block_mask=block_mask):
                                return flex(qq, kk, vv, block_mask=block_mask, enable_gqa=True)
                        else:
                            raise KeyError(f"unknown impl {impl}; valid: sdpa_flash, sdpa_cudnn, flex")
                        if pass_name == "fwd":
                            with torch.no_grad():
                                stats = time_ms(call, args.warmup, args.iters)
                        else:
                            qg, kg, vg = (t.detach().requires_grad_() for t in (qq, kk, vv))
                            o = call(qg, kg, vg)
                            stats = time_ms(lambda: torch.autograd.grad(o, (qg, kg, vg), dout, retain_graph=True),
                                            args.warmup, args.iters)
                        flops = 4.0 * area * H * D * (2.5 if pass_name == "bwd" else 1.0)
                        record.update({"status": "ok", "time_ms": stats, "flops": flops, "area": area,
                                       "tflops": flops / (stats["median"] * 1e-3) / 1e12})
                    except NotImplementedError as e:
                        record.update({"status": "unsupported", "error": str(e)})
                    except torch.cuda.OutOfMemoryError as e:
                        record.update({"status": "oom", "error": str(e).splitlines()[0]})
                        torch.cuda.empty_cache()
                    except Exception as e:  # noqa: BLE001 - a failing peer is recorded, the sweep goes on
                        record.update({"status": "error", "error": f"{type(e).__name__}: {e}".splitlines()[0]})
                    print(json.dumps(record), file=out, flush=True)
                    print(f"| {impl} | {pass_name} | {spec} | {seqlen} | "
                          f"{record.get('time_ms', {}).get('median', 0):.3f} | {record.get('tflops', 0):.1f} | "
                          f"{record['status']} |", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
