"""``hwlint check --add-noqa``: silence today's findings in place, ruff's migration path for a team
that wants a clean run now and fixes later.

Each reported line gets ``# noqa: CODE[,CODE]`` (merged into a ``# noqa: ...`` already there). Findings
without a line of their own in a parsed file (HWC900, HWC901, HWC902) are left: a comment cannot
silence them. Files are written as ``--fix`` writes them: atomically, and never when they changed on
disk meanwhile.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from ..model import decode_source, split_lines
from ..rules.check import Finding, read_source

UNSILENCEABLE = frozenset({"HWC900", "HWC901", "HWC902"})
_NOQA = re.compile(r"#\s*noqa(?::\s?(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)


def add_noqa(findings: Iterable[Finding]) -> tuple[int, list[str]]:
    """Add the directives; returns (directives added, warnings naming files left alone)."""
    from .write import write_if_unchanged

    by_file: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for f in findings:
        if f.code not in UNSILENCEABLE and f.line > 0:
            by_file[f.path][f.line].add(f.code)
    added, warnings = 0, []
    for path, lines in sorted(by_file.items()):
        data = read_source(path)
        if isinstance(data, str):
            warnings.append(f"{path}: {data}; no noqa added")
            continue
        text, encoding = decode_source(data)
        new_text, n = noqa_text(text, lines)
        if not n:
            continue
        error = write_if_unchanged(path, data, new_text.encode(encoding))
        if error:
            warnings.append(f"{path}: {error}")
            continue
        added += n
    return added, warnings


def noqa_text(text: str, codes_by_line: dict[int, set[str]]) -> tuple[str, int]:
    """*text* with the directives added, and how many lines changed."""
    lines = split_lines(text)
    changed = 0
    for row, codes in codes_by_line.items():
        if not 0 < row <= len(lines):
            continue
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        end = line[len(body) :]
        if body.endswith("\\"):  # a comment would end the continuation: leave the line alone
            continue
        m = _NOQA.search(body) if "#" in body else None
        if m is not None and not m.group("codes"):
            continue  # a blanket noqa already silences the line
        if m is not None:
            merged = sorted({*(c.upper() for c in re.split(r"[,\s]+", m.group("codes")) if c), *codes})
            body = f"{body[: m.start()]}# noqa: {', '.join(merged)}{body[m.end() :]}"
        else:
            body = f"{body}  # noqa: {', '.join(sorted(codes))}"
        lines[row - 1] = body + end
        changed += 1
    return "".join(lines), changed
