#!/usr/bin/env python3
"""The README's generated indexes: its contents, and the entries of its long sections.

    scripts/readme_index.py [README.md] --check | --write

Two kinds of block, each between HTML comment markers that GitHub does not render:

- `<!-- contents -->` ... `<!-- /contents -->`: a list of the file's `##` and `###` headings (outside code fences),
  each linked by the anchor GitHub gives it (lower case; punctuation other than `-` and `_` dropped; spaces become
  `-`; a repeated heading gets `-1`, `-2`, ...).
- `<!-- entries: ## HEADING -->` ... `<!-- /entries -->`: a table of the paragraphs of section `## HEADING` (up to
  the next `##` heading) that open with a bold or italic title, `**Title**` or `*Title*`: the README's reference
  blocks and its dated journal of measurements and trials. Per entry: its title, linked to an anchor
  `<a id="e-..."></a>` that this script keeps on a line of its own above the entry (then a blank line, so that the
  paragraph stays markdown; anchors of entries that are gone are dropped), and from the parenthesis right
  after the title (`*Title* (2026-11-24, measured, not adopted; data/measurements/...)`) the date, the outcome
  (`not adopted`, `none adopted`, `adopted ...` as written up to the next `;` `,` `:` or `)`, `diagnostic`) and the
  first path in backticks (the records, or a reference block's source). What the parenthesis does not say stays
  empty (an outcome may also come from the title); a column that no entry of the block fills is left out.

--write regenerates every block and the anchors in place; --check exits 1 with a diff when the file differs from what
--write would make (ctest `docs.readme_index` runs it on the repository's README, so the indexes cannot go stale).
"""
import argparse
import difflib
import re
import sys

CONTENTS_BEGIN = "<!-- contents -->"
CONTENTS_END = "<!-- /contents -->"
ENTRIES_BEGIN = re.compile(r"^<!-- entries: (## .+?) -->$")
ENTRIES_END = "<!-- /entries -->"
ANCHOR_LINE = re.compile(r'^<a id="([^"]*)"></a>$')
TITLE = re.compile(r"^(\*\*(?P<bold>[^*]+?)\*\*|\*(?P<italic>[^*\s][^*]*?)\*)")
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
CODE = re.compile(r"`([^`]+)`")


