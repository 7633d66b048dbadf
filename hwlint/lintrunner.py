"""lintrunner adapter: ``python -m hwlint.lintrunner [--taxonomy F] [--code CODE] -- @PATHSFILE``.

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
import os
import sys
import traceback
from collections.abc import Sequence
from typing import TextIO

from .rules.check import Finding, Selection
from .rules.registry import RULES

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


def file_messages(path: str, session, selection: Selection, code: str, baseline=None) -> list[dict]:
    """The messages for one file, checked in *session* (its taxonomy, the project's files that may
    instantiate a class of it): one per finding (less what *baseline* records), the first fixed
    one carrying the fixed file."""
    from .fix.apply import fix_plan, plan_file, plan_source
    from .project import around

    taxonomy = session.taxonomy
    plan = plan_file(path, taxonomy, selection, trees=session.trees)
    if plan.data is not None and plan.model is not None and plan.model.error is None:
        # as the flake8 plugin: bases and instantiated classes from the test modules the file imports
        linked = around(
            plan.model, taxonomy, session.roots, session.follow, session.instantiators, session.trees
        )
        if linked is not plan.model:
            plan = plan_source(plan.data, path, taxonomy, selection, linked.resolver)
    result = fix_plan(plan, taxonomy, selection, unsafe=False)
    carrier: Finding | None = None
    if result.changed and plan.model is not None and plan.model.encoding == "utf-8" and result.fixed:
        carrier = result.fixed[0]  # lintrunner writes replacements as UTF-8: other encodings get no autofix
    out = []
    findings = baseline.unrecorded(path, plan.findings) if baseline is not None else plan.findings
    if carrier is not None and all(f is not carrier for f in findings):
        carrier = None  # a fixed file is offered on a message that is shown, or not at all
    for f in findings:
        rule = RULES[f.code]
        description = f"{f.message} ({f.code} {rule.name}; `hwlint rule {f.code}` explains it)"
        if f.fix is not None:
            description += f"\nFix: {f.fix.describe()}"
        msg = message(code, path, f.code, description, rule.severity, f.line, f.col + 1)
        if f is carrier:
            n = len(result.fixed)
            msg["original"], msg["replacement"] = result.text, result.fixed_text
            msg["description"] += f"\nThe replacement applies every safe fix in this file ({n})."
        out.append(msg)
    return out


class _UsageError(Exception):
    pass


class _SetupError(Exception):
    """A configuration or taxonomy that cannot be used: one message, then the next file."""


#: What the adapter says when lintrunner gives it no file: lintrunner passes only the files
#: changed since the merge base (with nothing changed, it says "ok No lint issues." without ever
#: asking), and `lintrunner --all-files` passes every file the linter's patterns match.
NO_FILES = (
    "hwlint was given no files: lintrunner passes only the files changed since the merge base; "
    "run `lintrunner --all-files` to check every file the include patterns match"
)


def _taxonomy(path, loaded: dict, configs):
    from .pipeline.config import ConfigError, read_bounded
    from .taxonomy import TaxonomyError, load_taxonomy

    if path not in loaded:
        try:
            if path is not None:
                read_bounded(path, "taxonomy", 4 * 1024 * 1024)
            loaded[path] = load_taxonomy(path, trees=configs.trees)
        except (TaxonomyError, ConfigError) as e:
            loaded[path] = _SetupError(str(e))
    if isinstance(loaded[path], _SetupError):
        raise loaded[path]
    return loaded[path]


def _baseline(config, loaded: dict, emit, code: str):
    """The baseline of *config* (None: none, or one that cannot be read, said once in a message)."""
    from .pipeline.baseline import BaselineError, load_baseline

    if config.baseline is None:
        return None
    if config.baseline not in loaded:
        try:
            loaded[config.baseline] = load_baseline(config.baseline, config.root)
        except BaselineError as e:
            emit(message(code, None, "configuration-error", f"hwlint cannot read its baseline: {e}"))
            loaded[config.baseline] = None
    return loaded[config.baseline]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit 2, which lintrunner reports as "Linter failed"
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    # no fromfile_prefix_chars: argparse would read an @file's lines as options, strip nothing but
    # take "-x.py" for an option and "@y.py" for another file; paths here are data (see _paths)
    parser = _Parser(
        prog="python -m hwlint.lintrunner",
        add_help=False,
        description="hwlint's lintrunner adapter: one JSON LintMessage per line, exit status 0.",
        epilog="Every argument after -- is a path, except @FILE, a file of paths one a line "
        "(lintrunner's @{{PATHSFILE}}), read verbatim: spaces are kept, and a path starting with - "
        "or @ is a path.",
    )
    parser.add_argument("-h", "--help", action="store_true", help="this help, as one JSON message")
    parser.add_argument(
        "--taxonomy", metavar="FILE", help="taxonomy YAML (default: [tool.hwlint] or bundled)"
    )
    parser.add_argument("--code", default=DEFAULT_CODE, help="the linter's code in .lintrunner.toml")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, or @PATHSFILE with one per line")
    return parser


def _paths(args: Sequence[str]) -> list[str]:
    """The paths *args* name: each is a path, or ``@FILE``, whose lines are paths taken verbatim."""
    out: list[str] = []
    for arg in args:
        if not arg.startswith("@"):
            out.append(arg)
            continue
        with open(arg[1:], "rb") as f:  # bytes: a path need not be valid UTF-8
            data = f.read()
        out += [line for line in os.fsdecode(data).split("\n") if line]
    return out


def run(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Print the LintMessages for the given paths. Always returns 0."""
    out = out or sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    cut = argv.index("--") if "--" in argv else len(argv)
    options, literal = argv[:cut], argv[cut + 1 :]
    files = [a for a in options if a.startswith("@")]
    try:
        args = parser.parse_args([a for a in options if not a.startswith("@")])
        paths = _paths([*args.paths, *files, *literal])
    except (_UsageError, OSError) as e:  # OSError: an unreadable @PATHSFILE
        out.write(json.dumps(message(DEFAULT_CODE, None, "usage-error", f"hwlint.lintrunner: {e}")) + "\n")
        return 0
    if args.help:  # lintrunner reads every stdout line as JSON: the help is a message too
        out.write(json.dumps(message(args.code, None, "usage", parser.format_help(), "advice")) + "\n")
        return 0
    code = args.code

    def emit(msg: dict) -> None:
        out.write(json.dumps(msg) + "\n")

    try:
        from .pipeline.config import Configs
        from .rules.check import selector_problem

        # each file follows its own configuration, as in `hwlint check`
        configs = Configs(paths, validate=selector_problem)
    except Exception as e:  # a setup problem is one message, not "Linter failed"
        emit(message(code, None, "configuration-error", f"hwlint cannot start: {e}"))
        return 0
    if not paths:  # lintrunner passes the changed files only: say why nothing was linted
        emit(message(code, None, "no-files", NO_FILES, "advice"))
        return 0
    from .edits.torch_enum import enum_form, with_enum_form
    from .pipeline.config import ConfigError
    from .pipeline.session import RunOptions, Session

    taxonomies: dict = {}
    baselines: dict = {}
    reported: set[str] = set()
    # a session per taxonomy, built as `hwlint check` builds its own: the project's files are read once
    sessions: dict = {}
    options = RunOptions(jobs=1, no_cache=True)
    forms: dict = {}  # per taxonomy: the one writing the enum's import as the files' torch has it
    for path in paths:
        try:
            config = configs.for_path(path)
            taxonomy = _taxonomy(args.taxonomy or config.taxonomy, taxonomies, configs)
            # the replacement imports the enum as the files' torch defines it (hwlint.edits.torch_enum)
            if taxonomy.digest not in forms:
                forms[taxonomy.digest] = with_enum_form(taxonomy, enum_form(taxonomy, paths))
            taxonomy = forms[taxonomy.digest]
            baseline = _baseline(config, baselines, emit, code)
            selection = Selection(config.select, config.ignore).with_ignored(config.ignored_for(path))
            if taxonomy.digest not in sessions:
                made = Session.from_config(config, options, taxonomy, configs, project=True)
                sessions[taxonomy.digest] = made
            for msg in file_messages(path, sessions[taxonomy.digest], selection, code, baseline):
                emit(msg)
        except (_SetupError, ConfigError) as e:  # said once, however many files it concerns
            if str(e) not in reported:
                reported.add(str(e))
                emit(message(code, None, "configuration-error", f"hwlint cannot start: {e}"))
        except Exception as e:
            detail = "".join(traceback.format_exception_only(type(e), e)).strip()
            emit(message(code, path, "HWC900", f"Internal error in hwlint: {detail}. Please report it."))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(run())
