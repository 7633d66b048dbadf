"""The migration report as one self-contained HTML page.

Everything is inline: the stylesheet, the two SVG charts (drawn here, not by a script) and a small
script that sorts tables when a column header is clicked. The page fetches nothing, so it can be
attached to a CI run, mailed, or opened from disk. Like the other renderers it reads only the
``hwlint-report/1`` document.

Colours follow the Okabe-Ito palette, which stays distinguishable under the common forms of colour
blindness; every chart segment also carries a text title, and every number is in a table as well.
"""

from __future__ import annotations

import base64
import hashlib
import html
import os
from collections.abc import Callable, Sequence
from urllib.parse import quote

from ..rules.registry import RULES
from ..words import arrow, changed_runners, noun, number, plural, share, visible

# Okabe-Ito, in an order that keeps neighbouring classifications apart; vermillion is kept for
# "unclassified", the state the report exists to make visible.
PALETTE = ("#0072B2", "#009E73", "#56B4E9", "#E69F00", "#CC79A7", "#F0E442", "#000000")
EXTRA = ("#6A3D9A", "#A6761D", "#1B9E77", "#666666")
STATUS_COLOURS = {"unclassified": "#D55E00", "unknown": "#7F7F7F", "unresolvable": "#BDBDBD"}


def colours(classifications: Sequence[str]) -> dict[str, str]:
    """A colour for every classification of the taxonomy, then for the three unclassified states."""
    cycle = PALETTE + EXTRA
    out = {name: cycle[i % len(cycle)] for i, name in enumerate(classifications)}
    out.update(STATUS_COLOURS)
    return out


def render_html(doc: dict, output: str | None = None, base_url: str | None = None, **_: object) -> str:
    """The page; links to sources are relative to *output*'s directory (the current one by default),
    or with *base_url* absolute: *base_url* followed by the file's path in its git work tree (the
    current directory outside one), so that the page works as a CI artifact."""
    names = list(doc["taxonomy"]["classifications"])
    palette = colours(names)
    link = _linker(output, base_url)
    t = doc["total"]
    directories, dir_note = _shown_directories(doc)
    # one label column for both charts, so that their bars line up
    labels = [_dir_label(d, doc) for d in directories] + [r["name"] for r in doc["runners"]]
    label_w = min(360, 30 + 7.2 * max(map(len, labels), default=4))
    sections = [
        _cards(doc),
        _compare(doc["compare"], link) if doc["compare"] else "",
        _section(
            "chart-classes",
            "Classifications by directory",
            "Share of test classes per classification; the number is the directory's test classes."
            + dir_note,
            _legend([*names, *STATUS_COLOURS], palette)
            + _stacked_chart(
                "chart-classes",
                [(_dir_label(d, doc), d["depth"], _class_segments(d, names)) for d in directories],
                palette,
                label_w,
                normalise=True,
                unit="classes",
            ),
        ),
        _section(
            "chart-runners",
            "Tests per runner",
            "Test methods each runner collects and runs, by classification (before dtype and "
            "parametrize expansion).",
            _legend(names, palette)
            + _stacked_chart(
                "chart-runners",
                [(r["name"], 0, list(r["tests_by_classification"].items())) for r in doc["runners"]],
                palette,
                label_w,
                normalise=False,
                unit="tests",
            ),
        ),
        _section(
            "directories",
            "Directories",
            "Counts include every directory below." + dir_note,
            _directory_table(doc, directories, names),
        ),
        _section("runners", "Runners", "What each runner of the taxonomy selects.", _runner_table(doc)),
        _section(
            "attention",
            "Classes to look at",
            "Test classes that are not classified, or that no runner ever runs "
            f"({plural(t['never_run_classes'], 'class')}, {plural(t['never_run_tests'], 'test method')} "
            "never run).",
            _attention_table(doc, link),
        ),
        _section(
            "findings",
            "Findings by rule",
            "From hwlint check, with the project's configuration.",
            _findings_table(doc),
        ),
    ]
    title = f"hwlint report: {doc['root']}"
    return _PAGE.format(
        title=escape(title),
        css=_CSS,
        script=_SCRIPT,
        script_hash=_script_hash(),
        body="\n".join(s for s in sections if s),
        footer=escape(
            f"hwlint {doc['hwlint_version']} · {doc['schema']} · taxonomy {doc['taxonomy']['digest'][:12]}"
        ),
    )


# -- pieces -----------------------------------------------------------------------------------

