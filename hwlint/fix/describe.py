"""What is said about fixes: ruff's JSON ``fix`` of each finding, ``--diff``'s reasons and count,
``--show-fixes``' enumeration. Every word comes from the fix its rule built."""

from __future__ import annotations

import bisect
import functools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from ..edits.text import line_starts
from ..model import Resolver, decode_source
from ..model.source import read_source
from ..pipeline.session import Session
from ..rules.check import Finding
from ..rules.registry import RULES, counted
from ..taxonomy import Taxonomy
from ..words import shown_path
from .apply import plan_source
from .diff import unified_diff
from .merge import merged
from .outcome import CheckRun, FilePlan

#: (line, col, code) of a finding -> its JSON ``fix``
Descriptions = list[tuple[int, int, str, dict]]


def fix_descriptions(plan: FilePlan) -> Descriptions:
    """ruff's JSON ``fix`` of each fixable finding of *plan*: ``applicability``, ``message`` and
    ``edits`` (each with the ``content`` to insert between ``location`` and ``end_location``,
    1-based rows and columns in characters). Like each ruff fix, each stands alone: it carries the
    enum's import when the file lacks it."""
    if plan.data is None:
        return []
    starts: list[int] | None = None
    out = []
    for f in plan.findings:
        fix = f.fix
        if fix is None or not fix.applicable or not fix.edits:
            continue
        if starts is None:
            starts = line_starts(decode_source(plan.data)[0])
        try:
            edits = merged(fix.edits)
        except AssertionError:  # a bug in a rule's edits costs the finding its description, not the run
            continue
        description = {
            "applicability": fix.applicability,
            "message": fix.message,
            "edits": [
                {
                    "content": e.inserted_text,
                    "location": _row_col(starts, e.start_pos),
                    "end_location": _row_col(starts, e.end_pos),
                }
                for e in edits
            ],
        }
        out.append((f.line, f.col, f.code, description))
    return out


def _row_col(starts: list[int], pos: int) -> dict:
    row = max(0, bisect.bisect_right(starts, pos) - 1)
    return {"row": row + 1, "column": pos - starts[row] + 1}


def describe_fixes(
    findings: Sequence[Finding],
    session: Session,
    resolvers: Mapping[str, Resolver] | None = None,
) -> Callable[[Finding], dict | None]:
    """Finding -> its ruff-style ``fix`` object (None when hwlint has no fix for it).

    Only the files with a fixable finding are planned again, their fixes' edits built: in parallel,
    and cached by content like the findings themselves, so a warm ``--output-format json`` run stays
    a warm run. A file in *resolvers* depends on other files: it is planned with the project's
    resolver, uncached."""
    resolvers = resolvers or {}
    paths = sorted({f.path for f in findings if f.fixable})
    linked = [p for p in paths if p in resolvers]
    paths = [p for p in paths if p not in resolvers]
    analysis = functools.partial(_describe_analysis, noqa=session.noqa)
    kind = session.noqa_kind("fix-descriptions2")
    per_file = session.analyze(paths, analysis, kind, Descriptions, progress=False)
    for path in linked:
        data = read_source(path, session.max_bytes, trees=session.trees)
        if isinstance(data, str):
            per_file.append([])
        else:
            per_file.append(_describe(data, path, session.taxonomy, resolvers[path], session.noqa))
        paths.append(path)
    table = {
        (path, line, col, code): desc
        for path, rows in zip(paths, per_file, strict=True)
        for line, col, code, desc in rows
    }
    return lambda f: table.get((f.path, f.line, f.col, f.code)) if f.fixable else None


def _describe_analysis(path: str, data: bytes | str, taxonomy: Taxonomy, noqa: bool = True) -> Descriptions:
    return [] if isinstance(data, str) else _describe(data, path, taxonomy, noqa=noqa)


def _describe(
    data: bytes, path: str, taxonomy: Taxonomy, resolver: Resolver | None = None, noqa: bool = True
) -> Descriptions:
    return fix_descriptions(plan_source(data, path, taxonomy, resolver=resolver, noqa=noqa))


def write_diff(run: CheckRun, out, err) -> int:
    """``--diff``, as ruff does it: the diff on *out*, the count on *err*. Returns that count."""
    out.write("".join(unified_diff(r) for r in run.results))
    for r in run.results:  # what each fix does and why, for the reviewer
        if r.changed:
            for f in r.fixed:
                assert f.fix is not None
                err.write(f"{shown_path(r.plan.path)}:{f.line}:{f.col + 1}: {f.code} {f.fix.describe()}\n")
    fixed = [f.code for r in run.results if r.changed for f in r.fixed]
    err.write(f"Would fix {counted(fixed)}.\n" if fixed else "No errors would be fixed.\n")
    return len(fixed)


def write_fix_report(run: CheckRun, out) -> None:
    """``--show-fixes``: the fixes applied (ruff's enumeration), then the fixes not applied and why."""
    applied = [r for r in run.results if r.written and r.fixed]
    if applied:
        out.write(f"\nFixed {counted(f.code for r in applied for f in r.fixed)}:\n")
        for r in applied:
            out.write(f"- {r.plan.path}:\n")
            for code, count in sorted(Counter(f.code for f in r.fixed).items()):
                out.write(f"    {count} × {code} ({RULES[code].name})\n")
            for f in r.fixed:
                assert f.fix is not None
                out.write(f"      line {f.line}: {f.fix.describe()}\n")
    pending = [(p, f) for p in run.plans for f in p.findings if f.fix is not None]
    if pending:
        out.write("\nNot fixed:\n" if applied else "\nFixes:\n")
        for p, f in pending:
            assert f.fix is not None
            state = ""
            if f.fix.applicable and not f.fix.enabled(run.options.unsafe):
                state = "needs --unsafe-fixes: "
            out.write(f"- {p.path}:{f.line}: {f.code} {state}{f.fix.describe()}\n")
