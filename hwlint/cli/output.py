"""Output formats for findings, ruff-style, and how a run writes its findings (:func:`write_findings`:
the format, the closing summary, the fixes). Each machine-readable format is a pinned contract.

:data:`FORMATS` is the one registry of ``--output-format``: the parser's choices and the run's
dispatch both read it, so a new format is one writer and one entry there."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from .. import __version__
from ..rules.docs import rule_url
from ..words import shown_path, visible
from .common import UserError as _UserError

if TYPE_CHECKING:  # the CLI builds its parser from FORMATS; --version must not load the checker
    from ..roots import Trees
    from ..rules.check import Finding

DOCS_URL = "https://github.com/hwlint/hwlint"


def _location(f: Finding) -> str:
    return f"{shown_path(f.path)}:{f.line}:{f.col + 1}: {f.code}"


def _fix_mark(f: Finding, fixable: Callable[[Finding], bool] | None) -> str:
    severity = "" if f.rule.severity == "error" else f"[{f.rule.severity}] "  # printed where it differs
    return severity + ("[*] " if fixable is not None and fixable(f) else "")


def write_concise(findings: Sequence[Finding], out: TextIO, fixable=None, **_: object) -> None:
    for f in findings:
        out.write(f"{_location(f)} {_fix_mark(f, fixable)}{visible(f.message)}\n")


def write_full(findings: Sequence[Finding], out: TextIO, fixable=None, sources=None, **_: object) -> None:
    """Each finding with the offending source line and a caret under it."""
    for f in findings:
        out.write(f"{_location(f)} {_fix_mark(f, fixable)}{visible(f.message)}\n")
        lines = sources(f.path) if sources else None
        if lines and 0 < f.line <= len(lines):
            text = visible(lines[f.line - 1].rstrip("\r\n").expandtabs(4))
            width = len(str(f.line))
            end = f.end_col if f.end_line == f.line and f.end_col > f.col else len(text)
            carets = "^" * max(1, min(end, len(text)) - f.col)
            pad = " " * width
            out.write(f"{pad} |\n{f.line} | {text}\n{pad} | {' ' * f.col}{carets} {f.code}\n{pad} |\n")
        out.write("\n")


def _as_dict(f: Finding, fixable=None, describe_fix=None) -> dict:
    return {
        "code": f.code,
        "name": f.rule.name,
        "message": f.message,
        "filename": f.path,
        "location": {"row": f.line, "column": f.col + 1},
        "end_location": {"row": f.end_line or f.line, "column": (f.end_col or f.col) + 1},
        "fix": describe_fix(f) if describe_fix is not None else None,
        "fixable": bool(fixable and fixable(f)),
        "noqa_row": f.line,
        "severity": f.rule.severity,
        "url": rule_url(f.code),
    }


def write_json(
    findings: Sequence[Finding], out: TextIO, fixable=None, describe_fix=None, **_: object
) -> None:
    json.dump([_as_dict(f, fixable, describe_fix) for f in findings], out, indent=2)
    out.write("\n")


def write_json_lines(
    findings: Sequence[Finding], out: TextIO, fixable=None, describe_fix=None, **_: object
) -> None:
    for f in findings:
        out.write(json.dumps(_as_dict(f, fixable, describe_fix)) + "\n")


def _gh_escape(text: str, prop: bool = False) -> str:
    text = visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def write_github(findings: Sequence[Finding], out: TextIO, **_: object) -> None:
    for f in findings:
        level = "error" if f.rule.severity == "error" else "warning"
        props = (
            f"title={_gh_escape(f'hwlint ({f.code})', True)},file={_gh_escape(f.path, True)},"
            f"line={f.line},col={f.col + 1},endLine={f.end_line or f.line},"
            f"endColumn={(f.end_col or f.col) + 1}"
        )
        out.write(
            f"::{level} {props}::{_gh_escape(f'{f.path}:{f.line}:{f.col + 1}: {f.code} {f.message}')}\n"
        )


def write_sarif(findings: Sequence[Finding], out: TextIO, **_: object) -> None:
    from ..rules.registry import RULES

    rules = [
        {
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.doc},
            "helpUri": rule_url(r.code),
            "defaultConfiguration": {"level": "error" if r.severity == "error" else "warning"},
        }
        for r in RULES.values()
    ]
    results = [
        {
            "ruleId": f.code,
            "level": "error" if f.rule.severity == "error" else "warning",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path.replace("\\", "/")},
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.col + 1,
                            "endLine": f.end_line or f.line,
                            "endColumn": (f.end_col or f.col) + 1,
                        },
                    }
                }
            ],
        }
        for f in findings
    ]
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "hwlint",
                        "version": __version__,
                        "informationUri": DOCS_URL,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    json.dump(doc, out, indent=2)
    out.write("\n")


@dataclass(frozen=True)
class OutputFormat:
    """One ``--output-format``: its writer ``(findings, out, fixable=, describe_fix=, sources=)``,
    and what the run adds around it."""

    write: Callable[..., None]
    #: the closing ``Found 2 errors.`` line follows the findings (the formats a person reads)
    summary: bool = False
    #: each finding carries its fix, described (ruff's JSON ``fix`` object): the run plans the fixes
    describes_fixes: bool = False


FORMATS: dict[str, OutputFormat] = {
    "concise": OutputFormat(write_concise, summary=True),
    "full": OutputFormat(write_full, summary=True),
    "json": OutputFormat(write_json, describes_fixes=True),
    "json-lines": OutputFormat(write_json_lines, describes_fixes=True),
    "github": OutputFormat(write_github),
    "sarif": OutputFormat(write_sarif),
}


def write_statistics(findings: Sequence[Finding], out: TextIO, fixable=None) -> None:
    """One line per code, most frequent first: count, code, [*] when fixable, rule name."""
    from ..rules.registry import RULES

    counts = Counter(f.code for f in findings)
    fix_counts = Counter(f.code for f in findings if fixable and fixable(f))
    width = len(str(max(counts.values(), default=0)))
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        mark = "[*]" if fix_counts[code] else "   "
        out.write(f"{n:>{width}}\t{code}\t{mark} {RULES[code].name}\n")


def summary(
    findings: Sequence[Finding],
    fixable: int = 0,
    fixed: Sequence[Finding] = (),
    hidden: int = 0,
) -> str:
    """ruff's closing line over the *findings* left, counted by severity (every one fails the run,
    see docs/rules.md, but the line counts them apart); *fixed*: the findings the fixes removed;
    *hidden* counts unsafe fixes that ``--unsafe-fixes`` would enable."""
    from ..rules.registry import counted  # the rule table: only once there is something to count

    n = len(findings)
    parts = []
    if fixed:
        found = counted(f.code for f in [*findings, *fixed])
        parts.append(f"Found {found} ({len(fixed)} fixed, {n} remaining).")
    elif n:
        parts.append(f"Found {counted(f.code for f in findings)}.")
    else:
        parts.append("All checks passed!")
    note = ""
    if hidden:
        fixes = "fix" if hidden == 1 else "fixes"
        note = f"{hidden} hidden {fixes} can be enabled with the `--unsafe-fixes` option"
    if fixable and n:
        parts.append(f"[*] {fixable} fixable with the `--fix` option" + (f" ({note})." if note else "."))
    elif note and n:
        parts.append(f"No fixes available ({note}).")
    return "\n".join(parts)


def fixed_findings(run) -> list:
    """The findings the written fixes of *run* removed."""
    return [f for r in run.results if r.written for f in r.fixed]


@dataclass(frozen=True)
class ReportOptions:
    """How ``hwlint check`` reports and which exit code it gives, typed: read once from the
    command line (:meth:`of`), then passed on instead of the parsed arguments."""

    output_format: str = "full"
    output_file: str | None = None  # `-o`: written whole at the end
    statistics: bool = False
    quiet: bool = False
    show_fixes: bool = False
    diff: bool = False
    fix_only: bool = False
    exit_zero: bool = False
    exit_non_zero_on_fix: bool = False

    @classmethod
    def of(cls, args) -> ReportOptions:
        """The options of ``hwlint check``'s parsed *args*."""
        return cls(**{f: getattr(args, f) for f in cls.__dataclass_fields__})


