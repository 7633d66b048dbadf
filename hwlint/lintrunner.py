"""lintrunner adapter: ``python -m hwlint.lintrunner [--taxonomy F] [--code CODE] @PATHSFILE``.

A thin front end over one frozen contract: one JSON LintMessage per line (path, line, char, code,
severity, name, original, replacement, description), and exit status 0 whatever happens, because
lintrunner turns a non-zero exit or a non-JSON line into "Linter failed". An internal error, a bad
taxonomy or an unparsable file becomes a message instead.

``original``/``replacement`` are whole files. lintrunner aborts when two messages carry a
replacement for one file, so each file gets at most one, with every safe fix merged into it.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Sequence
from typing import TextIO

from .checker import Finding, Selection
from .rules import RULES

DEFAULT_CODE = "HW_CLASSIFICATION"


def message(
    code: str,
    path: str | None,
    name: str,
    description: str,
    severity: str = "error",
    line: int | None = None,
    char: int | None = None,
    original: str | None = None,
    replacement: str | None = None,
) -> dict:
    """One LintMessage, every key present (lintrunner's contract)."""
    return {
        "path": path,
        "line": line,
        "char": char,
        "code": code,
        "severity": severity,
        "name": name,
        "original": original,
        "replacement": replacement,
        "description": description,
    }


def file_messages(path: str, taxonomy, selection: Selection, code: str) -> list[dict]:
    """The messages for one file: one per finding, the first fixed one carrying the fixed file."""
    from .fix import fix_plan, plan_file

    plan = plan_file(path, taxonomy, selection)
    result = fix_plan(plan, taxonomy, selection, unsafe=False)
    carrier: Finding | None = None
    if result.changed and plan.model is not None and plan.model.encoding == "utf-8" and result.fixed:
        carrier = result.fixed[0]  # lintrunner writes replacements as UTF-8: other encodings get no autofix
    out = []
    for f in plan.findings:
        rule = RULES[f.code]
        description = f"{f.message} ({f.code} {rule.name}; `hwlint rule {f.code}` explains it)"
        inf = plan.inference_for(f)
        if inf is not None:
            description += f"\nInferred: {inf.describe()}"
        msg = message(code, path, f.code, description, rule.severity, f.line, f.col + 1)
        if f is carrier:
            n = len(result.fixed)
            msg["original"], msg["replacement"] = result.text, result.fixed_text
            msg["description"] += f"\nThe replacement applies every safe fix in this file ({n})."
        out.append(msg)
    return out


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit 2, which lintrunner reports as "Linter failed"
        raise _UsageError(message)


def run(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Print the LintMessages for the given paths. Always returns 0."""
    out = out or sys.stdout
    parser = _Parser(prog="python -m hwlint.lintrunner", fromfile_prefix_chars="@")
    parser.add_argument(
        "--taxonomy", metavar="FILE", help="taxonomy YAML (default: [tool.hwlint] or bundled)"
    )
    parser.add_argument("--code", default=DEFAULT_CODE, help="the linter's code in .lintrunner.toml")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, or @PATHSFILE with one per line")
    try:
        args = parser.parse_args(argv)
    except (_UsageError, OSError) as e:  # OSError: an unreadable @PATHSFILE
        out.write(json.dumps(message(DEFAULT_CODE, None, "usage-error", f"hwlint.lintrunner: {e}")) + "\n")
        return 0
    code = args.code

    def emit(msg: dict) -> None:
        out.write(json.dumps(msg) + "\n")

    try:
        from .checker import check_config_selectors
        from .config import load_config
        from .taxonomy import load_taxonomy

        config = load_config()
        check_config_selectors(config)
        taxonomy = load_taxonomy(args.taxonomy or config.taxonomy)
    except Exception as e:  # a setup problem is one message, not "Linter failed"
        emit(message(code, None, "configuration-error", f"hwlint cannot start: {e}"))
        return 0
    selection = Selection(config.select, config.ignore)
    baseline = None
    if config.baseline is not None:  # the allowlist skips files here as in `hwlint check`
        from .baseline import BaselineError, load_baseline

        try:
            baseline = load_baseline(config.baseline, config.root)
        except BaselineError as e:
            emit(message(code, None, "configuration-error", f"hwlint cannot read its baseline: {e}"))
    for path in (p.strip() for p in args.paths):
        if not path or (baseline is not None and path in baseline):
            continue
        try:
            for msg in file_messages(path, taxonomy, selection.with_ignored(config.ignored_for(path)), code):
                emit(msg)
        except Exception as e:
            detail = "".join(traceback.format_exception_only(type(e), e)).strip()
            emit(message(code, path, "HWC900", f"Internal error in hwlint: {detail}. Please report it."))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(run())
