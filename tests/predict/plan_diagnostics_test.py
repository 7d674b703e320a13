#!/usr/bin/env python3
"""lcab-predict plan says what its prediction rests on, says why when it can rank nothing, and refuses heads that no
GQA grouping allows.

- Under the header, "Model basis:": the built-in H100 profile's lcab_flash bf16 hd 128 entries are fitted to
  measurements (both passes), its intra-node collectives too, its inter-node ones are datasheet figures; the
  datasheet profile's are all datasheet figures.

- `--heads 7 --kv-heads 3`: an error naming both (every command's workload options check it), before any planning;
  a sweep grid with "heads": 7, "kv_heads": 3 likewise.
- `--head-dim 96` (no profile entry for it): the table is empty, so the plan lists each distinct reason once with
  the count and the first configs it rejected; `--show-skipped` lists every config instead, with no summary.
- An implementation that cannot run the mask (cudnn on block_sparse): every config rejected with its reason.
- A plan that ranks configs prints no such summary.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

PREDICT = os.environ["LCAB_PREDICT"]
DATASHEET = os.path.join(os.path.dirname(__file__), "..", "..", "data", "profiles", "h100_sxm.datasheet.json")
BASE = [PREDICT, "plan", "--gpus", "8", "--mask", "causal", "--seqlen", "64k"]


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


def run(*extra):
    return subprocess.run(BASE + list(extra), capture_output=True, text=True)


bad_heads = run("--heads", "7", "--kv-heads", "3")
check(bad_heads.returncode != 0 and "--heads 7 must be a multiple of --kv-heads 3" in bad_heads.stderr
      and "Plan:" not in bad_heads.stdout, f"heads 7 / kv 3: rc {bad_heads.returncode}\n{bad_heads.stderr}")

with tempfile.TemporaryDirectory() as d:
    grid = os.path.join(d, "grid.json")
    with open(grid, "w") as f:
        json.dump({"masks": ["causal"], "seqlens": ["64k"], "gpus": [8], "heads": 7, "kv_heads": 3}, f)
    sweep = subprocess.run([PREDICT, "sweep", "--grid", grid], capture_output=True, text=True)
check(sweep.returncode != 0 and "'heads' 7 must be a multiple of 'kv_heads' 3" in sweep.stderr,
      f"sweep grid with heads 7 / kv 3: rc {sweep.returncode}\n{sweep.stderr}")

no_entry = run("--head-dim", "96")
check(no_entry.returncode == 0, no_entry.stderr)
out = no_entry.stdout
check("0 configs ranked" in out, out)
summary = out.split("No config could be ranked: the methods rejected all ")
check(len(summary) == 2, f"no summary under the empty table:\n{out}")
total = int(summary[1].split(".")[0])
reasons = [line for line in summary[1].splitlines() if line.startswith("- ")]
check(len(reasons) == 1 and "head_dim 96" in reasons[0], f"one distinct reason, the missing head dim:\n{out}")
check(reasons[0].startswith(f"- {total} configs (") and ", ...)" in reasons[0],
      f"the reason counts every config and names the first three: {reasons[0]}")

listed = run("--head-dim", "96", "--show-skipped")
check(listed.returncode == 0 and "No config could be ranked" not in listed.stdout, listed.stdout)
rejected = [line for line in listed.stdout.split("Rejected configs:")[1].splitlines() if line.startswith("- ")]
check(len(rejected) == total, f"--show-skipped lists all {total} configs: {len(rejected)}")

# An implementation that cannot run the mask ranks nothing, and says why: cudnn takes one mask for all heads.
cannot = subprocess.run([PREDICT, "plan", "--gpus", "8", "--mask", "block_sparse", "--seqlen", "64k", "--impl", "cudnn"],
                        capture_output=True, text=True)
check(cannot.returncode == 0 and "0 configs ranked" in cannot.stdout
      and "cudnn cannot run this mask: per-kv-head masks that differ between heads" in cannot.stdout,
      cannot.stdout + cannot.stderr)

ranked = run()
check(ranked.returncode == 0 and "No config could be ranked" not in ranked.stdout
      and re.search(r"^\|\s+1 \| ", ranked.stdout, re.MULTILINE), ranked.stdout)
check("\nModel basis: lcab_flash bf16 hd 128: fwd, bwd fitted to measurements; collectives: intra-node fitted to "
      "measurements, inter-node from the datasheet\n" in ranked.stdout, ranked.stdout)
datasheet = run("--profile", DATASHEET)
check(datasheet.returncode == 0 and "\nModel basis: lcab_flash bf16 hd 128: fwd, bwd from the datasheet; collectives: "
      "intra-node, inter-node from the datasheet\n" in datasheet.stdout, datasheet.stdout + datasheet.stderr)
print("plan_diagnostics: all checks passed")
