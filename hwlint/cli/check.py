"""``hwlint`` command line, ruff-style. A thin front end: it parses arguments and prints; the
checker decides.

Exit codes: 0 clean, 1 findings, 2 usage, configuration or taxonomy error.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from .. import __version__
from .common import Parser as _Parser
from .common import UserError as _UserError
from .common import add_engine_options, guarded, written

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _patterns(value: str) -> list[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


def _codes(value: str) -> list[str]:
    return [c.upper() for c in _patterns(value)]


def build_parser() -> argparse.ArgumentParser:
    from .output import FORMATS

    parser = _Parser(prog="hwlint", description="Check PyTorch test classes' hw_classification.")
    parser.add_argument("--version", action="version", version=f"hwlint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = sub.add_parser("check", help="check files and directories (default: .)")
    check.add_argument("paths", nargs="*", metavar="PATH")
    check.add_argument("--taxonomy", metavar="FILE", help="taxonomy YAML (default: bundled)")
    check.add_argument("--config", metavar="FILE", help="pyproject.toml to read [tool.hwlint] from")
    check.add_argument("--isolated", action="store_true", help="ignore configuration files")
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
    check.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated code prefixes")
    check.add_argument("--extend-select", type=_codes, default=[], metavar="CODES")
    check.add_argument("--ignore", type=_codes, metavar="CODES")
    check.add_argument("--extend-ignore", type=_codes, default=[], metavar="CODES")
    check.add_argument("--output-format", choices=FORMATS, default="concise")
    check.add_argument("--statistics", action="store_true", help="count findings per rule")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
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
        "--fix", action="store_true", help="apply safe fixes (declare inferred classifications)"
    )
    check.add_argument("--unsafe-fixes", action="store_true", help="enable unsafe (heuristic) fixes too")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    check.add_argument(
        "--show-fixes", action="store_true", help="list the fixes and the evidence behind them"
    )
    check.add_argument("--baseline", metavar="FILE", help="skip the files listed in this JSON allowlist")
    check.add_argument(
        "--add-noqa", action="store_true", help="add `# noqa: CODE` to every line with a finding (ruff's)"
    )
    check.add_argument("-o", "--output-file", metavar="FILE", help="write the findings to FILE, not stdout")
    check.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar on stderr (default: on a terminal, outside CI, after a second)",
    )

    base = sub.add_parser("baseline", help="write the files that have findings to a JSON allowlist")
    base.add_argument("paths", nargs="*", metavar="PATH")
    base.add_argument(
        "--output", metavar="FILE", help="default: [tool.hwlint] baseline, else hwlint-baseline.json"
    )
    base.add_argument("--regenerate", action="store_true", help="rewrite an existing baseline")
    base.add_argument("--taxonomy", metavar="FILE", help="taxonomy YAML (default: bundled)")
    base.add_argument("--config", metavar="FILE", help="pyproject.toml to read [tool.hwlint] from")
    base.add_argument("--isolated", action="store_true", help="ignore configuration files")

    rule = sub.add_parser("rule", help="explain a rule (What it does / Why is this bad? / ...)")
    rule.add_argument("code", nargs="?", help="code or name, e.g. HWC001 or missing-hw-classification")
    rule.add_argument("--all", action="store_true", help="every rule")
    rule.add_argument("--output-format", choices=("text", "json", "markdown"), default="text")

    _add_report_parser(sub)

    tax = sub.add_parser("taxonomy", help="validate or show a taxonomy")
    tax_sub = tax.add_subparsers(dest="taxonomy_command", metavar="ACTION", parser_class=_Parser)
    tcheck = tax_sub.add_parser("check", help="validate taxonomy files")
    tcheck.add_argument("files", nargs="+", metavar="FILE")
    tshow = tax_sub.add_parser("show", help="print the effective taxonomy, defaults filled in")
    tshow.add_argument("--taxonomy", metavar="FILE")
    tshow.add_argument("--config", metavar="FILE")
    tshow.add_argument("--format", choices=("yaml", "json"), default="yaml")
    parser.commands = sub.choices
    tax.commands = tax_sub.choices
    return parser


def _add_report_parser(sub) -> None:
    from ..report.render import FORMATS as REPORT_FORMATS

    report = sub.add_parser(
        "report",
        help="migration report: classified share per directory, tests per runner, tests never run",
        description="Where a suite stands: per directory and per runner. Findings do not fail a report: "
        "it exits 0, or 2 on a usage, configuration, taxonomy or --compare error.",
    )
    report.add_argument("paths", nargs="*", metavar="PATH")
    report.add_argument("--taxonomy", metavar="FILE", help="taxonomy YAML (default: bundled)")
    report.add_argument("--config", metavar="FILE", help="pyproject.toml to read [tool.hwlint] from")
    report.add_argument("--isolated", action="store_true", help="ignore configuration files")
    report.add_argument(
        "--format", choices=REPORT_FORMATS, default="table", help="output format (default: table)"
    )
    report.add_argument(
        "--depth",
        type=_depth,
        default=None,
        metavar="N",
        help="list directories down to N levels below the root",
    )
    report.add_argument(
        "--compare", metavar="OLD.json", help="show what changed since an earlier JSON report"
    )
    report.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    add_engine_options(report)


def _depth(value: str) -> int:
    try:
        depth = int(value)
    except ValueError:
        depth = -1
    if depth < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {value!r}")
    return depth


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hwlint`` console script."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    # `hwlint check a --statistics b`: argparse leaves positionals after an option unparsed
    if extra and isinstance(getattr(args, "paths", None), list) and not any(x.startswith("-") for x in extra):
        args.paths += extra
    elif extra:  # the usage of the subcommand at fault, as ruff prints it
        _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    return guarded("hwlint", lambda: _dispatch(parser, args))


def _command_parser(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    sub = parser.commands.get(getattr(args, "command", None) or "")
    if sub is not None and getattr(args, "taxonomy_command", None):
        sub = sub.commands.get(args.taxonomy_command, sub)
    return sub or parser


def _dispatch(parser: argparse.ArgumentParser, args) -> int:
    if args.command == "check":
        return cmd_check(args)
    if args.command == "baseline":
        return cmd_baseline(args)
    if args.command == "report":
        return cmd_report(args)
    if args.command == "rule":
        return cmd_rule(args, parser)
    if args.command == "taxonomy":
        if args.taxonomy_command == "check":
            return cmd_taxonomy_check(args)
        if args.taxonomy_command == "show":
            return cmd_taxonomy_show(args)
        _command_parser(parser, args).print_help(sys.stderr)
        return EXIT_ERROR
    parser.print_help(sys.stderr)
    return EXIT_ERROR


def _load_config(args):
    from ..pipeline.config import ConfigError, config_for_paths

    try:
        paths = getattr(args, "paths", None) or []
        config = config_for_paths(paths, args.config, getattr(args, "isolated", False))
        if args.command in ("check", "baseline"):
            from ..checker import check_config_selectors

            check_config_selectors(config)
        return config
    except ConfigError as e:
        raise _UserError(str(e)) from None


def _load_taxonomy(path: str | None, args=None):
    from ..taxonomy import TaxonomyError, load_taxonomy

    try:
        return load_taxonomy(path, remember=not getattr(args, "no_cache", False))
    except TaxonomyError as e:
        raise _UserError(str(e)) from None


def cmd_check(args) -> int:
    from ..checker import Selection
    from ..fix.outcome import CheckRun, FixOptions
    from ..pipeline.baseline import apply_baseline
    from ..pipeline.config import discover

    _check_selector_options(args)
    config = _load_config(args)
    if args.extend_exclude:
        config = replace(config, exclude=(*config.exclude, *args.extend_exclude))
    taxonomy = _load_taxonomy(args.taxonomy or config.taxonomy, args)
    select = tuple(args.select) if args.select is not None else config.select
    ignore = tuple(args.ignore) if args.ignore is not None else config.ignore
    selection = Selection((*select, *args.extend_select), (*ignore, *args.extend_ignore))
    options = FixOptions(args.fix, args.unsafe_fixes, args.diff, args.show_fixes, tuple(args.paths or ["."]))
    skipped: list = []
    paths = list(discover(args.paths or ["."], config, args.force_exclude, skipped))

    def selection_for(path: str) -> Selection:
        return selection.with_ignored(config.ignored_for(path))

    baseline = _load_baseline(args.baseline or config.baseline, config)
    # --fix, --diff and --show-fixes plan (and fix) each file in the check's own pass over it
    planning = (args.fix or args.diff or args.show_fixes) and not args.add_noqa
    fixable = (lambda path: path not in baseline) if baseline is not None else None
    found, checked, planned = _check_all(
        args, config, taxonomy, paths, selection_for, skipped, options if planning else None, fixable
    )
    # the files whose findings depend on other files are planned as they were checked
    describing = args.output_format in ("json", "json-lines")
    resolvers = checked.resolvers() if (planning or describing) and checked.linked else {}
    stale = []
    if baseline is not None:
        found, stale = apply_baseline(baseline, found)
        stale = [f for f in stale if selection.enabled(f.code)]
    if not paths:  # ruff's words; the run is clean but says that it looked at nothing
        print("warning: No test files found under the given path(s)", file=sys.stderr)
    if args.add_noqa:
        return _add_noqa([f for _, findings in found for f in findings])
    progress = _show_progress(args)
    if planning:
        from ..fix.apply import apply_fixes

        run = apply_fixes(found, taxonomy, selection_for, options, args.jobs, progress, planned, resolvers)
    else:  # a check that plans no fix never loads the fixer
        run = CheckRun.unplanned(options, found)
    for warning in run.warnings:
        print(f"hwlint: warning: {warning}", file=sys.stderr)
    if run.files_fixed:
        n, files = run.fixed, run.files_fixed
        print(
            f"hwlint: fixed {n} error{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}",
            file=sys.stderr,
        )
    if args.diff:  # as in ruff: exit 1 when something would change
        from ..fix.describe import write_diff

        status = EXIT_FINDINGS if run.would_fix and not args.exit_zero else EXIT_CLEAN
        return written(status, lambda: write_diff(run, sys.stdout, sys.stderr))
    findings = sorted([*run.findings, *stale], key=lambda f: f.sort_key())
    describe_fix = None
    if args.output_format in ("json", "json-lines") and not args.statistics:
        from ..fix.describe import describe_fixes

        max_mb = args.max_file_size or config.max_file_size
        cache = _open_cache(args, config, taxonomy)
        describe_fix = describe_fixes(findings, taxonomy, args.jobs, cache, max_mb * 1024 * 1024, resolvers)
    status = EXIT_CLEAN if args.exit_zero or not findings else EXIT_FINDINGS

    def write() -> None:
        with _output(args.output_file) as out:
            _write_findings(args, out, run, findings, describe_fix)

    return written(status, write)


def _write_findings(args, out, run, findings, describe_fix) -> None:
    from .output import WRITERS, summary, write_statistics

    if args.statistics:
        write_statistics(findings, out, fixable=run.fixable)
    else:
        WRITERS[args.output_format](
            findings,
            out,
            sources=_source_lines,
            fixable=run.fixable,
            describe_fix=describe_fix,
        )
    if args.output_format in ("concise", "full") and not args.quiet:
        warnings = sum(1 for f in findings if f.rule.severity != "error")
        out.write(summary(len(findings), run.fixable_count, run.fixed, run.hidden, warnings) + "\n")
    if args.show_fixes:
        from ..fix.describe import write_fix_report

        write_fix_report(run, out)


@contextlib.contextmanager
def _output(path: str | None):
    """stdout, or *path* (``-o``) written whole at the end; a path that cannot be written is exit 2."""
    if path is None:
        yield sys.stdout
        return
    buffer = io.StringIO()
    yield buffer
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(buffer.getvalue())
    except OSError as e:
        raise _UserError(f"{path}: cannot write: {e.strerror or e}") from None


def _add_noqa(findings) -> int:
    from ..fix.noqa import add_noqa

    added, warnings, failed = add_noqa(findings)
    for warning in warnings:
        print(f"hwlint: warning: {warning}", file=sys.stderr)
    print(f"Added {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
    # findings left unsilenced are findings: exit 1, as for any (ruff exits 0 even then)
    return EXIT_FINDINGS if failed else EXIT_CLEAN


def _check_selector_options(args) -> None:
    """An unknown --select/--ignore code is a usage error (exit 2), never a silently empty run."""
    from ..checker import unknown_selectors

    for option in ("select", "extend_select", "ignore", "extend_ignore"):
        bad = unknown_selectors(getattr(args, option) or ())
        if bad:
            flag = "--" + option.replace("_", "-")
            raise _UserError(
                f"invalid value {bad[0]!r} for '{flag}': no rule code starts with it "
                "(`hwlint rule --all` lists the rules)"
            )


def _load_baseline(path: str | None, config):
    from ..pipeline.baseline import BaselineError, load_baseline

    if path is None:
        return None
    try:
        return load_baseline(path, config.root)
    except BaselineError as e:
        raise _UserError(str(e)) from None


def cmd_baseline(args) -> int:
    """Write the allowlist of files that have findings now (``--regenerate`` to rewrite one)."""
    from ..checker import Selection
    from ..pipeline.baseline import baseline_entries, write_baseline
    from ..pipeline.config import discover

    config = _load_config(args)
    taxonomy = _load_taxonomy(args.taxonomy or config.taxonomy, args)
    output = args.output or config.baseline or "hwlint-baseline.json"
    if Path(output).exists() and not args.regenerate:
        raise _UserError(f"{output} exists; pass --regenerate to rewrite it")
    selection = Selection(config.select, config.ignore)
    skipped: list = []
    paths = list(discover(args.paths or ["."], config, skipped=skipped))
    found, _, _ = _check_all(
        args, config, taxonomy, paths, lambda p: selection.with_ignored(config.ignored_for(p)), skipped
    )
    entries = baseline_entries([f for _, findings in found for f in findings], config.root)
    write_baseline(output, entries)
    print(f"hwlint: wrote {len(entries)} file{'s' if len(entries) != 1 else ''} to {output}", file=sys.stderr)
    return EXIT_CLEAN


def _check_all(args, config, taxonomy, paths, selection_for, skipped=(), fix=None, fixable=None):
    """(path, enabled findings) for every path: parallel, cached, in the order given, seen through
    the project model; the project check (which files' findings depend on others); and the files
    planned in the same pass (with *fix*, the fix options: see :func:`hwlint.fix.check_and_fix_paths`;
    *fixable* says which paths may be fixed).

    Of the paths discovery *skipped*, a directory it cannot list is an HWC901 finding (as ruff's
    E902); a file that is not a regular file (a FIFO) is a warning."""
    from ..checker import check_project, unreadable
    from ..pipeline.progress import Bar

    max_mb = getattr(args, "max_file_size", None) or config.max_file_size
    cache = _open_cache(args, config, taxonomy)
    jobs, max_bytes = getattr(args, "jobs", None), max_mb * 1024 * 1024
    planned: dict = {}
    bar = Bar(len(paths), "checking", _show_progress(args))
    try:
        if fix is None:
            checked = check_project(paths, taxonomy, jobs, cache, max_bytes, bar, config.roots)
        else:
            from ..fix.apply import check_and_fix_paths

            checked, planned = check_and_fix_paths(
                paths, taxonomy, selection_for, fix, jobs, cache, max_bytes, bar, fixable, config.roots
            )
    finally:
        bar.close()
    found = []
    for path, findings in zip(paths, checked.findings, strict=True):
        selection = selection_for(path)
        found.append((path, [f for f in findings if selection.enabled(f.code)]))
    for s in skipped:
        if not s.error:
            print(f"hwlint: warning: {s}", file=sys.stderr)
            continue
        selection = selection_for(s.path)
        found.append((s.path, [f for f in unreadable(s.path, s.reason) if selection.enabled(f.code)]))
    return found, checked, planned


def _show_progress(args) -> bool:
    from ..pipeline.progress import wanted

    return wanted(getattr(args, "progress", False))


def cmd_report(args) -> int:
    from ..report.compare import compare, load_report
    from ..report.data import ReportError, report_paths
    from ..report.render import renderers

    config = _load_config(args)
    taxonomy = _load_taxonomy(args.taxonomy or config.taxonomy, args)
    try:
        old = load_report(args.compare) if args.compare else None
    except ReportError as e:
        raise _UserError(str(e)) from None
    skipped: list = []
    cache = _open_cache(args, config, taxonomy)
    report = report_paths(args.paths or ["."], taxonomy, config, args.depth, args.jobs, cache, skipped)
    for s in skipped:
        print(f"hwlint: warning: {s}", file=sys.stderr)
    doc = report.to_json()
    if old is not None:
        doc["compare"] = compare(doc, old, args.compare)
    # the HTML page links to sources relative to where it is written
    text = renderers()[args.format](doc, output=args.output)
    if not args.output:
        sys.stdout.write(text)
        return EXIT_CLEAN
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise _UserError(f"{args.output}: cannot write: {e.strerror or e}") from None
    return EXIT_CLEAN


def _open_cache(args, config, taxonomy):
    from ..pipeline.cache import open_cache

    disabled = getattr(args, "no_cache", False)
    cache = open_cache(taxonomy.digest, config.root, getattr(args, "cache_dir", None), disabled)
    _warn_key(cache)
    return cache


_warned: list[str] = []


def _warn_key(cache) -> None:
    """Say once why the cache is off when its key was refused (a key inside the checked tree...)."""
    from ..pipeline import cache as caches

    problem = caches.key_problem
    if cache is not None and problem and problem not in _warned and cache.key_refused:
        _warned.append(problem)
        print(f"hwlint: warning: cache key not used, the cache is off: {problem}", file=sys.stderr)


def _source_lines(path: str) -> list[str] | None:
    from ..checker import read_source
    from ..model import decode_source, split_lines

    data = read_source(path)
    if isinstance(data, str):
        return None
    try:
        return split_lines(decode_source(data)[0])
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


def cmd_rule(args, parser) -> int:
    import json

    from ..rules.registry import RULES, rule_by_name_or_code

    if args.all:
        chosen = list(RULES.values())
    elif args.code:
        r = rule_by_name_or_code(args.code)
        if r is None:
            raise _UserError(f"unknown rule {args.code!r}; `hwlint rule --all` lists them")
        chosen = [r]
    else:
        raise _UserError("give a rule code (e.g. HWC001) or --all")
    if args.output_format == "markdown":
        from ..rules.docs import rules_markdown

        if not args.all:
            raise _UserError("--output-format markdown writes the whole rule reference: use --all")
        sys.stdout.write(rules_markdown())
        return EXIT_CLEAN
    if args.output_format == "json":
        data = [
            {
                "code": r.code,
                "name": r.name,
                "summary": r.summary,
                "severity": r.severity,
                "message": r.message,
                "explanation": r.doc,
            }
            for r in chosen
        ]
        print(json.dumps(data if args.all else data[0], indent=2))
        return EXIT_CLEAN
    for i, r in enumerate(chosen):
        if i:
            print()
        print(f"# {r.name} ({r.code})\n\n{r.doc}")
    return EXIT_CLEAN


def cmd_taxonomy_check(args) -> int:
    from ..taxonomy import TaxonomyError, load_taxonomy

    status = EXIT_CLEAN
    for f in args.files:
        try:
            t = load_taxonomy(f)
        except TaxonomyError as e:
            print(f"hwlint: error: {e}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        print(f"{f}: ok ({len(t.classifications)} classifications, {len(t.runners)} runners)")
    return status


def cmd_taxonomy_show(args) -> int:
    import json

    import yaml

    from ..taxonomy import effective_dict

    config = _load_config(args)
    taxonomy = _load_taxonomy(args.taxonomy or config.taxonomy, args)
    data = effective_dict(taxonomy)
    if args.format == "json":
        print(json.dumps(data, indent=2))
    else:
        print(f"# effective taxonomy from {taxonomy.path}")
        print(yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100), end="")
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
