#!/usr/bin/env python3
"""Tests of scripts/readme_index.py on a synthetic README, and its check of the repository's own README.

    readme_index_test.py            the synthetic cases
    readme_index_test.py README.md  also: README.md's indexes are current (what ctest docs.readme_index runs)
"""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "readme_index.py")

SYNTHETIC = """# Tool — the title

Intro.

<!-- contents -->
stale line
<!-- /contents -->

## Building

```sh
## not a heading: inside a fence
```

## Kernels

<!-- entries: ## Kernels -->
<!-- /entries -->

**How it works** (`kernels/attention.h`). Reference text that names *Other entry* below.

*A trial that lost* (2026-11-24, measured, not adopted;
`data/measurements/h100/trial-2026-11-24/`, with its NOTE and `patch.diff`). Text
*Not an entry* because the line before is not blank.

*Ring depth* (2026-11-25, adopted at hd 64; `data/measurements/h100/ring/`). Text.

*Five trials* (2026-11-26, `a b/c` is a command, not records; none adopted, the kernel unchanged). Text.

*An eighth, adopted: the log* (`data/x/`). Text.

*What masking costs* (a diagnostic, `data/measurements/h100/mask-cost/`). Text.

*What masking costs* (2026-11-23). The same title again.

```
*In a fence* (2026-11-27, adopted).
```

### Sub `heading`: with punctuation

## Other

*Outside the section* (2026-11-28, adopted).

## Second

<!-- entries: ## Second -->
<!-- /entries -->

*What masking costs* (2026-11-29). A title of the other block again.

## Building
"""


def run(text, *flags):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "README.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        result = subprocess.run([sys.executable, SCRIPT, path, *flags], capture_output=True, text=True)
        with open(path, encoding="utf-8") as f:
            return result, f.read()


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


def main():
    result, written = run(SYNTHETIC, "--check")
    check(result.returncode == 1, f"a stale index passes --check: {result.returncode} {result.stderr}")
    check("--write" in result.stderr and written == SYNTHETIC, "--check names the fix and leaves the file alone")

    result, written = run(SYNTHETIC, "--write")
    check(result.returncode == 0, f"--write failed: {result.stderr}")
    lines = written.split("\n")

    # Contents: every ## and ### outside fences, GitHub's anchors, repeats numbered.
    contents = lines[lines.index("<!-- contents -->") + 1:lines.index("<!-- /contents -->")]
    check(contents == ["- [Building](#building)", "- [Kernels](#kernels)",
                       "  - [Sub `heading`: with punctuation](#sub-heading-with-punctuation)",
                       "- [Other](#other)", "- [Second](#second)", "- [Building](#building-1)"],
          f"contents: {contents}")

    # Entries: the section's titled paragraphs only, in order, with what their parenthesis says.
    begin = lines.index("<!-- entries: ## Kernels -->")
    rows = lines[begin + 3:lines.index("<!-- /entries -->")]
    expected = [
        "| [How it works](#e-how-it-works) |  |  | `kernels/attention.h` |",
        "| [A trial that lost](#e-a-trial-that-lost) | 2026-11-24 | not adopted | "
        "`data/measurements/h100/trial-2026-11-24/` |",
        "| [Ring depth](#e-ring-depth) | 2026-11-25 | adopted at hd 64 | `data/measurements/h100/ring/` |",
        "| [Five trials](#e-five-trials) | 2026-11-26 | none adopted |  |",
        "| [An eighth, adopted: the log](#e-an-eighth-adopted-the-log) |  | adopted | `data/x/` |",
        "| [What masking costs](#e-what-masking-costs) |  | diagnostic | `data/measurements/h100/mask-cost/` |",
        "| [What masking costs](#e-what-masking-costs-1) | 2026-11-23 |  |  |",
    ]
    check(rows == expected, "entries:\n" + "\n".join(rows))
    second = lines[lines.index("<!-- entries: ## Second -->") + 3]
    check(lines[lines.index("<!-- entries: ## Second -->") + 1:lines.index("<!-- entries: ## Second -->") + 3]
          == ["| entry | date |", "|---|---|"], "a column no entry fills is left out")
    check(second == "| [What masking costs](#e-what-masking-costs-2) | 2026-11-29 |",
          f"anchors are unique over the file's blocks: {second}")

    # Each entry has its anchor on the line two above it, a blank line between (the paragraph stays markdown).
    for anchor, start in [("e-a-trial-that-lost", "*A trial that lost*"), ("e-what-masking-costs-1",
                                                                          "*What masking costs* (2026-11-23)")]:
        i = next(k for k, line in enumerate(lines) if line.startswith(start))
        check(lines[i - 2] == f'<a id="{anchor}"></a>' and lines[i - 1] == "", f"anchor of {start}: {lines[i - 2:i]}")
    check('<a id="e-outside-the-section"></a>' not in written and '<a id="e-in-a-fence"></a>' not in written,
          "anchors only for the section's entries, none inside a fence")

    # Regenerating changes nothing; --check passes.
    again, rewritten = run(written, "--write")
    check(rewritten == written, "--write is not idempotent")
    result, _ = run(written, "--check")
    check(result.returncode == 0, f"--check fails on a current index: {result.stdout}")

    # A new entry makes the index stale; a removed one takes its anchor with it.
    added = written.replace("## Other", "*A new trial* (2026-11-30, not adopted).\n\n## Other")
    result, _ = run(added, "--check")
    check(result.returncode == 1 and "A new trial" in result.stdout, "an added entry passes --check")
    removed = written.replace("*Ring depth* (2026-11-25, adopted at hd 64; `data/measurements/h100/ring/`). Text.\n\n",
                              "")
    _, rewritten = run(removed, "--write")
    check('<a id="e-ring-depth"></a>' not in rewritten and "[Ring depth]" not in rewritten,
          "a removed entry's anchor and row stay")
    check("\n\n\n" not in rewritten.split("<!-- /entries -->")[1], "a dropped anchor leaves a double blank line")

    # An entries block naming no heading of the file is an error that names it.
    result, _ = run(SYNTHETIC.replace("entries: ## Kernels", "entries: ## Kernel"), "--write")
    check(result.returncode != 0 and "## Kernel" in result.stderr, f"unknown heading: {result.stderr}")

    if len(sys.argv) > 1:
        result = subprocess.run([sys.executable, SCRIPT, sys.argv[1], "--check"], capture_output=True, text=True)
        check(result.returncode == 0, f"{sys.argv[1]}: {result.stdout}{result.stderr}")
    print("readme_index: all checks passed")


if __name__ == "__main__":
    main()
