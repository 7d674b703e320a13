"""What the lcab-predict kernel tests share: one call's table and its records, read side by side."""
import json
import os
import subprocess
import sys

PREDICT = os.environ["LCAB_PREDICT"]
PROFILES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "profiles")


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


def predict_kernel(options, rows_expected):
    """Runs `lcab-predict kernel OPTIONS` twice, for its table and for its records (--json -). Returns (records,
    rows, columns): the records, the table's rows in the same order (each a list of its cells, stripped) and a
    dict from column name to index. Fails unless both hold rows_expected points."""
    args = [PREDICT, "kernel"] + options
    table = subprocess.run(args, capture_output=True, text=True)
    check(table.returncode == 0, table.stderr)
    json_out = subprocess.run(args + ["--json", "-"], capture_output=True, text=True)
    check(json_out.returncode == 0, json_out.stderr)
    records = [json.loads(line) for line in json_out.stdout.splitlines() if line.startswith("{")]
    lines = table.stdout.splitlines()
    header = [c.strip() for c in next(line for line in lines if line.startswith("| impl")).split("|")]
    rows = [[c.strip() for c in line.split("|")] for line in lines[2:] if line.startswith("| ")]
    check(len(records) == rows_expected and len(rows) == rows_expected, table.stdout + json_out.stdout)
    return records, rows, {name: i for i, name in enumerate(header)}


def profile_entry(profile, key):
    """The kernel entry of a profile (parsed JSON) for a record's key."""
    return [k for k in profile["kernels"] if k["impl"] == key["impl"] and k["pass"] == key["pass"]
            and k["head_dim"] == key["head_dim"] and k["dtype"] == key["dtype"]][0]