# Above this many directories the page lists the top level only, unless --depth asked for more: the
# per-directory chart must not push the runners far down the page.
LARGE_TREE = 30


def _shown_directories(doc: dict) -> tuple[list[dict], str]:
    """The directories the page lists, and a note saying what was left out.

    Directories without test classes are never listed (an empty row says nothing); on a large tree
    without an explicit ``--depth``, only the root and the level below it are.
    """
    every = doc["directories"]
    shown = [d for d in every if d["classes"]]
    notes = []
    if doc.get("depth") is None and len(shown) > LARGE_TREE:
        shown = [d for d in shown if d["depth"] <= 1]
        notes.append(
            f"the top level only ({share(len(shown), len(every))} directories; --depth N lists more)"
        )
    empty = sum(1 for d in every if not d["classes"])
    if empty:
        notes.append(f"{plural(empty, 'directory')} without test classes left out")
    return shown, (" Shown: " + "; ".join(notes) + ".") if notes else ""


def _dir_label(d: dict, doc: dict) -> str:
    """A directory's path relative to the report's root (the root itself by its own path)."""
    root = doc["directories"][0]["path"] if doc["directories"] else ""
    path = d["path"]
    if d["depth"] and root and path.startswith(root.rstrip("/") + "/"):
        return path[len(root.rstrip("/")) + 1 :]
    return path


def _script_hash() -> str:
    """The CSP source that lets the page's own script run, and no other: injected markup cannot
    carry a script with the same hash."""
    digest = hashlib.sha256(_SCRIPT.encode()).digest()
    return f"sha256-{base64.b64encode(digest).decode()}"


def escape(text: str) -> str:
    """*text* for the page: :func:`~hwlint.words.visible` (a name's controls, invisible characters
    and bytes that are not UTF-8 as escapes), then HTML-escaped."""
    return html.escape(visible(text))


def _linker(output: str | None, base_url: str | None = None) -> Callable[[str, int], str]:
    if base_url:
        base = _work_tree() or os.getcwd()
        prefix = base_url if base_url.endswith("/") else base_url + "/"
    else:
        base = os.path.dirname(os.path.abspath(output)) if output else os.getcwd()
        prefix = ""

    def link(path: str, line: int) -> str:
        rel = os.path.relpath(os.path.abspath(path), base).replace(os.sep, "/")
        return f"{prefix}{quote(os.fsencode(rel))}#L{line}"  # a byte that is not UTF-8 as %XX

    return link


def _work_tree() -> str | None:
    """The top of the git work tree holding the current directory (what a forge's
    ``blob/<sha>/`` URL is relative to), or None. Found without running git
    (:func:`hwlint.effects.work_tree`): git would take a directory of the checkout that looks like
    a repository for one, and run what its configuration says."""
    from ..effects import work_tree

    found = work_tree(os.getcwd())
    return found[0] if found else None


def _source_link(link: Callable[[str, int], str], path: str, line: int) -> str:
    """``path:line`` linking to the file, with ``#L<line>`` for viewers that understand it."""
    return (
        f'<a href="{escape(link(path, line))}"><code class="path">{_path_html(f"{path}:{line}")}</code></a>'
    )


def _path_html(path: str) -> str:
    """*path* that a narrow cell may break after a ``/``, or after a ``_`` in a long component
    (``area_00_with_a_rather_long_name``), and nowhere else: each piece is unbreakable, so no name
    is ever cut inside a word."""
    pieces: list[str] = []
    parts = path.split("/")
    for i, part in enumerate(parts):
        part = part + "/" if i < len(parts) - 1 else part
        if len(part) > LONG_COMPONENT and "_" in part.strip("_"):
            words = part.split("_")
            pieces += [w + "_" for w in words[:-1]] + [words[-1]]
        else:
            pieces.append(part)
    return "<wbr>".join(f'<span class="pc">{escape(p)}</span>' for p in pieces if p)


#: path components longer than this may break after an underscore
LONG_COMPONENT = 24


def _section(ident: str, title: str, note: str, body: str) -> str:
    return (
        f'<section id="{ident}-section" aria-labelledby="{ident}-title">'
        f'<h2 id="{ident}-title">{escape(title)}</h2><p class="note">{escape(note)}</p>{body}</section>'
    )


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}%"


