"""The ``hwlint`` argument parser: every subcommand and its options, in one place.

Building it imports no checker code (``--version`` and a usage error must start fast): the
format registries it reads for the choices, :data:`hwlint.cli.output.FORMATS` and
:data:`hwlint.report.render.RENDERERS`, load the checker only when a format is written.
"""

from __future__ import annotations

import argparse

from .. import __version__
from .common import Parser as _Parser
from .common import add_engine_options


def _patterns(value: str) -> list[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


def _codes(value: str) -> list[str]:
    return [c.upper() for c in _patterns(value)]


def build_parser() -> argparse.ArgumentParser:
    """The ``hwlint`` parser; each subcommand's parser is ``parser.commands[NAME]`` (its usage is
    printed for an unrecognized argument)."""
    parser = _Parser(prog="hwlint", description="Check PyTorch test classes' hw_classification.")
    parser.add_argument("--version", action="version", version=f"hwlint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    _add_check_parser(sub)
    _add_baseline_parser(sub)
    _add_rule_parser(sub)
    _add_report_parser(sub)
    _add_taxonomy_parser(sub)
    parser.commands = sub.choices
    return parser


def _add_check_parser(sub) -> None:
    """``hwlint check``'s options, ruff's names and meanings. One flat list on purpose: it is read
    in the order ``--help`` prints it, and each option is one ``add_argument``, so a split would
    only scatter the help text."""
    from .output import FORMATS

    check = sub.add_parser("check", help="check files and directories (default: .)")
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or directories; - reads stdin")
    _add_config_options(check)
    check.add_argument(
        "--exclude",
        type=_patterns,
        default=None,
        metavar="PATTERNS",
        help="comma-separated path patterns to skip, instead of the configured ones (defaults included)",
    )
    check.add_argument(
        "--extend-exclude",
        type=_patterns,
        default=[],
        metavar="PATTERNS",
        help="comma-separated path patterns to skip, on top of the configured ones",
    )
    check.add_argument(
        "--force-exclude", action="store_true", help="apply exclusions to files named on the command line too"
    )
    _add_gitignore_options(check)
    check.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated code prefixes")
    check.add_argument("--extend-select", type=_codes, default=[], metavar="CODES")
    check.add_argument("--ignore", type=_codes, metavar="CODES")
    check.add_argument("--extend-ignore", type=_codes, default=[], metavar="CODES")
    check.add_argument("--output-format", choices=tuple(FORMATS), default="concise")
    check.add_argument("--statistics", action="store_true", help="count findings per rule")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when a file was fixed, even if no finding remains",
    )
    check.add_argument(
        "--max-file-size",
        type=int,
        default=None,
        metavar="MB",
        help="report larger files as HWC901 instead of parsing them (default: 10)",
    )
    add_engine_options(check)
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument(
        "--fix",
        action="store_true",
        default=False,
        help="apply safe fixes (declare inferred classifications)",
    )
    check.add_argument("--no-fix", dest="fix", action="store_false", help="do not fix (overrides --fix)")
    check.add_argument(
        "--fix-only",
        action="store_true",
        default=False,
        help="apply the fixes and report nothing else (exit 0, or 1 with --exit-non-zero-on-fix)",
    )
    check.add_argument("--no-fix-only", dest="fix_only", action="store_false", help=argparse.SUPPRESS)
    check.add_argument("--unsafe-fixes", action="store_true", help="enable unsafe (heuristic) fixes too")
    check.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false", help=argparse.SUPPRESS)
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    check.add_argument(
        "--show-fixes", action="store_true", help="list the fixes and the evidence behind them"
    )
    check.add_argument(
        "--baseline", metavar="FILE", help="skip what this JSON baseline records (see `hwlint baseline`)"
    )
    check.add_argument(
        "--add-noqa", action="store_true", help="add `# noqa: CODE` to every line with a finding (ruff's)"
    )
    check.add_argument(
        "--ignore-noqa",
        action="store_true",
        help="report and fix findings whatever `# noqa` comments say, file-level ones included (ruff's)",
    )
    check.add_argument("-o", "--output-file", metavar="FILE", help="write the findings to FILE, not stdout")
    check.add_argument(
        "--stdin-filename", metavar="NAME", help="the name of the file read from stdin (`-` as the path)"
    )
    check.add_argument("--show-files", action="store_true", help="print the files that would be checked")
    check.add_argument(
        "--show-settings", action="store_true", help="print the settings that govern the first file"
    )
    check.add_argument("-w", "--watch", action="store_true", help="check again whenever a file changes")
    check.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar on stderr (default: on a terminal, outside CI, after a second)",
    )