def write_findings(
    report: ReportOptions, out, run, findings, describe_fix, fixed=None, trees: Trees | None = None
) -> None:
    """Write *findings* as *report* asks; a format that shows source lines reads them as the run's
    *trees* allow (:func:`source_lines`)."""
    from .output import FORMATS, summary, write_statistics

    output_format = FORMATS[report.output_format]
    if report.statistics:
        write_statistics(findings, out, fixable=run.fixable)
    else:
        output_format.write(
            findings,
            out,
            sources=lambda path: source_lines(path, trees),
            fixable=run.fixable,
            describe_fix=describe_fix,
        )
    if output_format.summary and not report.quiet:
        from ..edits import Applicability  # loaded only where findings were made: the parser needs none

        fixable_count = sum(1 for f in findings if run.fixable(f))
        hidden = (
            0
            if run.options.unsafe
            else sum(1 for f in findings if f.fix and f.fix.applicability == Applicability.UNSAFE)
        )
        fixed = fixed_findings(run) if fixed is None else fixed
        out.write(summary(findings, fixable_count, fixed, hidden) + "\n")
    if report.show_fixes:
        from ..fix.describe import write_fix_report

        write_fix_report(run, out)


@contextlib.contextmanager
def output_to(path: str | None):
    """stdout, or *path* (``-o``) written whole at the end; a path that cannot be written is exit 2."""
    if path is None:
        yield sys.stdout
        return
    buffer = io.StringIO()
    yield buffer
    from ..effects import write_output

    try:
        write_output(path, buffer.getvalue())
    except OSError as e:
        raise _UserError(f"{path}: cannot write: {e.strerror or e}") from None


def source_lines(path: str, trees: Trees | None) -> list[str] | None:
    """The lines of the file at *path*, read as the run's *trees* allow (None: a run given no
    paths), or None when it cannot be read or decoded."""
    from ..model import decode_source, split_lines
    from ..model.source import read_source
    from ..roots import NONE_GIVEN

    data = read_source(path, trees=trees or NONE_GIVEN)
    if isinstance(data, str):
        return None
    try:
        return split_lines(decode_source(data)[0])
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None
