"""What is said about fixes: ruff's JSON ``fix`` of each finding, ``--diff``'s reasons and count,
``--show-fixes``' enumeration."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence

from ..checker import Finding
from ..model import Resolver, decode_source
from ..pipeline.cache import Cache
from ..pipeline.engine import MAX_FILE_BYTES, analyze_files, read_source
from ..rules.registry import RULES
from ..taxonomy import Taxonomy
from .apply import plan_source
from .diff import unified_diff
from .edits import fix_edits
from .outcome import FIXED_CODE, FIXED_CODES, CheckRun, FilePlan
from .text import _line_starts, _Tree


def fix_descriptions(plan: FilePlan, taxonomy: Taxonomy) -> dict[tuple[int, int], dict]:
    """ruff's JSON ``fix`` of each fixable finding of *plan*, by the finding's (line, col):
    ``applicability``, ``message`` and ``edits`` (each with the ``content`` to insert between
    ``location`` and ``end_location``, 1-based rows and columns in characters). Like each ruff fix,
    each stands alone: it carries the enum's import when the file lacks it. The text is parsed once
    per file, however many classes it has."""
    if plan.data is None or plan.model is None or not plan.inferences:
        return {}
    text, _ = decode_source(plan.data)
    tree = _Tree(text)
    starts = _line_starts(text)
    out = {}
    for f in plan.findings:
        inf = plan.inference_for(f)
        if inf is None or not inf.fixable:
            continue
        try:
            made = fix_edits(text, plan.model, taxonomy, [(inf.cls, inf.classification)], tree=tree)
            edits, (statement,) = made.edits, made.statements
        except Exception:  # a bug in the fixer costs the finding its fix description, not the run
            continue
        out[(f.line, f.col)] = {
            "applicability": "safe" if inf.safe else "unsafe",
            "message": f"Declare `{statement}`",
            "edits": [
                {
                    "content": e.inserted_text,
                    "location": _row_col(starts, e.start_pos),
                    "end_location": _row_col(starts, e.end_pos),
                }
                for e in edits
            ],
        }
    return out


def _row_col(starts: list[int], pos: int) -> dict:
    row = max(0, bisect.bisect_right(starts, pos) - 1)
    return {"row": row + 1, "column": pos - starts[row] + 1}


def describe_fixes(
    findings: Sequence[Finding],
    taxonomy: Taxonomy,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    resolvers: Mapping[str, Resolver] | None = None,
) -> Callable[[Finding], dict | None]:
    """Finding -> its ruff-style ``fix`` object (None when hwlint has no fix for it).

    Only the files with a fixable finding are planned again: in parallel, and cached by content
    like the findings themselves, so a warm ``--output-format json`` run stays a warm run. A file
    in *resolvers* depends on other files: it is planned with the project's resolver, uncached.
    """
    resolvers = resolvers or {}
    paths = sorted({f.path for f in findings if f.code == FIXED_CODE and f.fix})
    linked = [p for p in paths if p in resolvers]
    paths = [p for p in paths if p not in resolvers]
    per_file = analyze_files(
        paths,
        taxonomy,
        _describe_analysis,
        "fix-descriptions",
        jobs,
        cache,
        max_bytes,
        list[tuple[int, int, dict]],
    )
    for path in linked:
        data = read_source(path, max_bytes)
        per_file.append(
            [] if isinstance(data, str) else _describe_plan(data, path, taxonomy, resolvers[path])
        )
        paths.append(path)
    table = {
        (path, line, col): desc
        for path, rows in zip(paths, per_file, strict=True)
        for line, col, desc in rows
    }
    return lambda f: table.get((f.path, f.line, f.col)) if f.code == FIXED_CODE else None


def _describe_analysis(path: str, data: bytes | str, taxonomy: Taxonomy) -> list[tuple[int, int, dict]]:
    return [] if isinstance(data, str) else _describe_plan(data, path, taxonomy)


def _describe_plan(
    data: bytes, path: str, taxonomy: Taxonomy, resolver: Resolver | None = None
) -> list[tuple[int, int, dict]]:
    plan = plan_source(data, path, taxonomy, resolver=resolver)
    return [(line, col, desc) for (line, col), desc in fix_descriptions(plan, taxonomy).items()]


def write_diff(run: CheckRun, out, err) -> int:
    """``--diff``, as ruff does it: the diff on *out*, the count on *err*. Returns that count."""
    out.write("".join(unified_diff(r) for r in run.results))
    for r in run.results:  # the reason for every declaration the diff adds, for the reviewer
        if r.changed:
            for f, inf in zip(r.fixed, r.applied, strict=True):
                err.write(f"{r.plan.path}:{f.line}: {inf.cls.name}: {inf.describe()}\n")
    n = run.would_fix
    err.write(f"Would fix {n} error{'s' if n != 1 else ''}.\n" if n else "No errors would be fixed.\n")
    return n


def write_fix_report(run: CheckRun, out) -> None:
    """``--show-fixes``: the fixes applied (ruff's enumeration), then what hwlint inferred per class."""
    applied = [r for r in run.results if r.written and r.applied]
    if applied:
        n = sum(len(r.fixed) for r in applied)
        out.write(f"\nFixed {n} error{'s' if n != 1 else ''}:\n")
        for r in applied:
            out.write(f"- {r.plan.path}:\n")
            for code in FIXED_CODES:
                count = sum(1 for f in r.fixed if f.code == code)
                if count:
                    out.write(f"    {count} × {code} ({RULES[code].name})\n")
            for inf in r.applied:
                out.write(f"      {inf.cls.name}: {inf.describe()}\n")
    pending = [(p, f, p.inference_for(f)) for p in run.plans for f in p.findings if p.inference_for(f)]
    if pending:
        out.write("\nNot fixed:\n" if applied else "\nFixes:\n")
        for p, f, inf in pending:
            assert inf is not None
            state = "" if inf.fixable else "no fix: "
            if inf.fixable and not inf.safe and not run.options.unsafe:
                state = "needs --unsafe-fixes: "
            out.write(f"- {p.path}:{f.line}: {inf.cls.name}: {state}{inf.describe()}\n")
