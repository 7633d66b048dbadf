"""``hwselect diff``'s words: the text listing and the pull-request comment (markdown)."""

from __future__ import annotations

from collections import Counter

from .diff import CAUSES, Change, Diff, RunnerDiff
from .notices import plural

#: The comment is at most this many lines however big the change (under 30): past it, causes are summed.
MARKDOWN_LINES = 29


def text_lines(diff: Diff, verbose: bool = False) -> list[str]:
    """Per runner: counts, then each cause with its tests (``+`` entered, ``-`` left, ``~`` renamed).
    Without *verbose*, a cause with many tests lists them by class."""
    out = [f"hwselect diff {diff.base} .. {diff.head}"]
    for old, new, kind, score in diff.renames:
        out.append(f"  {kind}: {old[0]}::{old[1]} -> {new[0]}::{new[1]} ({score:.0%} of tests shared)")
    for rd in diff.runners:
        out.append(_headline(rd))
        for cause, changes in _grouped(rd):
            out.append(f"  {cause}: {_counts(changes)} ({CAUSES[cause]})")
            out += [f"    {line}" for line in _entries(changes, verbose)]
    return out


def _headline(rd: RunnerDiff) -> str:
    return (
        f"{rd.runner} (device {rd.device}): {rd.before:,} -> {rd.after:,} tests; "
        f"+{len(rd.added):,} -{len(rd.removed):,} ~{len(rd.renamed):,} renamed"
    )


def _grouped(rd: RunnerDiff) -> list[tuple[str, list[tuple[str, Change]]]]:
    groups: dict[str, list[tuple[str, Change]]] = {}
    for sign, changes in (("+", rd.added), ("-", rd.removed), ("~", rd.renamed)):
        for c in changes:
            groups.setdefault(c.cause, []).append((sign, c))
    return [(k, groups[k]) for k in CAUSES if k in groups]


def _counts(changes: list[tuple[str, Change]]) -> str:
    n = Counter(sign for sign, _ in changes)
    return " ".join(f"{sign}{n[sign]:,}" for sign in "+-~" if n[sign])


def _entries(changes: list[tuple[str, Change]], verbose: bool, limit: int = 20) -> list[str]:
    if verbose or len(changes) <= limit:
        out = []
        for sign, c in changes:
            line = f"{sign} {c.old_nodeid} -> {c.nodeid}" if c.old_nodeid else f"{sign} {c.nodeid}"
            out.append(line + (f"  [{c.detail}]" if c.detail else ""))
        return out
    return [f"{sign} {cls}: {plural(n, 'test')}" for (sign, cls), n in _by_class(changes).most_common()]


def _by_class(changes: list[tuple[str, Change]]) -> Counter:
    return Counter((sign, c.nodeid.rpartition("::")[0]) for sign, c in changes)


def markdown(diff: Diff) -> str:
    """A pull-request comment: a table of runners, then each runner's causes with the classes they
    move; never more than :data:`MARKDOWN_LINES` lines (what does not fit is summed up)."""
    head = [
        "### hwselect diff",
        "",
        "| runner | before | after | added | removed | renamed |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in diff.runners:
        counts = (r.before, r.after, len(r.added), len(r.removed), len(r.renamed))
        head.append(f"| {r.runner} | " + " | ".join(f"{n:,}" for n in counts) + " |")
    if diff.renames:
        head.append("")
        head.append(f"Renamed or moved: {plural(len(diff.renames), 'class', 'classes')}")
    body: list[str] = []
    for rd in diff.runners:
        groups = _grouped(rd)
        if not groups:
            continue
        body.append("")
        body.append(f"**{rd.runner}**")
        for cause, changes in groups:
            classes = _by_class(changes).most_common()
            top = ", ".join(f"`{cls.rpartition('::')[2]}` {sign}{n}" for (sign, cls), n in classes[:3])
            more = f" and {len(classes) - 3} more classes" if len(classes) > 3 else ""
            body.append(f"- {cause} {_counts(changes)}: {top}{more}")
    if len(head) + len(body) <= MARKDOWN_LINES:
        return "\n".join(head + body) + "\n"
    room = max(MARKDOWN_LINES - len(head) - 2, 0)
    kept = body[:room]
    while kept and not kept[-1].startswith("- "):
        kept.pop()  # never end on a runner's name without its causes
    lines = [*head, *kept, "", f"_{_too_long(diff)}_"]
    return "\n".join(lines[:MARKDOWN_LINES]) + "\n"


def _too_long(diff: Diff) -> str:
    causes: Counter = Counter()
    for rd in diff.runners:
        for cause, changes in _grouped(rd):
            causes[cause] += len(changes)
    order = list(CAUSES)
    ranked = sorted(causes.items(), key=lambda kv: (-kv[1], order.index(kv[0])))[:6]
    top = ", ".join(f"{cause} {n:,}" for cause, n in ranked)
    return f"Changes by cause over all runners: {top}. Run `hwselect diff` for the tests."