def _cards(doc: dict) -> str:
    t = doc["total"]
    pct = t["classified_percent"]
    cards = [
        (
            "Classified",
            _pct(pct),
            f"{share(t['classified'], t['classes'])} {noun(t['classes'], 'test class')}",
            _progress(pct, large=True),
        ),
        ("Test methods", number(t["tests"]), f"in {plural(t['files'], 'file')}", ""),
        (
            "Never run",
            number(t["never_run_tests"]),
            f"{noun(t['never_run_tests'], 'test method')} in {plural(t['never_run_classes'], 'class')} "
            "no runner runs",
            "",
        ),
        ("Findings", number(t["findings_total"]), plural(len(t["findings"]), "rule"), ""),
    ]
    html = "".join(
        f'<div class="card"><div class="label">{escape(label)}</div><div class="value">{escape(value)}</div>'
        f'<div class="sub">{escape(sub)}</div>{extra}</div>'
        for label, value, sub, extra in cards
    )
    return (
        f'<header><h1>hwlint report <code class="path">{_path_html(doc["root"])}</code></h1></header>'
        f'<div class="cards" id="summary">{html}</div>'
    )


def _progress(pct: float | None, large: bool = False) -> str:
    value = 0 if pct is None else pct
    cls = "progress large" if large else "progress"
    return (
        f'<div class="{cls}" role="progressbar" aria-valuemin="0" aria-valuemax="100" '
        f'aria-valuenow="{value:g}" aria-label="classified"><div style="width:{value:g}%"></div></div>'
    )


def _legend(keys: Sequence[str], palette: dict[str, str]) -> str:
    items = "".join(
        f'<li><span class="swatch" style="background:{palette[k]}"></span>{escape(k)}</li>' for k in keys
    )
    return f'<ul class="legend">{items}</ul>'


def _class_segments(d: dict, names: Sequence[str]) -> list[tuple[str, int]]:
    return [(n, d["by_classification"][n]) for n in names] + [(k, d[k]) for k in STATUS_COLOURS]


