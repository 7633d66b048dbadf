"""Renderings of a migration report: a terminal table, a pull-request comment, JSON.

Every renderer reads only the ``hwlint-report/1`` document (:meth:`hwlint.report.data.Report.to_json`),
so what a dashboard reads from the JSON is exactly what the table and the comment show.
The HTML page lives in :mod:`hwlint.report.html`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from ..words import arrow, changed_runners, number, plural, visible


def _rule_name(code: str) -> str:
    from ..rules.registry import RULES  # imported late: the CLI reads FORMATS while building its parser

    return RULES[code].name


# -- shared wording ---------------------------------------------------------------------------


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def _headline(doc: dict) -> list[str]:
    """The four headline facts: classified share, size, never-run tests, findings."""
    t = doc["total"]
    parts = [
        f"{number(t['classified'])} of {plural(t['classes'], 'test class')} classified "
        f"({_percent(t['classified_percent'])})",
        f"{plural(t['tests'], 'test method')} in {plural(t['files'], 'file')}",
        f"{plural(t['never_run_classes'], 'class')} ({plural(t['never_run_tests'], 'test')}) never run",
        plural(t["findings_total"], "finding"),
    ]
    return parts


def _status_columns(doc: dict) -> list[tuple[str, Callable[[dict], object]]]:
    """(header, getter) of the per-classification columns, then unclassified / unknown / unresolvable."""
    cols: list[tuple[str, Callable[[dict], object]]] = [
        (name, lambda s, name=name: s["by_classification"][name])
        for name in doc["taxonomy"]["classifications"]
    ]
    cols += [(k, lambda s, k=k: s[k]) for k in ("unclassified", "unknown", "unresolvable")]
    return cols


def _change_counts(cmp: dict) -> str:
    return (
        f"{plural(len(cmp['newly_classified']), 'class')} newly classified, "
        f"{number(len(cmp['declassified']))} declassified, {number(len(cmp['reclassified']))} reclassified; "
        f"{number(len(cmp['new_classes']))} new, {number(len(cmp['removed_classes']))} removed"
    )


def _cell(value: object) -> str:
    """A table cell: a count written as every count of a report is (``1,912``)."""
    return number(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _compare_lines(cmp: dict) -> list[str]:
    """The compare headline, one fact per line."""
    t = cmp["total"]
    return [
        f"classified: {arrow(t['classified'], _cell)} of {arrow(t['classes'], _cell)} classes "
        f"({arrow(t['classified_percent'], _percent)})",
        f"tests never run: {arrow(t['never_run_tests'], _cell)}",
        f"findings: {arrow(t['findings_total'], _cell)} ({number(len(cmp['new_findings']))} new, "
        f"{number(len(cmp['fixed_findings']))} fixed)",
        f"classes: {_change_counts(cmp)}",
    ] + [
        f"tests on {r['runner']}: {arrow([r['before'], r['after']], _cell)} (+{number(r['added'])} "
        f"-{number(r['removed'])} ~{number(r['renamed'])} renamed; hwselect diff)"
        for r in cmp.get("tests", ())
    ]


# -- table ------------------------------------------------------------------------------------


def _align(align: str, n: int) -> str:
    """*align* ("l"/"r" per column) padded to *n* columns with its last letter."""
    return (align + align[-1] * n)[:n]


def _grid(headers: Sequence[str], rows: Sequence[Sequence[object]], align: str = "lr") -> list[str]:
    """Columns padded to their widest cell, aligned left ("l") or right ("r") per *align*."""
    align = _align(align, len(headers))
    cells = [[str(c) for c in headers], *[[_cell(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for r in cells:
        parts = [
            c.ljust(w) if align[i] == "l" else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        out.append("  ".join(parts).rstrip())
    return out


def render_table(doc: dict, needs: Sequence[dict] = (), **_: object) -> str:
    """The report for a terminal: headline, directories, runners, never-run classes, findings."""
    lines = [f"hwlint report: {doc['root']}", "  " + " · ".join(_headline(doc)), ""]
    if doc["compare"]:
        lines.append(f"Since {doc['compare']['against']}:")
        lines += ["  " + line for line in _compare_lines(doc["compare"])] + [""]
    cols = _status_columns(doc)
    lines += _grid(
        ["Directory", "Files", "Classes", "Tests", "Classified", *[h for h, _ in cols], "Findings"],
        [
            [
                "  " * d["depth"] + d["path"],
                d["files"],
                d["classes"],
                d["tests"],
                _percent(d["classified_percent"]),
                *[get(d) for _, get in cols],
                d["findings_total"],
            ]
            for d in doc["directories"]
        ],
    )
    lines.append("")
    t = doc["total"]
    if t.get("hardcoded_device_classes") or t.get("generalizable_classes") or t["findings"].get("HWC302"):
        # the vendor's view: how much more of the suite could run on every accelerator
        lines.append(
            "Every accelerator: classes that hard-code a device (HWC301 findings beside), one-device"
        )
        lines.append(
            "classes HWC302's fix makes device-generic (HWC302 findings beside: some are held back by a line)"
        )
        lines += _grid(
            ["Directory", "Hard-coded", "HWC301", "Generalizable", "HWC302"],
            [
                [
                    "  " * d["depth"] + d["path"],
                    d["hardcoded_device_classes"],
                    d["findings"].get("HWC301", 0),
                    d["generalizable_classes"],
                    d["findings"].get("HWC302", 0),
                ]
                for d in doc["directories"]
                if d["hardcoded_device_classes"] or d["generalizable_classes"] or d["findings"].get("HWC302")
            ],
        )
        lines.append("")
    lines += _grid(
        ["Runner", "Device", "Runs", "Classes", "Tests", "Files"],
        [
            [r["name"], r["device"], ", ".join(r["runs"]), r["classes"], r["tests"], r["files"]]
            for r in doc["runners"]
        ],
        "lllr",
    )
    never = doc["never_run"]
    lines += ["", f"Never run by any runner: {plural(len(never), 'class')}"]
    lines += [
        f"  {c['path']}:{c['line']}: {c['name']} ({plural(c['tests'], 'test')}): {c['never_run']}"
        for c in never
    ]
    findings = doc["total"]["findings"]
    lines += ["", f"Findings by rule: {number(doc['total']['findings_total'])}"]
    if findings:
        lines += ["  " + line for line in _grid(["Count", "Code", "Rule"], _rule_rows(findings), "rl")]
        lines += ["", "Findings by directory:"]
        lines += ["  " + line for line in _grid(*_findings_by_directory(doc, str))]
    if needs:
        lines += ["", f"Left to a person: {plural(len(needs), 'finding')}, each with what to do"]
        for n in needs:
            lines += [
                f"  {n['path']}:{n['line']}:{n['col']}: {n['code']} {n['message']}",
                f"    {n['reason']}",
            ]
    if doc["compare"]:
        lines += _table_changes(doc["compare"])
    # paths, class names and messages come from the pull request: escaped as in `hwlint check`
    return "\n".join(map(visible, lines)) + "\n"


def _findings_by_directory(doc: dict, name: Callable[[str], str]) -> tuple[list[str], list[list[object]]]:
    """A directory x rule table of finding counts, over the codes found anywhere."""
    codes = sorted(doc["total"]["findings"])
    rows = [[name(d["path"]), *[d["findings"].get(c, 0) for c in codes]] for d in doc["directories"]]
    return ["Directory", *codes], rows


def _rule_rows(findings: dict[str, int]) -> list[list[object]]:
    """Most frequent first, as `hwlint check --statistics` orders them."""
    return [
        [n, code, _rule_name(code)] for code, n in sorted(findings.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def _table_changes(cmp: dict) -> list[str]:
    lines = []
    for title, key in _CHANGE_LISTS:
        if cmp[key]:
            lines += ["", f"{title}:"] + [f"  {_class_change(c)}" for c in cmp[key]]
    for title, key in (("New findings", "new_findings"), ("Fixed findings", "fixed_findings")):
        if cmp[key]:
            lines += ["", f"{title}:"] + [
                f"  {f['path']}:{f['line']}: {f['code']} {f['message']}" for f in cmp[key]
            ]
    if cmp["directories"]:
        lines += ["", "Directories that changed:"]
        lines += ["  " + line for line in _grid(*_directory_change_table(cmp))]
    if changed_runners(cmp):
        lines += ["", "Runners that changed:"]
        lines += ["  " + line for line in _grid(*_runner_change_table(cmp))]
    return lines


def _runner_change_table(cmp: dict) -> tuple[list[str], list[list[str]]]:
    rows = [[r["name"], arrow(r["classes"]), arrow(r["tests"])] for r in changed_runners(cmp)]
    return ["Runner", "Classes", "Tests"], rows


_CHANGE_LISTS = (
    ("Newly classified", "newly_classified"),
    ("No longer classified", "declassified"),
    ("Classification changed", "reclassified"),
    ("New test classes", "new_classes"),
    ("Removed test classes", "removed_classes"),
)


def _class_change(c: dict) -> str:
    change = f": {c['before']} → {c['after']}" if "before" in c else ""
    return f"{c['path']}:{c['line']}: {c['name']}{change}"


def _directory_change_table(cmp: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["Directory", "Classes", "Classified", "Tests never run", "Findings"]
    rows = [
        [
            d["path"],
            arrow(d["classes"]),
            arrow(d["classified_percent"], _percent),
            arrow(d["never_run_tests"]),
            arrow(d["findings_total"]),
        ]
        for d in cmp["directories"]
    ]
    return headers, rows


# -- markdown ---------------------------------------------------------------------------------


def _md_cell(value: object) -> str:
    return _cell(value).replace("|", "\\|").replace("\n", " ")


# ASCII punctuation Markdown may read as syntax or HTML ("|" is a table's business: _md_cell)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>~&])")


def _md_text(value: object) -> str:
    """Text as Markdown that shows exactly it, in a table cell or after a list marker: no emphasis,
    no code, no link, no HTML."""
    return _MD_SPECIAL.sub(r"\\\1", visible(str(value)))


def _md_message(message: str) -> str:
    """A finding's message: its `quoted` names as code, the rest as text (all of it as code when
    the backticks do not pair up, since a quoted value may itself hold one)."""
    parts = message.split("`")
    if len(parts) % 2 == 0:
        return _md_code(message)
    return "".join(_md_code(p) if i % 2 else _md_text(p) for i, p in enumerate(parts))


def _md_where(item: dict) -> str:
    return _md_code(f"{item['path']}:{item['line']}")


def _md_code(value: object) -> str:
    """*value* as one inline code span, whatever backticks it holds (CommonMark's rule: a fence
    longer than any run of backticks inside, padded with spaces when it starts or ends with one)."""
    text = visible(str(value))
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# A GitHub comment holds at most 65,536 characters: long lists are cut, the JSON and HTML have them all.
MD_ROWS = 100


def _more(n: int) -> list[str]:
    return ["", f"*… and {n} more: see the JSON or HTML report.*"] if n > 0 else []


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[object]], align: str = "lr") -> list[str]:
    rule = ["---" if a == "l" else "---:" for a in _align(align, len(headers))]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows[:MD_ROWS]]
    return out + _more(len(rows) - MD_ROWS)


def _md_list(items: Sequence[str]) -> list[str]:
    return [f"- {item}" for item in items[:MD_ROWS]] + _more(len(items) - MD_ROWS)


def _details(summary: str, body: list[str]) -> list[str]:
    return ["", f"<details><summary>{summary}</summary>", "", *body, "", "</details>"]


def render_markdown(doc: dict, needs: Sequence[dict] = (), **_: object) -> str:
    """A pull-request comment: headline and runners in view, everything long inside <details>."""
    head = _headline(doc)
    lines = [
        f"### hwlint report: {_md_code(doc['root'])}",
        "",
        f"**{head[0]}** · {head[1]} · **{head[2]}** · {head[3]}",
    ]
    if doc["compare"]:
        lines += _md_compare(doc["compare"])
    runners = [
        [_md_text(r["name"]), _md_text(r["device"]), _md_text(", ".join(r["runs"])), r["classes"], r["tests"]]
        for r in doc["runners"]
    ]
    lines += ["", *_md_table(["Runner", "Device", "Runs", "Classes", "Tests"], runners, "lllr")]
    never = doc["never_run"]
    if never:
        summary = (
            f"Never run by any runner: {plural(len(never), 'class')}, "
            f"{plural(doc['total']['never_run_tests'], 'test method')}"
        )
        rows = [
            [_md_where(c) + " " + _md_code(c["name"]), c["tests"], _md_text(c["never_run"])] for c in never
        ]
        lines += _details(summary, _md_table(["Class", "Tests", "Why"], rows, "lrl"))
    cols = _status_columns(doc)
    rows = [
        [
            _md_code(d["path"]),
            d["files"],
            d["classes"],
            d["tests"],
            _percent(d["classified_percent"]),
            *[get(d) for _, get in cols],
            d["findings_total"],
        ]
        for d in doc["directories"]
    ]
    headers = ["Directory", "Files", "Classes", "Tests", "Classified", *[h for h, _ in cols], "Findings"]
    lines += _details(f"Directories ({number(len(rows))})", _md_table(headers, rows))
    findings = doc["total"]["findings"]
    if findings:
        rows = [[_md_code(code), _md_text(_rule_name(code)), n] for n, code, _ in _rule_rows(findings)]
        lines += _details(
            f"Findings by rule ({number(doc['total']['findings_total'])})",
            [
                *_md_table(["Rule", "Name", "Count"], rows, "llr"),
                "",
                *_md_table(*_findings_by_directory(doc, _md_code)),
            ],
        )
    if needs:
        rows = [
            [_md_where(n), _md_code(n["code"]), _md_message(n["message"]), _md_message(n["reason"])]
            for n in needs
        ]
        lines += _details(
            f"Left to a person ({number(len(needs))})",
            _md_table(["Where", "Rule", "Finding", "What to do"], rows, "llll"),
        )
    return "\n".join(lines) + "\n"


def _md_compare(cmp: dict) -> list[str]:
    lines = ["", f"**Since {_md_code(cmp['against'])}:**", ""]
    lines += [f"- {_md_text(line)}" for line in _compare_lines(cmp)]
    body: list[str] = []
    for title, key in _CHANGE_LISTS:
        if cmp[key]:
            body += [f"**{title}**", "", *_md_list([_md_code(_class_change(c)) for c in cmp[key]]), ""]
    for title, key in (("New findings", "new_findings"), ("Fixed findings", "fixed_findings")):
        if cmp[key]:
            body += [f"**{title}**", ""]
            body += _md_list(
                [f"{_md_where(f)} {_md_code(f['code'])} {_md_message(f['message'])}" for f in cmp[key]]
            )
            body.append("")
    if cmp["directories"]:
        headers, rows = _directory_change_table(cmp)
        body += [*_md_table(headers, [[_md_code(r[0]), *r[1:]] for r in rows]), ""]
    if changed_runners(cmp):
        headers, rows = _runner_change_table(cmp)
        body += _md_table(headers, [[_md_text(r[0]), *r[1:]] for r in rows])
    while body and body[-1] == "":
        body.pop()
    return lines + (_details("What changed", body) if body else [])


# -- json -------------------------------------------------------------------------------------


def render_json(doc: dict, **_: object) -> str:
    return json.dumps(doc, indent=2) + "\n"


def render_html(doc: dict, output: str | None = None, base_url: str | None = None, **_: object) -> str:
    """The HTML page (:mod:`hwlint.report.html`, imported when asked for)."""
    from .html import render_html as page

    return page(doc, output, base_url)


#: Format name -> renderer ``(doc, output=FILE or None, base_url=URL or None) -> text``: the one
#: registry of ``hwlint report --format``, read by the parser's choices and by the command.
RENDERERS: dict[str, Callable[..., str]] = {
    "table": render_table,
    "markdown": render_markdown,
    "json": render_json,
    "html": render_html,
}
