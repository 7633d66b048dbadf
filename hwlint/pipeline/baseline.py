"""The baseline: today's findings, recorded so that ``hwlint check`` reports only new ones, and a
project adopts hwlint without a flag day.

A baseline records (file, class, code) with a count: ``hwlint check`` hides a file's findings of one
class and code while there are no more of them than recorded, and reports all of them once there
are more (a class of the same name added to the file, say). A new class, or a new code in a
recorded class, is reported like any finding. Findings outside a class (a file that cannot be
read) are recorded with ``"class": null``.

The file::

    {
      "schema": "hwlint-baseline/2",
      "entries": [
        {"path": "test/test_nn.py", "class": "TestNN", "code": "HWC001", "count": 1},
        ...
      ]
    }

Paths are relative to the project root (the directory of the configuration naming the baseline,
else the current directory). The baseline should only shrink: an entry none of whose findings
remain, or whose file no longer exists, is reported as HWC902. The first format, a JSON list of
file paths (the shape of PyTorch's own allowlists), is still read: each listed file is skipped
whole, and a warning says how to record the finer one.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ..rules.check import Finding, make_finding
from ..rules.registry import RULES
from .config import ConfigError, read_bounded

STALE_CODE = "HWC902"
SCHEMA = "hwlint-baseline/2"
#: a baseline of every finding in a tree the size of PyTorch's is some 200 KB
MAX_BASELINE_BYTES = 32 * 1024 * 1024

#: (path relative to the root, class or None, code)
Key = tuple[str, "str | None", str]


class BaselineError(Exception):
    """A baseline file that cannot be read; ``str()`` names the file."""


@dataclass(frozen=True)
class Baseline:
    path: str  # the baseline file, as given
    root: Path  # what the entries are relative to
    # key -> (count, its line in the file, for HWC902); a legacy baseline's keys are (path, None, "")
    entries: dict[Key, tuple[int, int]]
    legacy: bool = False  # the first format: a list of files, each skipped whole
    files: frozenset[str] = field(default=frozenset())

    def key(self, path: str) -> str:
        return entry_for(path, self.root)

    def __contains__(self, path: str) -> bool:
        """Whether the baseline records anything in the file *path*."""
        return self.key(path) in self.files

    def unrecorded(self, path: str, findings: Sequence[Finding]) -> list[Finding]:
        """The findings of *path* the baseline does not cover: all of a (class, code) that has
        more findings now than recorded; none of one that has as many or fewer."""
        entry = self.key(path)
        if entry not in self.files:
            return list(findings)
        if self.legacy:
            return []
        counts = Counter((entry, finding_class(f), f.code) for f in findings)
        return [
            f
            for f in findings
            if counts[(entry, finding_class(f), f.code)]
            > self.entries.get((entry, finding_class(f), f.code), (0, 0))[0]
        ]


def entry_for(path: str, root: Path) -> str:
    """*path* as a baseline entry: relative to *root*, with forward slashes."""
    return Path(os.path.relpath(os.path.abspath(path), root)).as_posix()


@cache
def _message_pattern(code: str) -> re.Pattern[str] | None:
    """A regex matching the messages of *code*'s rule, with the class named (``cls``, or the class
    part of ``target``) as a group; None when its messages name no class."""
    template = RULES[code].message
    fields = re.findall(r"\{(\w+)\}", template)
    if "cls" not in fields and "target" not in fields:
        return None
    out, seen, pos = [], set(), 0
    for m in re.finditer(r"\{(\w+)\}", template):
        out.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        if name in ("cls", "target") and name not in seen:
            # a class name, possibly dotted (HWC203's target is `TestA.test_x`)
            out.append(r"(?P<cls>[^`.\s]+)(?:\.[^`\s]*)?" if name == "target" else r"(?P<cls>[^`\s]+?)")
            seen.add(name)
        else:
            out.append(".*?")
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("".join(out), re.DOTALL)


def finding_class(f: Finding) -> str | None:
    """The class a finding is about, as its message names it (None for a finding about a file)."""
    pattern = _message_pattern(f.code) if f.code in RULES else None
    if pattern is None:
        return None
    m = pattern.fullmatch(f.message)
    return m.group("cls") if m else None


def load_baseline(path: str, root: Path) -> Baseline:
    """Read a baseline file (either format). A FIFO, a device or a file over the size bound is a
    :class:`BaselineError`, before anything is read."""
    try:
        data = read_bounded(path, "baseline", MAX_BASELINE_BYTES)
    except ConfigError as e:
        raise BaselineError(str(e)) from None
    try:
        text = data.decode("utf-8")
        doc = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise BaselineError(f"{path}: not a JSON baseline: {e}") from None
    lines = text.splitlines()

    def line_of(needle: str) -> int:
        return next((i for i, line in enumerate(lines, 1) if needle in line), 1)

    if isinstance(doc, list):
        if not all(isinstance(x, str) for x in doc):
            raise BaselineError(
                f"{path}: a baseline is a JSON object (or, in the first format, a list of paths)"
            )
        entries = {(e, None, ""): (1, line_of(json.dumps(e))) for e in doc}
        return Baseline(path, root, entries, legacy=True, files=frozenset(doc))
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("entries"), list):
        raise BaselineError(f'{path}: not a baseline: expected {{"schema": "{SCHEMA}", "entries": [...]}}')
    entries: dict[Key, tuple[int, int]] = {}
    for i, e in enumerate(doc["entries"]):
        ok = (
            isinstance(e, dict)
            and isinstance(e.get("path"), str)
            and isinstance(e.get("class"), (str, type(None)))
            and isinstance(e.get("code"), str)
            and isinstance(e.get("count", 1), int)
            and not isinstance(e.get("count", 1), bool)
            and e.get("count", 1) >= 1
        )
        if not ok:
            raise BaselineError(
                f"{path}: entry {i + 1}: expected "
                '{"path": str, "class": str or null, "code": str, "count": whole number >= 1}'
            )
        key = (e["path"], e["class"], e["code"])
        count, line = entries.get(key, (0, 0))
        entries[key] = (count + e.get("count", 1), line or line_of(_entry_line(e)[:-1].rstrip(",")))
    return Baseline(path, root, entries, files=frozenset(k[0] for k in entries))


def baseline_entries(findings: Iterable[Finding], root: Path) -> list[dict]:
    """The entries recording *findings*: one per (file, class, code), with its count, sorted."""
    counts = Counter((entry_for(f.path, root), finding_class(f), f.code) for f in findings)
    return [
        {"path": p, "class": c, "code": code, "count": n}
        for (p, c, code), n in sorted(counts.items(), key=lambda kv: (kv[0][0], kv[0][1] or "", kv[0][2]))
    ]


def _entry_line(entry: dict) -> str:
    return "    " + json.dumps(entry, ensure_ascii=False) + ","


def baseline_text(entries: Sequence[dict]) -> str:
    """The baseline file: one entry a line, so that a diff shows each entry that changed and
    HWC902 can point at its line."""
    body = "\n".join(_entry_line(e) for e in entries).rstrip(",")
    inner = f"\n{body}\n  " if entries else ""
    return f'{{\n  "schema": "{SCHEMA}",\n  "entries": [{inner}]\n}}\n'


def write_baseline(path: str, entries: Sequence[dict]) -> None:
    """Write the baseline of *entries* to *path*, whole or not at all (raises OSError)."""
    from ..effects import write_output

    write_output(path, baseline_text(entries))


def apply_baseline(
    baseline: Baseline, found: Sequence[tuple[str, list[Finding]]]
) -> tuple[list[tuple[str, list[Finding]]], list[Finding]]:
    """The findings the baseline does not cover, per checked file, and an HWC902 finding for each
    stale entry.

    *found* holds each checked file with its selected findings. An entry of a checked file none of
    whose findings remain is stale; so is an entry whose file does not exist, wherever it points.
    """
    keep = [(path, baseline.unrecorded(path, findings)) for path, findings in found]
    present: set[Key] = set()
    checked: set[str] = set()
    for path, findings in found:
        entry = baseline.key(path)
        if entry not in baseline.files:
            continue
        checked.add(entry)
        for f in findings:
            present.add((entry, None, "") if baseline.legacy else (entry, finding_class(f), f.code))
    stale = []
    shown: set[str] = set()
    for key, (_, line) in baseline.entries.items():
        entry = key[0]
        gone = not (baseline.root / entry).exists()
        if not gone and not (entry in checked and key not in present):
            continue
        label = entry if baseline.legacy else _label(key)
        if label in shown:
            continue
        shown.add(label)
        fields = {"entry": label, "baseline": baseline.path}
        stale.append(make_finding(baseline.path, STALE_CODE, line, 0, fields))
    return keep, stale


def _label(key: Key) -> str:
    path, cls, code = key
    return f"{path}: {cls} {code}" if cls else f"{path}: {code}"
