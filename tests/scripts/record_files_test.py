#!/usr/bin/env python3
"""Tests of scripts/record_files.py: plain and gzip-compressed record files read alike, a plain name falls back to
the compressed file, and a script reading records (ab_compare.py) takes a compressed file."""
import gzip
import json
import os
import subprocess
import sys
import tempfile

SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)
import record_files  # noqa: E402


def fail(message):
    print("FAILED:", message)
    sys.exit(1)


def main():
    records = [{"key": {"pass": "fwd", "head_dim": 128, "mask": m, "seqlen": 32768}, "tflops": t, "status": "ok"}
               for m, t in (("full", 600.0), ("causal", 500.0))]
    text = "".join(json.dumps(r) + "\n" for r in records) + "\n"
    with tempfile.TemporaryDirectory() as d:
        plain = os.path.join(d, "a.jsonl")
        with open(plain, "w") as f:
            f.write(text)
        with gzip.open(plain + ".gz", "wt") as f:
            f.write(text)
        from_plain = list(record_files.read_records(plain))
        from_gz = list(record_files.read_records(plain + ".gz"))
        if from_plain != from_gz or [n for n, _ in from_gz] != [1, 2]:
            fail(f"plain {from_plain} and compressed {from_gz} differ")
        os.remove(plain)
        if record_files.stored_path(plain) != plain + ".gz":
            fail("a missing plain name does not fall back to NAME.gz")
        if list(record_files.read_records(plain)) != from_plain:
            fail("the fallback reads something else")
        for refused in (plain, plain + ".gz"):  # beside a compressed file, or into one
            try:
                record_files.check_appendable(refused)
                fail(f"appending to {refused} accepted")
            except ValueError:
                pass
        record_files.check_appendable(os.path.join(d, "new.jsonl"))
        missing = os.path.join(d, "missing.jsonl")
        if record_files.stored_path(missing) != missing:
            fail("a path with no stored file is changed")
        try:
            list(record_files.read_records(missing))
            fail("a missing file reads")
        except FileNotFoundError as e:
            if "missing.jsonl" not in str(e):
                fail(f"the error names {e}")
        out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ab_compare.py"), plain, plain + ".gz"],
                             capture_output=True, text=True)
        if out.returncode != 0 or "causal" not in out.stdout:
            fail(f"ab_compare.py on compressed files: rc {out.returncode}\n{out.stdout}\n{out.stderr}")
    print("record_files: all checks passed")


if __name__ == "__main__":
    main()