def _stacked_chart(
    ident: str,
    rows: Sequence[tuple[str, int, Sequence[tuple[str, int]]]],
    palette: dict[str, str],
    label_w: float,
    normalise: bool,
    unit: str,
) -> str:
    """Horizontal stacked bars, one per row; *normalise* draws shares (every bar full width)."""
    width, row_h, bar_h, right = 1280, 28, 18, 56
    bar_w = width - label_w - right
    height = row_h * len(rows) + 8
    biggest = max((sum(v for _, v in segs) for _, _, segs in rows), default=0) or 1
    out = [
        f'<svg id="{ident}" class="chart" role="img" viewBox="0 0 {width:g} {height}" width="{width:g}" '
        f'height="{height}" aria-label="{escape(unit)} stacked bar chart" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, (label, _, segs) in enumerate(rows):
        y = 4 + i * row_h
        total = sum(v for _, v in segs)
        # a label too long for the column keeps its end, the part that tells directories apart
        fits = int((label_w - 14) / 7.2)
        shown = label if len(label) <= fits else "…" + label[-(fits - 1) :]
        out.append(
            f'<text x="{label_w - 10:g}" y="{y + bar_h / 2 + 4.5:g}" text-anchor="end" class="axis">'
            f"<title>{escape(label)}</title>{escape(shown)}</text>"
        )
        out.append(
            f'<rect x="{label_w:g}" y="{y}" width="{bar_w:g}" height="{bar_h}" class="track" rx="3"></rect>'
        )
        scale = bar_w / (total if normalise else biggest) if total else 0
        x = label_w
        for key, value in segs:
            if not value:
                continue
            w = value * scale
            pct = f" ({100 * value / total:.0f}%)" if total else ""
            out.append(
                f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{bar_h}" fill="{palette[key]}" '
                f'class="seg"><title>{escape(label)}: {escape(key)} {number(value)} {unit}{pct}</title>'
                "</rect>"
            )
            x += w
        end = label_w + bar_w if normalise else x
        out.append(
            f'<text x="{end + 8:.2f}" y="{y + bar_h / 2 + 4.5:g}" class="count">{number(total)}</text>'
        )
    out.append("</svg>")
    return "".join(out)


def _table(
    ident: str, headers: Sequence[tuple[str, str]], rows: Sequence[Sequence[tuple[str, object]]]
) -> str:
    """A sortable table. *headers*: (label, "num"|"text"); cells: (html, sort key)."""
    head = "".join(
        f'<th scope="col" class="{kind}" aria-sort="none"><button type="button">{escape(label)}</button></th>'
        for label, kind in headers
    )
    kinds = [' class="num"' if kind == "num" else "" for _, kind in headers]
    body = "".join(
        "<tr>"
        + "".join(
            f'<td{k} data-sort="{escape(str(key))}">{cell}</td>'
            for k, (cell, key) in zip(kinds, row, strict=True)
        )
        + "</tr>"
        for row in rows
    )
    if not rows:
        body = f'<tr><td colspan="{len(headers)}" class="empty">None</td></tr>'
    return (
        f'<div class="scroll"><table id="{ident}" class="sortable">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _num(value: int) -> tuple[str, object]:
    return (number(value) if value else '<span class="zero">0</span>'), value


def _count(value: object) -> str:
    return number(value) if isinstance(value, int) else str(value)


def _directory_table(doc: dict, directories: Sequence[dict], names: Sequence[str]) -> str:
    headers = [
        ("Directory", "text"),
        ("Files", "num"),
        ("Classes", "num"),
        ("Tests", "num"),
        ("Classified", "num"),
    ]
    headers += [(n, "num") for n in [*names, *STATUS_COLOURS]] + [("Never run", "num"), ("Findings", "num")]
    rows = []
    for order, d in enumerate(directories):
        pct = d["classified_percent"]
        path = (
            f'<span class="dir" style="padding-left:{d["depth"] * 1.1:g}em" title="{escape(d["path"])}">'
            f"{_path_html(_dir_label(d, doc))}</span>"
        )
        rows.append(
            [
                (path, f"{order:06d}"),
                _num(d["files"]),
                _num(d["classes"]),
                _num(d["tests"]),
                (
                    f'<div class="pct">{_progress(pct)}<span>{_pct(pct)}</span></div>',
                    -1 if pct is None else pct,
                ),
                *[_num(d["by_classification"][n]) for n in names],
                *[_num(d[k]) for k in STATUS_COLOURS],
                _num(d["never_run_tests"]),
                _num(d["findings_total"]),
            ]
        )
    return _table("directory-table", headers, rows)


def _runner_table(doc: dict) -> str:
    headers = [
        ("Runner", "text"),
        ("Device", "text"),
        ("Runs", "text"),
        ("Classes", "num"),
        ("Tests", "num"),
        ("Files", "num"),
        ("Not generated", "num"),
    ]
    rows = [
        [
            (f"<strong>{escape(r['name'])}</strong>", r["name"]),
            (escape(r["device"]), r["device"]),
            (escape(", ".join(r["runs"])), ", ".join(r["runs"])),
            _num(r["classes"]),
            _num(r["tests"]),
            _num(r["files"]),
            _num(r["not_generated"]),
        ]
        for r in doc["runners"]
    ]
    return _table("runner-table", headers, rows)


def _attention_table(doc: dict, link: Callable[[str, int], str]) -> str:
    headers = [
        ("Location", "text"),
        ("Class", "text"),
        ("Tests", "num"),
        ("State", "text"),
        ("Never run because", "text"),
    ]
    palette = colours(doc["taxonomy"]["classifications"])
    rows = []
    for order, c in enumerate(x for x in doc["classes"] if x["status"] != "classified" or x["never_run"]):
        state = c["classification"] if c["status"] == "classified" else c["status"]
        if c["status"] == "unknown":
            state = f"unknown ({c['classification']})"
        colour = palette.get(c["classification"] if c["status"] == "classified" else c["status"], "#999")
        rows.append(
            [
                (
                    _source_link(link, c["path"], c["line"]),
                    f"{order:06d}",
                ),
                (f"<code>{escape(c['name'])}</code>", c["name"]),
                _num(c["tests"]),
                (
                    f'<span class="state"><span class="swatch" style="background:{colour}"></span>'
                    f"{escape(state)}</span>",
                    state,
                ),
                (escape(c["never_run"] or "– (runs through a subclass)"), c["never_run"] or ""),
            ]
        )
    return _table("attention-table", headers, rows)


def _findings_table(doc: dict) -> str:
    findings = doc["total"]["findings"]
    rows = [
        [(f"<code>{escape(code)}</code>", code), (escape(RULES[code].name), RULES[code].name), _num(n)]
        for code, n in sorted(findings.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return _table("findings-table", [("Rule", "text"), ("Name", "text"), ("Count", "num")], rows)


def _compare(cmp: dict, link: Callable[[str, int], str]) -> str:
    """The page's "What changed" section (``--compare``): the headline facts before and after, then
    the classes reclassified, new and removed, the new and fixed findings, and the directories and
    runners that changed. Long because it is a template: each part is a few lines of markup, in
    the order the page shows them."""
    t = cmp["total"]
    facts = [
        ("Classified", arrow(t["classified_percent"], _pct)),
        ("Test classes", arrow(t["classes"], _count)),
        ("Tests never run", arrow(t["never_run_tests"], _count)),
        (
            "Findings",
            f"{arrow(t['findings_total'], _count)} "
            f"({number(len(cmp['new_findings']))} new, {number(len(cmp['fixed_findings']))} fixed)",
        ),
    ]
    parts = ['<dl class="facts">']
    parts += [f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in facts]
    parts.append("</dl>")
    lists = (
        ("Newly classified", "newly_classified"),
        ("No longer classified", "declassified"),
        ("Classification changed", "reclassified"),
        ("New test classes", "new_classes"),
        ("Removed test classes", "removed_classes"),
    )
    for title, key in lists:
        if cmp[key]:
            items = "".join(
                f"<li>{_source_link(link, c['path'], c['line'])} <code>{escape(c['name'])}</code>"
                + (f" {escape(str(c['before']))} → {escape(str(c['after']))}" if "before" in c else "")
                + "</li>"
                for c in cmp[key]
            )
            parts.append(
                f"<h3>{escape(title)} ({number(len(cmp[key]))})</h3><ul class='changes'>{items}</ul>"
            )
    for title, key in (("New findings", "new_findings"), ("Fixed findings", "fixed_findings")):
        if cmp[key]:
            items = "".join(
                f"<li>{_source_link(link, f['path'], f['line'])} "
                f"<code>{escape(f['code'])}</code> {escape(f['message'])}</li>"
                for f in cmp[key]
            )
            parts.append(f"<h3>{title} ({number(len(cmp[key]))})</h3><ul class='changes'>{items}</ul>")
    if cmp["directories"]:
        rows = [
            [
                (escape(d["path"]), d["path"]),
                (escape(arrow(d["classes"], _count)), d["classes"][1] or 0),
                (escape(arrow(d["classified_percent"], _pct)), d["classified_percent"][1] or 0),
                (escape(arrow(d["never_run_tests"], _count)), d["never_run_tests"][1] or 0),
                (escape(arrow(d["findings_total"], _count)), d["findings_total"][1] or 0),
            ]
            for d in cmp["directories"]
        ]
        headers = [
            ("Directory", "text"),
            ("Classes", "num"),
            ("Classified", "num"),
            ("Never run", "num"),
            ("Findings", "num"),
        ]
        parts.append("<h3>Directories that changed</h3>" + _table("compare-table", headers, rows))
    if changed_runners(cmp):
        rows = [
            [
                (escape(r["name"]), r["name"]),
                (escape(arrow(r["classes"], _count)), r["classes"][1] or 0),
                (escape(arrow(r["tests"], _count)), r["tests"][1] or 0),
            ]
            for r in changed_runners(cmp)
        ]
        headers = [("Runner", "text"), ("Classes", "num"), ("Tests", "num")]
        parts.append("<h3>Runners that changed</h3>" + _table("compare-runner-table", headers, rows))
    return _section(
        "compare", f"Since {cmp['against']}", "What changed since the earlier report.", "".join(parts)
    )


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy"
  content="default-src 'none'; style-src 'unsafe-inline'; script-src '{script_hash}'">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<main>
{body}
</main>
<footer>{footer}</footer>
<script>{script}</script>
</body>
</html>
"""

_CSS = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --panel: #f6f8fa;
  --accent: #0072B2; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial,
  sans-serif; }
main { max-width: 1400px; margin: 0 auto; padding: 28px 28px 8px; }
h1 { font-size: 24px; font-weight: 600; margin: 0 0 18px; }
h1 code { font-size: 22px; background: var(--panel); padding: 1px 8px; border-radius: 6px; }
h2 { font-size: 18px; font-weight: 600; margin: 0 0 2px; }
h3 { font-size: 14px; font-weight: 600; margin: 16px 0 6px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 12.5px; }
section { margin: 0 0 30px; }
.note { color: var(--muted); margin: 0 0 12px; }
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 14px; margin-bottom: 30px; }
.card { border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; background: var(--bg); }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 30px; font-weight: 650; line-height: 1.25; font-variant-numeric: tabular-nums; }
.card .sub { color: var(--muted); font-size: 13px; }
.progress { height: 8px; background: #e6eaef; border-radius: 4px; overflow: hidden; min-width: 40px;
  flex: 1; }
.progress > div { height: 100%; background: var(--accent); border-radius: 4px; }
.progress.large { height: 10px; margin-top: 10px; }
.pct { display: flex; align-items: center; gap: 6px; min-width: 92px; }
.pct span { width: 44px; text-align: right; font-variant-numeric: tabular-nums; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 16px; padding: 0; margin: 0 0 10px;
  font-size: 13px; }
.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 6px;
  vertical-align: -1px; box-shadow: inset 0 0 0 1px rgba(0,0,0,.15); }
.legend .swatch { margin-right: 0; }
.chart { max-width: 100%; height: auto; display: block; }
.chart .axis { font-size: 12.5px; fill: var(--fg); }
.chart .count { font-size: 12.5px; fill: var(--muted); font-variant-numeric: tabular-nums; }
.chart .track { fill: #eef1f4; }
.chart .seg { stroke: #fff; stroke-width: 1; }
.scroll { overflow-x: auto; border: 1px solid var(--line); border-radius: 10px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
/* cells wrap between words and after a path's slashes, never inside a name: a class name, a code,
   a path component or a state stays whole (a report kept as a CI artifact is read, and searched,
   by those names); numbers never wrap. A table wider than its card scrolls inside the card, so
   the page itself never scrolls sideways, at 1400 px or on a phone. */
th, td { padding: 5px 6px; border-bottom: 1px solid var(--line); text-align: left; white-space: normal; }
td { overflow-wrap: normal; word-break: normal; }
td.num, td[data-sort] .pct span { white-space: nowrap; overflow-wrap: normal; }
code, .pc, .state { white-space: nowrap; }
code.path { white-space: normal; }
li { overflow-wrap: normal; word-break: normal; }
tbody tr:last-child td { border-bottom: none; }
/* the first column stays in view when a wide table scrolls sideways */
th:first-child, td:first-child { position: sticky; left: 0; z-index: 1; background: inherit; }
th:first-child { z-index: 2; background: var(--panel); }
th { white-space: normal; vertical-align: bottom; }
tbody tr { background: var(--bg); }
tbody tr:nth-child(even) { background: #fafbfc; }
tbody tr:hover { background: #f0f6fc; }
th { background: var(--panel); font-weight: 600; font-size: 12px; position: sticky; top: 0; }
th.num, td.num { text-align: right; }
th button { all: unset; cursor: pointer; display: inline-flex; gap: 2px; align-items: center; }
th button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
th button::after { content: "↕"; color: #9aa5b1; font-size: 10px; }
th[aria-sort="ascending"] button::after { content: "▲"; color: var(--fg); }
th[aria-sort="descending"] button::after { content: "▼"; color: var(--fg); }
.zero { color: #9aa5b1; }
.empty { color: var(--muted); text-align: center; }
a { color: #0550ae; text-decoration: none; }
a:hover { text-decoration: underline; }
.facts { display: flex; flex-wrap: wrap; gap: 10px 32px; margin: 0 0 6px; }
.facts dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.facts dd { margin: 0; font-size: 17px; font-weight: 600; }
.changes { margin: 0; padding-left: 20px; }
footer { max-width: 1400px; margin: 0 auto; padding: 8px 28px 28px; color: var(--muted); font-size: 12px; }
@media (max-width: 900px) { .cards { grid-template-columns: repeat(2, 1fr); } }
@media (max-width: 480px) { main { padding: 16px 12px 8px; } .card .value { font-size: 24px; } }
"""

# Sort on click: numbers by value, text by locale; rows keep their original order as the tiebreak.
_SCRIPT = """
(function () {
  for (const table of document.querySelectorAll("table.sortable")) {
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.forEach((row, i) => { row.dataset.order = i; });
    for (const [col, th] of Array.from(table.tHead.rows[0].cells).entries()) {
      const numeric = th.classList.contains("num");
      if (numeric) { for (const row of rows) { if (row.cells[col]) row.cells[col].classList.add("num"); } }
      th.querySelector("button").addEventListener("click", () => {
        const dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
        for (const other of table.tHead.rows[0].cells) other.setAttribute("aria-sort", "none");
        th.setAttribute("aria-sort", dir);
        const sign = dir === "ascending" ? 1 : -1;
        const key = (row) => row.cells[col] ? row.cells[col].dataset.sort : "";
        const sorted = Array.from(body.rows).sort((a, b) => {
          const x = key(a), y = key(b);
          const c = numeric ? Number(x) - Number(y) : x.localeCompare(y);
          return sign * c || a.dataset.order - b.dataset.order;
        });
        for (const row of sorted) body.appendChild(row);
      });
    }
  }
  document.body.dataset.ready = "1";
})();
"""
