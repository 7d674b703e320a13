"""The GPU's own time of each timed repetition, read from a PyTorch profiler trace (Kineto's Chrome-trace JSON).

Why: a Python call's host-side dispatch (argument checks, autograd, a compiled graph's guards and launchers) can
outlast its GPU work at short sequences. CUDA events around the call then time the host (the GPU waits for the
next launch), and those times scatter with the host's state, not with the shape. The sum of the kernels' own
durations is what the GPU spends on the call, the quantity lcab's kernel model describes and what
`lcab-measure kernel` reports for lcab's own kernels (whose C++ launch is a few microseconds).

How the repetitions are told apart: the caller runs each repetition inside a profiler range named
`<marker><n>` (torch.profiler.record_function) after synchronizing, and synchronizes again before the range
closes. A GPU activity (kernel, memset, memcpy) belongs to repetition n when the host call that launched it (the
runtime or driver event of the same correlation id) lies inside that range; an activity whose launch is not in the
trace falls back to its own start time lying inside the range (Kineto puts host and GPU events on one clock).

No PyTorch here: the functions take the trace's event list, so the host tests can feed them synthetic traces.
"""

GPU_CATEGORIES = ("kernel", "gpu_memset", "gpu_memcpy")
LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")


def _rep_ranges(events, marker):
    """{n: (start_us, end_us)} of the host ranges named marker + str(n)."""
    ranges = {}
    for e in events:
        name = e.get("name", "")
        if e.get("cat") == "user_annotation" and name.startswith(marker) and name[len(marker):].isdigit():
            n = int(name[len(marker):])
            if n in ranges:
                raise ValueError(f"profiler range {name} appears twice in the trace")
            ranges[n] = (float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0.0)))
    return ranges


def _rep_of(time_us, ranges):
    for n, (start, end) in ranges.items():
        if start <= time_us <= end:
            return n
    return None


def rep_gpu_times(events, marker, reps):
    """Per repetition 0..reps-1: {"kernel_sum_ms", "span_ms", "kernels": {name: [calls, total_ms]}}.

    kernel_sum_ms: the summed durations of the repetition's GPU activities (overlapping activities of several
    streams count each); span_ms: from the first activity's start to the last one's end. Raises ValueError when
    a repetition's range is missing or holds no GPU activity (the trace did not record what was asked).
    """
    ranges = _rep_ranges(events, marker)
    missing = [n for n in range(reps) if n not in ranges]
    if missing:
        raise ValueError(f"profiler ranges {marker}{missing[0]}.. missing from the trace ({len(missing)} of {reps})")
    launch_us = {}
    for e in events:
        correlation = (e.get("args") or {}).get("correlation")
        if e.get("cat") in LAUNCH_CATEGORIES and correlation is not None:
            launch_us[correlation] = float(e["ts"])
    per_rep = {n: {"kernel_sum_ms": 0.0, "first_us": None, "last_us": None, "kernels": {}} for n in range(reps)}
    for e in events:
        if e.get("cat") not in GPU_CATEGORIES:
            continue
        start = float(e["ts"])
        duration = float(e.get("dur", 0.0))
        launched = launch_us.get((e.get("args") or {}).get("correlation"))
        n = _rep_of(launched if launched is not None else start, ranges)
        if n is None or n not in per_rep:
            continue  # the L2 flush, warm-up work, or work of another range
        rep = per_rep[n]
        rep["kernel_sum_ms"] += duration * 1e-3
        rep["first_us"] = start if rep["first_us"] is None else min(rep["first_us"], start)
        rep["last_us"] = start + duration if rep["last_us"] is None else max(rep["last_us"], start + duration)
        calls, total = rep["kernels"].get(e.get("name", "?"), (0, 0.0))
        rep["kernels"][e.get("name", "?")] = (calls + 1, total + duration * 1e-3)
    out = []
    for n in range(reps):
        rep = per_rep[n]
        if rep["first_us"] is None:
            raise ValueError(f"no GPU activity inside profiler range {marker}{n}")
        out.append({"kernel_sum_ms": rep["kernel_sum_ms"], "span_ms": (rep["last_us"] - rep["first_us"]) * 1e-3,
                    "kernels": rep["kernels"]})
    return out


def kernel_summary(reps):
    """The kernels of the region, as lcab-measure lists them: name, calls per repetition, median summed ms."""
    names = sorted({name for rep in reps for name in rep["kernels"]})
    rows = []
    for name in names:
        calls = [rep["kernels"].get(name, (0, 0.0))[0] for rep in reps]
        totals = sorted(rep["kernels"].get(name, (0, 0.0))[1] for rep in reps)
        rows.append({"name": name, "calls_per_rep": max(set(calls), key=calls.count),
                     "median_ms": totals[len(totals) // 2]})
    return sorted(rows, key=lambda row: -row["median_ms"])
