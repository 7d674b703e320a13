#!/usr/bin/env python3
"""Tests of scripts/ncu_stalls.py on synthetic `ncu --page source --csv` exports."""
import csv
import gzip
import io
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "ncu_stalls.py")
HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
          "Instructions Executed", "stall_barrier", "stall_long_sb", "stall_barrier (Not Issued)"]


def export(instructions, compress=False):
    """instructions: [(sass, barrier samples, long_sb samples)] -> the text (or gzip bytes) of an export."""
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL)
    w.writerow(["Kernel Name", "void k(Args)"])
    w.writerow(HEADER)
    for n, (sass, barrier, long_sb) in enumerate(instructions):
        # ncu writes thousands with commas; the script must read "1,200" as 1200
        w.writerow([hex(0x100 + 16 * n), "      " + sass, f"{barrier + long_sb:,}", "0", "10", f"{barrier:,}",
                    str(long_sb), "0"])
    text = out.getvalue()
    return gzip.compress(text.encode()) if compress else text.encode()


def run(*files_and_flags):
    with tempfile.TemporaryDirectory() as d:
        args = []
        for item in files_and_flags:
            if isinstance(item, tuple):
                name, data = item
                path = os.path.join(d, name)
                with open(path, "wb") as f:
                    f.write(data)
                args.append(path)
            else:
                args.append(item)
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


def row(out, first_cell):
    rows = [l for l in out.splitlines() if l.startswith(f"| {first_cell} |")]
    check(len(rows) >= 1, f"no row '{first_cell}' in:\n{out}")
    return rows[0]


# Two roles ending at EXIT, then an out-of-line function ending at RET. Baseline: 1000 samples; source: 500.
base = [("HGMMA.64x64x16.F32.BF16 R152, gdesc[UR16], RZ", 500, 100),   # 0: 60%
        ("@!P0 BRA 0x200", 100, 100),                                   # 1: 20%
        ("EXIT", 0, 0),                                                 # 2
        ("LDG.E R3, desc[UR4][R6.64]", 0, 100),                         # 3: 10%
        ("EXIT", 0, 0),                                                 # 4
        ("F2FP.BF16.F32.PACK_AB R31, R13, R12", 0, 100),                # 5: 10%
        ("RET.REL.NODEC R2 0x0", 0, 0),                                 # 6
        ("BRA 0x1c0", 0, 0)]                                            # 7: the padding after the last function
new = [("HGMMA.64x64x16.F32.BF16 R152, gdesc[UR16], RZ", 100, 50),     # 0: 30% (-30 points)
       ("@!P0 BRA 0x200", 50, 50),                                      # 1: 20%
       ("EXIT", 0, 0),
       ("LDG.E R3, desc[UR4][R6.64]", 0, 50),                           # 3: 10%
       ("EXIT", 0, 0),
       ("F2FP.BF16.F32.PACK_AB R31, R13, R12", 1200, 0),                # 5: more samples than the rest together
       ("RET.REL.NODEC R2 0x0", 0, 0),
       ("BRA 0x1c0", 0, 0)]
# New's total: 150 + 100 + 50 + 1200 = 1500 samples; shares 10%, 6.67%, 3.33%, 80%.

out = run(("new.csv.gz", export(new, compress=True)), "--baseline", ("base.csv", export(base)), "--top", "3")
check(out.returncode == 0, out.stderr)
text = out.stdout
check("baseline: void k(Args), 8 instructions, 1000 samples" in text, text)
check("source: void k(Args), 8 instructions, 1500 samples" in text, text)
# Regions split after each EXIT and the RET; shares of each launch's own samples.
check(row(text, "0-2").endswith("| 80.00 | 16.67 |"), row(text, "0-2"))
check(row(text, "3-4").endswith("| 10.00 | 3.33 |"), row(text, "3-4"))
check(row(text, "5-6").endswith("| 10.00 | 80.00 |"), row(text, "5-6"))
check(row(text, "7-7").endswith("| 0.00 | 0.00 |"), row(text, "7-7"))
# Stall reasons and opcodes (the predicate and the suffixes dropped).
check(row(text, "`barrier`").endswith("| 60.00 | 90.00 |"), row(text, "`barrier`"))
check(row(text, "`long_sb`").endswith("| 40.00 | 10.00 |"), row(text, "`long_sb`"))
check(row(text, "`BRA`").endswith("| 20.00 | 6.67 |"), row(text, "`BRA`"))
# The instruction that grew most comes first among the grown, the one that shrank most first among the shrunk.
grew = text.split("Grew most")[1].split("Shrank most")[0]
shrank = text.split("Shrank most")[1]


def first_data_row(part):
    return [l for l in part.splitlines() if l.startswith("| ") and l[2].isdigit()][0]


grown, shrunk = first_data_row(grew), first_data_row(shrank)
check(grown.startswith("| 5 |") and grown.endswith("| barrier 1200 | +70.00 | 10.00 | 80.00 |"), grew)
check(shrunk.startswith("| 0 |") and shrunk.endswith("| barrier 100, long_sb 50 | -50.00 | 60.00 | 10.00 |"), shrank)

# Without a baseline: one share column.
out = run(("new.csv", export(new)))
check(out.returncode == 0, out.stderr)
check(row(out.stdout, "5-6").endswith("| `F2FP.BF16.F32.PACK_AB R31, R13, R12` | 80.00 |"), out.stdout)
check("Grew most" not in out.stdout, out.stdout)

# Exports of different kernels (instruction counts differ) are refused, not compared row by row.
out = run(("new.csv", export(new)), "--baseline", ("base.csv", export(base[:5])))
check(out.returncode != 0 and "not the same kernel" in out.stderr, out.stderr)

# A file without the sampling columns (an export made without SourceCounters) is refused with its name.
bad = b'"Kernel Name","k"\n"Address","Source"\n"0x0","EXIT"\n'
out = run(("details.csv", bad))
check(out.returncode != 0 and "details.csv" in out.stderr and "Warp Stall Sampling" in out.stderr, out.stderr)
# A file that cannot be read is an error with its name, not a traceback.
out = subprocess.run([sys.executable, SCRIPT, "/nonexistent/source.csv"], capture_output=True, text=True)
check(out.returncode != 0 and "/nonexistent/source.csv" in out.stderr and "Traceback" not in out.stderr, out.stderr)
print("ok")
