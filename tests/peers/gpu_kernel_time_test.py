#!/usr/bin/env python3
"""measure/peers/gpu_kernel_time.py on synthetic profiler traces (no GPU, no PyTorch): which GPU work belongs to
which timed repetition, and what its kernel sum and span are.

  python3 tests/peers/gpu_kernel_time_test.py
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "measure", "peers"))
import gpu_kernel_time  # noqa: E402

MARKER = "lcab_rep_"


def annotation(n, ts, dur):
    return {"cat": "user_annotation", "name": f"{MARKER}{n}", "ts": ts, "dur": dur}


def launch(correlation, ts, api="cudaLaunchKernel", cat="cuda_runtime"):
    return {"cat": cat, "name": api, "ts": ts, "dur": 3, "args": {"correlation": correlation}}


def gpu(name, correlation, ts, dur, cat="kernel"):
    event = {"cat": cat, "name": name, "ts": ts, "dur": dur}
    if correlation is not None:
        event["args"] = {"correlation": correlation}
    return event


def two_reps():
    """Each repetition: the flush before its range, then a host-bound pair of kernels (a 40 us host gap between
    them) and a memset; rep 1's second kernel is launched by the driver API."""
    return [
        launch(1, 0), gpu("fill_flush", 1, 5, 50),                      # flush of rep 0 (before its range)
        annotation(0, 100, 200),
        launch(2, 110), gpu("attn_fwd", 2, 115, 20),
        launch(3, 160), gpu("attn_fwd", 3, 165, 20),
        launch(4, 170, "cudaMemsetAsync"), gpu("Memset", 4, 186, 2, "gpu_memset"),
        launch(5, 400), gpu("fill_flush", 5, 405, 50),                  # flush of rep 1
        annotation(1, 500, 200),
        launch(6, 510), gpu("attn_fwd", 6, 515, 30),
        launch(7, 560, "cuLaunchKernel", "cuda_driver"), gpu("attn_fwd", 7, 565, 10),
        launch(8, 570, "cudaMemsetAsync"), gpu("Memset", 8, 576, 4, "gpu_memset"),
    ]


class RepGpuTimes(unittest.TestCase):
    def test_sums_only_the_work_launched_inside_each_range(self):
        reps = gpu_kernel_time.rep_gpu_times(two_reps(), MARKER, 2)
        self.assertAlmostEqual(reps[0]["kernel_sum_ms"], (20 + 20 + 2) * 1e-3)
        self.assertAlmostEqual(reps[1]["kernel_sum_ms"], (30 + 10 + 4) * 1e-3)
        self.assertAlmostEqual(reps[0]["span_ms"], (188 - 115) * 1e-3)   # host gap inside the span
        self.assertAlmostEqual(reps[1]["span_ms"], (580 - 515) * 1e-3)
        self.assertEqual(reps[0]["kernels"]["attn_fwd"][0], 2)
        self.assertNotIn("fill_flush", reps[0]["kernels"])

    def test_launch_decides_even_when_the_kernel_runs_after_the_range(self):
        events = two_reps() + [launch(9, 690), gpu("late", 9, 720, 7)]   # runs after rep 1's range closed
        reps = gpu_kernel_time.rep_gpu_times(events, MARKER, 2)
        self.assertAlmostEqual(reps[1]["kernel_sum_ms"], (30 + 10 + 4 + 7) * 1e-3)

    def test_work_without_its_launch_falls_back_to_its_start(self):
        events = two_reps() + [gpu("orphan", None, 250, 5), gpu("outside", None, 350, 5)]
        reps = gpu_kernel_time.rep_gpu_times(events, MARKER, 2)
        self.assertAlmostEqual(reps[0]["kernel_sum_ms"], (20 + 20 + 2 + 5) * 1e-3)

    def test_a_range_without_gpu_work_or_a_missing_range_is_an_error(self):
        events = [e for e in two_reps() if e.get("args", {}).get("correlation") not in (6, 7, 8)]
        with self.assertRaisesRegex(ValueError, "no GPU activity inside profiler range lcab_rep_1"):
            gpu_kernel_time.rep_gpu_times(events, MARKER, 2)
        with self.assertRaisesRegex(ValueError, "missing"):
            gpu_kernel_time.rep_gpu_times(two_reps(), MARKER, 3)

    def test_other_ranges_and_markers_are_ignored(self):
        events = two_reps() + [{"cat": "user_annotation", "name": "lcab_rep_x", "ts": 0, "dur": 1000},
                               {"cat": "user_annotation", "name": "aten::mm", "ts": 0, "dur": 1000}]
        reps = gpu_kernel_time.rep_gpu_times(events, MARKER, 2)
        self.assertAlmostEqual(reps[0]["kernel_sum_ms"], 42e-3)

    def test_kernel_summary_lists_calls_and_median_per_name(self):
        summary = gpu_kernel_time.kernel_summary(gpu_kernel_time.rep_gpu_times(two_reps(), MARKER, 2))
        self.assertEqual([row["name"] for row in summary], ["attn_fwd", "Memset"])
        self.assertEqual(summary[0]["calls_per_rep"], 2)
        self.assertAlmostEqual(summary[0]["median_ms"], 40e-3)


if __name__ == "__main__":
    unittest.main()