def _add_baseline_parser(sub) -> None:
    base = sub.add_parser("baseline", help="record today's findings (file, class, code) in a JSON baseline")
    base.add_argument("paths", nargs="*", metavar="PATH")
    base.add_argument(
        "-o",
        "--output-file",
        "--output",
        dest="output",
        metavar="FILE",
        help="default: [tool.hwlint] baseline, else hwlint-baseline.json",
    )
    base.add_argument("--regenerate", action="store_true", help="rewrite an existing baseline")
    _add_config_options(base)
    _add_gitignore_options(base)


def _add_rule_parser(sub) -> None:
    rule = sub.add_parser("rule", help="explain a rule (What it does / Why is this bad? / ...)")
    rule.add_argument("code", nargs="?", help="code or name, e.g. HWC001 or missing-hw-classification")
    rule.add_argument("--all", action="store_true", help="every rule")
    rule.add_argument("--output-format", choices=("text", "json", "markdown"), default="text")


def _add_taxonomy_parser(sub) -> None:
    tax = sub.add_parser("taxonomy", help="validate or show a taxonomy")
    tax_sub = tax.add_subparsers(dest="taxonomy_command", metavar="ACTION", parser_class=_Parser)
    tcheck = tax_sub.add_parser("check", help="validate taxonomy files")
    tcheck.add_argument("files", nargs="+", metavar="FILE")
    tshow = tax_sub.add_parser("show", help="print the effective taxonomy, defaults filled in")
    tshow.add_argument("--taxonomy", metavar="FILE")
    tshow.add_argument("--config", metavar="CONFIG_OPTION", action="append", default=[])
    tshow.add_argument("--format", choices=("yaml", "json"), default="yaml")
    tax.commands = tax_sub.choices


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--taxonomy", metavar="FILE", help="taxonomy YAML (default: configured, else bundled)"
    )
    parser.add_argument(
        "--config",
        metavar="CONFIG_OPTION",
        action="append",
        default=[],
        help="a configuration file for every checked file (pyproject.toml, hwlint.toml), or a TOML "
        "`key = value` applied over every configuration (repeatable)",
    )
    parser.add_argument("--isolated", action="store_true", help="ignore every configuration file")


def _add_gitignore_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--respect-gitignore",
        action="store_true",
        default=None,
        help="skip files git ignores (the default; `--no-respect-gitignore` checks them)",
    )
    parser.add_argument(
        "--no-respect-gitignore", dest="respect_gitignore", action="store_false", help=argparse.SUPPRESS
    )


def _add_report_parser(sub) -> None:
    from ..report.render import RENDERERS

    report = sub.add_parser(
        "report",
        help="migration report: classified share per directory, tests per runner, tests never run",
        description="Where a suite stands: per directory and per runner. Findings do not fail a report: "
        "it exits 0, or 2 on a usage, configuration, taxonomy or --compare error.",
    )
    report.add_argument("paths", nargs="*", metavar="PATH")
    _add_config_options(report)
    _add_gitignore_options(report)
    report.add_argument(
        "--format", choices=tuple(RENDERERS), default="table", help="output format (default: table)"
    )
    report.add_argument(
        "--depth",
        type=_depth,
        default=None,
        metavar="N",
        help="list directories down to N levels below the root",
    )
    report.add_argument(
        "--compare",
        metavar="OLD.json|REV",
        help="show what changed since an earlier JSON report, or a git revision (hwselect diff's tests)",
    )
    report.add_argument(
        "-o", "--output-file", "--output", dest="output", metavar="FILE", help="write the report to FILE"
    )
    report.add_argument(
        "--base-url",
        metavar="URL",
        help="make the HTML page's links absolute: URL + the path from the report's root "
        "(e.g. https://github.com/pytorch/pytorch/blob/<sha>/test/)",
    )
    add_engine_options(report)


def _depth(value: str) -> int:
    try:
        depth = int(value)
    except ValueError:
        depth = -1
    if depth < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {value!r}")
    return depth