def github_slug(text):
    """The anchor GitHub gives a heading of this text (before de-duplication)."""
    text = CODE.sub(r"\1", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def unique(slug, seen):
    """slug, or slug-N for the N-th repeat, as GitHub numbers repeated headings."""
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def headings(lines):
    """(level, text, line index) of the `##` and `###` headings outside code fences and generated blocks."""
    out, fenced, generated = [], False, False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif line == CONTENTS_BEGIN:
            generated = True
        elif line == CONTENTS_END:
            generated = False
        elif not fenced and not generated:
            m = re.match(r"^(#{1,6}) (.+?)\s*$", line)
            if m:
                out.append((len(m.group(1)), m.group(2), i))
    return out


def contents_block(lines):
    seen, items = {}, []
    for level, text, _ in headings(lines):
        slug = unique(github_slug(text), seen)
        if level in (2, 3):
            items.append(f"{'  ' * (level - 2)}- [{text}](#{slug})")
    return [CONTENTS_BEGIN, *items, CONTENTS_END]


def parenthesis(text):
    """The balanced parenthesis that opens text (after spaces), without its brackets, or ''."""
    text = text.lstrip()
    if not text.startswith("("):
        return ""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return text[1:i]
    return text[1:]


def outcome_of(paren):
    lower = paren.lower()
    if "not adopted" in lower:
        return "not adopted"
    if "none adopted" in lower:
        return "none adopted"
    m = re.search(r"\badopted\b[^;,):]*", paren, re.IGNORECASE)
    if m:
        return m.group(0).strip()
    if "diagnostic" in lower:
        return "diagnostic"
    return ""


def section_span(lines, heading):
    """[first, end) line indices of the body of section `heading` (a `## ...` line)."""
    try:
        start = lines.index(heading)
    except ValueError:
        raise SystemExit(f"readme_index.py: an entries block names {heading!r}, which is not a heading of the file")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return start + 1, end


def strip_anchors(lines, heading):
    """lines without the anchor lines (and the blank line after each) in section `heading`."""
    first, end = section_span(lines, heading)
    body, i = [], first
    while i < end:
        if ANCHOR_LINE.match(lines[i]) and i + 1 < end and lines[i + 1] == "":
            i += 2
        else:
            body.append(lines[i])
            i += 1
    return lines[:first] + body + lines[end:]


def entries(lines, heading, seen):
    """Per titled paragraph of the section: (line index, anchor, title, date, outcome, records). seen: the anchors
    of the file's earlier entries blocks, so that anchors are unique over the file."""
    first, end = section_span(lines, heading)
    out, fenced, previous = [], False, ""
    for i in range(first, end):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced
        m = TITLE.match(line)
        if not fenced and previous.strip() == "" and m:
            title = (m.group("bold") or m.group("italic")).strip().rstrip(".:").strip()
            # The parenthesis may run over the paragraph's next lines.
            paragraph = line[m.end():]
            for j in range(i + 1, end):
                if lines[j].strip() == "":
                    break
                paragraph += " " + lines[j]
            paren = parenthesis(paragraph)
            date = DATE.search(paren) or DATE.search(title)
            paths = [p for p in CODE.findall(paren) if "/" in p and " " not in p]
            anchor = unique("e-" + github_slug(title), seen)
            out.append((i, anchor, title, date.group(0) if date else "", outcome_of(paren) or outcome_of(title),
                        f"`{paths[0]}`" if paths else ""))
        previous = line
    return out


def entries_block(heading, found):
    """The block's lines: a table of the entries, without the columns that no entry fills."""
    cell = lambda s: s.replace("|", "\\|")
    columns = [("date", 3), ("outcome", 4), ("records or source", 5)]
    columns = [(name, k) for name, k in columns if any(entry[k] for entry in found)]
    rows = [f"| [{cell(entry[2])}](#{entry[1]}) | " + " | ".join(cell(entry[k]) for _, k in columns) + " |"
            if columns else f"| [{cell(entry[2])}](#{entry[1]}) |" for entry in found]
    header = ["| entry | " + " | ".join(name for name, _ in columns) + " |" if columns else "| entry |",
              "|---|" + "---|" * len(columns)]
    return [f"<!-- entries: {heading} -->", *header, *rows, ENTRIES_END]


def replace_block(lines, begin_index, end_marker, block):
    try:
        end = lines.index(end_marker, begin_index + 1)
    except ValueError:
        raise SystemExit(f"readme_index.py: the block opened on line {begin_index + 1} has no {end_marker}")
    return lines[:begin_index] + block + lines[end + 1:]


def regenerate(text):
    lines = text.split("\n")
    # Anchors first, each on a line of its own with a blank line before the entry (an HTML block, so that the
    # entry's paragraph stays markdown), bottom up so that the indices hold; then the entry tables from the same
    # entries, then the contents (whose headings exclude its own block).
    seen, found = {}, {}
    for heading in [ENTRIES_BEGIN.match(line).group(1) for line in lines if ENTRIES_BEGIN.match(line)]:
        lines = strip_anchors(lines, heading)
        found[heading] = entries(lines, heading, seen)
        for index, anchor, *_ in reversed(found[heading]):
            lines[index:index] = [f'<a id="{anchor}"></a>', ""]
    i = 0
    while i < len(lines):
        m = ENTRIES_BEGIN.match(lines[i])
        if m:
            block = entries_block(m.group(1), found[m.group(1)])
            lines = replace_block(lines, i, ENTRIES_END, block)
            i += len(block)
        else:
            i += 1
    if CONTENTS_BEGIN in lines:
        lines = replace_block(lines, lines.index(CONTENTS_BEGIN), CONTENTS_END, contents_block(lines))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("readme", nargs="?", default="README.md")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 with a diff when the indexes are stale")
    mode.add_argument("--write", action="store_true", help="regenerate the indexes and anchors in place")
    args = parser.parse_args()
    try:
        with open(args.readme, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise SystemExit(f"readme_index.py: {error}")
    new = regenerate(text)
    if args.write:
        if new != text:
            with open(args.readme, "w", encoding="utf-8") as f:
                f.write(new)
        return 0
    if new != text:
        diff = difflib.unified_diff(text.split("\n"), new.split("\n"), args.readme, "regenerated", lineterm="", n=1)
        sys.stdout.write("\n".join(list(diff)[:80]) + "\n")
        print(f"{args.readme}: its indexes are stale; run scripts/readme_index.py {args.readme} --write",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
