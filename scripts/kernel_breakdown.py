#!/usr/bin/env python3
"""Where a measured attention call spends its GPU time, kernel by kernel, from the records lcab-measure wrote.

    scripts/kernel_breakdown.py RECORDS.jsonl... [--impl NAME] [--pass fwd|bwd] [--reference MASK]

lcab-measure's kernel records hold the call's CUDA-event time (`time_ms`) and, from CUPTI, each kernel's median GPU
time (`kernels`). Per `ok` record (a later record of the same key supersedes an earlier one, as in
measurement_coverage.py) this prints the call's time and TFLOP/s, each kernel's time, the longest kernel's TFLOP/s
alone (the call's FLOPs over that kernel's time: the attention kernel's own rate, without the passes around it) and
the rest of the call's time (the other kernels, memsets and gaps). With --reference MASK, also both rates as a share
of the same implementation, pass, head dim and shape's record of that mask at the same sequence length (`full`
asks: what does this mask keep of the full mask's rate, and how much of the loss is outside the attention kernel).
"""
import argparse
import re
import sys

from measurement_coverage import latest_records


def short_name(kernel):
    """`void ns::(anonymous namespace)::delta_kernel<__nv_bfloat16, 128>(Params)` -> `delta_kernel`."""
    name = kernel.replace("(anonymous namespace)", "")
    name = re.sub(r"^void ", "", name).split("(")[0].split("<")[0]
    return name.split("::")[-1] or kernel


def shape_key(key):
    return (key["impl"], key["pass"], key.get("head_dim"), key.get("heads"), key.get("kv_heads"), key.get("batch"),
            key.get("dtype"))


def load(paths, impl, pass_):
    """The ok kernel records with per-kernel times, of the implementation and pass asked, after superseding."""
    records = []
    for r in latest_records(paths).values():
        key = r["key"]
        if r.get("status") != "ok" or not r.get("kernels"):
            continue
        if (impl and key.get("impl") != impl) or (pass_ and key.get("pass") != pass_):
            continue
        records.append(r)
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+")
    parser.add_argument("--impl")
    parser.add_argument("--pass", dest="pass_", choices=["fwd", "bwd"])
    parser.add_argument("--reference", help="mask whose record at the same length and shape the shares are of")
    args = parser.parse_args()
    records = load(args.records, args.impl, args.pass_)
    if not records:
        print("kernel_breakdown: no ok kernel records with per-kernel times", file=sys.stderr)
        return 2

    def rates(r):
        longest = max(k["median_ms"] for k in r["kernels"])
        return r["tflops"], r["flops"] / longest / 1e9, longest

    reference = {}
    if args.reference:
        for r in records:
            if r["key"]["mask"] == args.reference:
                reference[(shape_key(r["key"]), r["key"]["seqlen"])] = rates(r)
    header = "| impl | pass | mask | S | hd | call ms | TFLOP/s | kernels (ms) | longest kernel alone TFLOP/s | rest ms |"
    rule = "|---|---|---|---:|---:|---:|---:|---|---:|---:|"
    if args.reference:
        header += f" share of {args.reference}: call / longest kernel |"
        rule += "---|"
    print(header)
    print(rule)
    for r in sorted(records, key=lambda r: (shape_key(r["key"]), r["key"]["mask"], r["key"]["seqlen"])):
        key = r["key"]
        call_tflops, kernel_tflops, longest = rates(r)
        call_ms = r["time_ms"]["median"]
        kernels = ", ".join(f"{short_name(k['name'])} {k['median_ms']:.3f}" for k in r["kernels"])
        row = (f"| {key['impl']} | {key['pass']} | {key['mask']} | {key['seqlen']} | {key.get('head_dim')} | "
               f"{call_ms:.3f} | {call_tflops:.0f} | {kernels} | {kernel_tflops:.0f} | {call_ms - longest:.3f} |")
        if args.reference:
            ref = reference.get((shape_key(key), key["seqlen"]))
            row += (f" {100 * call_tflops / ref[0]:.1f}% / {100 * kernel_tflops / ref[1]:.1f}% |" if ref
                    else " - |")
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
