"""``hwlint`` command line, ruff-style: its entry point, which hands each subcommand to its module
(baseline, report, rule, taxonomy), and ``hwlint check`` itself. A thin front end: it parses
arguments and prints; the checker decides.

Exit codes: 0 clean, 1 findings, 2 usage, configuration or taxonomy error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..words import shown_path, visible
from .baseline import BaselineOptions, cmd_baseline
from .common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    exiting,
    guarded,
    run_options,
    unrecognized,
    warn,
    written,
)
from .common import UserError as _UserError
from .output import FORMATS, ReportOptions, fixed_findings, output_to, write_findings
from .parser import build_parser
from .report import ReportCommandOptions, cmd_report
from .rule import cmd_rule
from .run import (
    Baselines,
    ConfigOptions,
    Taxonomies,
    check_all,
    groups,
    load_configs,
    say_notices,
    selections,
    session_for,
    show_progress,
    skipped_findings,
)
from .stdin import check_stdin
from .taxonomy import cmd_taxonomy_check, cmd_taxonomy_show
from .watch import watch

if TYPE_CHECKING:
    from ..pipeline.session import RunOptions


def console() -> int:
    """The ``hwlint`` console script: :func:`main` on the command line, then the exit."""
    return exiting(main())


def main(argv: Sequence[str] | None = None) -> int:
    """``hwlint`` with the arguments *argv* (default: the command line's)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    # `hwlint check a --statistics b`: argparse leaves positionals after an option unparsed
    if extra and isinstance(getattr(args, "paths", None), list) and not any(x.startswith("-") for x in extra):
        args.paths += extra
    elif extra:  # the usage of the subcommand at fault, as ruff prints it
        command = _command_parser(parser, args)
        command.error(unrecognized(command, extra))
    return guarded("hwlint", lambda: _dispatch(parser, args))


def _command_parser(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    sub = parser.commands.get(getattr(args, "command", None) or "")
    if sub is not None and getattr(args, "taxonomy_command", None):
        sub = sub.commands.get(args.taxonomy_command, sub)
    return sub or parser


def _dispatch(parser: argparse.ArgumentParser, args) -> int:
    from ..pipeline.config import ConfigError

    try:
        return _run_command(parser, args)
    except ConfigError as e:  # a configuration met on the way (a subdirectory's): exit 2, named
        raise _UserError(str(e)) from None


def _run_command(parser: argparse.ArgumentParser, args) -> int:
    if args.command == "check":
        return cmd_check(args)
    if args.command == "baseline":
        return cmd_baseline(BaselineOptions.of(args))
    if args.command == "report":
        return cmd_report(ReportCommandOptions.of(args))
    if args.command == "rule":
        return cmd_rule(args.code, args.all, args.output_format)
    if args.command == "taxonomy":
        if args.taxonomy_command == "check":
            return cmd_taxonomy_check(args.files)
        if args.taxonomy_command == "show":
            return cmd_taxonomy_show(ConfigOptions.of(args), run_options(args), args.format)
        _command_parser(parser, args).print_help(sys.stderr)
        return EXIT_ERROR
    parser.print_help(sys.stderr)
    return EXIT_ERROR


@dataclass(frozen=True)
class CheckOptions:
    """What ``hwlint check``'s arguments ask, typed: read once from the parsed arguments
    (:meth:`of`), the check then reads these, never the arguments. Beside its own, the options of
    the configuration (:class:`ConfigOptions`), of the session (:class:`RunOptions`) and of the
    output (:class:`ReportOptions`)."""

    paths: tuple[str, ...]  # as given (none: the current directory)
    stdin: bool  # the text on stdin is checked, as the file *stdin_filename* names
    stdin_filename: str | None
    force_exclude: bool
    baseline: str | None  # `--baseline FILE`
    add_noqa: bool
    show_files: bool
    show_settings: bool
    watch: bool
    fix: bool  # `--fix` (`--fix-only` is the output's: :attr:`ReportOptions.fix_only`)
    unsafe_fixes: bool
    config: ConfigOptions
    run: RunOptions
    report: ReportOptions

    @classmethod
    def of(cls, args) -> CheckOptions:
        """The options of ``hwlint check``'s parsed *args*; combinations ruff refuses are refused
        the same way (a UserError: exit 2)."""
        return cls(
            tuple(args.paths or ()),
            _check_options(args),
            args.stdin_filename,
            args.force_exclude,
            args.baseline,
            args.add_noqa,
            args.show_files,
            args.show_settings,
            args.watch,
            args.fix,
            args.unsafe_fixes,
            ConfigOptions.of(args),
            run_options(args),
            ReportOptions.of(args),
        )

    @property
    def given(self) -> list[str]:
        """The paths to discover the files under (the current directory when none was given)."""
        return list(self.paths) or ["."]


def cmd_check(args) -> int:
    options = CheckOptions.of(args)
    if options.watch:
        return watch(list(options.paths), lambda: _check_once(options))
    return _check_once(options)


def _check_options(args) -> bool:
    """Combinations ruff refuses, refused the same way (exit 2); whether the run checks stdin."""
    _check_selector_options(args)
    conflicts = [
        ("exit_zero", "exit_non_zero_on_fix"),
        ("add_noqa", "fix"),
        ("add_noqa", "watch"),
        ("add_noqa", "statistics"),
        ("add_noqa", "ignore_noqa"),
        ("statistics", "diff"),
        ("statistics", "watch"),
        ("show_files", "show_settings"),
        ("watch", "stdin_filename"),
    ]
    for a, b in conflicts:
        if getattr(args, a) and getattr(args, b):
            raise _UserError(
                f"the argument '--{a.replace('_', '-')}' cannot be used with '--{b.replace('_', '-')}'"
            )
    stdin = args.paths == ["-"] or (args.stdin_filename is not None and not args.paths)
    if "-" in (args.paths or []) and not stdin:
        raise _UserError("`-` (stdin) cannot be checked together with other paths")
    if stdin and (args.add_noqa or args.watch):
        raise _UserError("`--add-noqa` and `--watch` need files, not stdin")
    return stdin


def _check_once(check: CheckOptions) -> int:
    """One ``hwlint check``: discover the files (or read stdin), check (and plan or apply fixes
    to) each group of them, then write what the run found."""
    from ..fix.outcome import FixOptions
    from ..pipeline.config import discover

    configs = load_configs(check.config)
    if check.stdin:
        return check_stdin(check, configs)
    skipped: list = []
    paths = list(discover(check.given, configs, check.force_exclude, skipped))
    if check.show_files:
        for s in skipped:
            warn("hwlint", s)
        sys.stdout.write("".join(f"{shown_path(p)}\n" for p in sorted(paths)))
        return EXIT_CLEAN
    if check.show_settings:
        return _show_settings(configs, paths)
    report = check.report
    fix = check.fix or report.fix_only
    options = FixOptions(fix, check.unsafe_fixes, report.diff, report.show_fixes, tuple(check.given))
    selection_for = selections(configs)
    baselines = Baselines(check.baseline, configs)
    # --fix, --diff and --show-fixes plan (and fix) each file in the check's own pass over it
    planning = (fix or report.diff or report.show_fixes) and not check.add_noqa
    describing = FORMATS[report.output_format].describes_fixes and not (report.statistics or report.fix_only)
    found_all, runs, describers = _check_groups(
        check, configs, paths, options, selection_for, baselines, planning, describing
    )
    # a directory discovery could not list is an HWC901 finding of no group (as ruff's E902)
    unlisted = skipped_findings(skipped, selection_for)
    if not paths:  # ruff's words; the run is clean but says that it looked at nothing
        print("warning: No test files found under the given path(s)", file=sys.stderr)
    for warning in baselines.warnings:
        warn("hwlint", warning)
    if check.add_noqa:
        return _add_noqa([f for _, findings in found_all for f in findings], configs.trees)
    run = _merge_runs(runs, options, unlisted)
    return _finish(report, run, describers if describing else None, configs.trees)


def _check_groups(
    check: CheckOptions, configs, paths, options, selection_for, baselines, planning, describing
):
    """Each group of *paths* (one taxonomy, size cap and roots) checked in one pass, and fixed with
    *planning*: (path, findings) of every file, each group's CheckRun, and with *describing* the
    (session, resolvers) its findings' fixes are described from."""
    taxonomies = Taxonomies(not check.run.no_cache, configs.trees)
    taxonomies(configs.primary.taxonomy)  # a bad taxonomy is an error, whether a file needs it or not
    found_all: list = []
    runs = []
    describers = []
    said: set[str] = set()
    for config, group in groups(paths, configs):
        taxonomy = taxonomies(config.taxonomy)
        form = None
        # the enum's import a fix writes, and the JSON describes: what the tree's torch defines
        if planning or describing:
            from ..edits.torch_enum import enum_form, with_enum_form

            form = enum_form(taxonomy, group)
            taxonomy = with_enum_form(taxonomy, form)
        session = session_for(check.run, configs, taxonomy, config, check.paths, paths, group)
        say_notices(session, said)

        def fixable(path: str) -> bool:
            baseline = baselines.for_path(path)
            return baseline is None or path not in baseline

        found, checked, planned = check_all(
            session,
            group,
            selection_for,
            options if planning else None,
            fixable if baselines.any else None,
        )
        # the files whose findings depend on other files are planned as they were checked
        resolvers = checked.resolvers() if (planning or describing) and checked.linked else {}
        found, stale = baselines.apply(found)
        found_all += found
        if check.add_noqa:
            continue
        run = _fix_group(found, session, selection_for, options, planned, resolvers, planning)
        run.stale = stale
        if form is not None and planning:
            run.notes.append(form.describe(taxonomy))
        runs.append(run)
        if describing:
            describers.append((session, resolvers))
    return found_all, runs, describers


def _finish(report: ReportOptions, run, describers, trees) -> int:
    """Write the merged *run* as the options ask (the fixes made, a diff, the fix report or the
    findings) and return the exit code; *describers*: see :func:`_describers` (None: no JSON fix);
    *trees*: the run's, which the source lines shown are read as."""
    for warning in run.warnings:
        warn("hwlint", warning)
    if run.files_fixed:
        from ..rules.registry import counted

        files = run.files_fixed
        fixed = counted(f.code for f in fixed_findings(run))
        print(
            f"hwlint: fixed {fixed} in {files} file{'s' if files != 1 else ''}",
            file=sys.stderr,
        )
        for note in dict.fromkeys(run.notes):
            print(f"hwlint: {note}", file=sys.stderr)
    fixed_any = bool(run.files_fixed) and report.exit_non_zero_on_fix
    if report.diff:  # as in ruff: exit 1 when something would change
        from ..fix.describe import write_diff

        status = EXIT_FINDINGS if run.would_fix and not report.exit_zero else EXIT_CLEAN

        def diff() -> None:
            write_diff(run, sys.stdout, sys.stderr)
            if report.show_fixes:  # on stderr: stdout stays a patch `git apply` takes
                from ..fix.describe import write_fix_report

                write_fix_report(run, sys.stderr)

        return written(status, diff)
    if report.fix_only:  # as ruff: fix, report nothing left over, exit 0 (1 with --exit-non-zero-on-fix)
        status = EXIT_FINDINGS if fixed_any else EXIT_CLEAN
        if report.show_fixes:
            from ..fix.describe import write_fix_report

            def report() -> None:
                with output_to(report.output_file) as out:
                    write_fix_report(run, out)

            return written(status, report)
        return status
    findings = sorted([*run.findings, *run.stale], key=lambda f: f.sort_key())
    describe_fix = None
    if describers is not None:
        describe_fix = _describers(findings, describers)
    clean = not fixed_any and (report.exit_zero or not findings)
    status = EXIT_CLEAN if clean else EXIT_FINDINGS

    def write() -> None:
        with output_to(report.output_file) as out:
            write_findings(report, out, run, findings, describe_fix, trees=trees)

    return written(status, write)


def _fix_group(found, session, selection_for, options, planned, resolvers, planning):
    from ..fix.outcome import CheckRun

    if planning:
        from ..fix.apply import apply_fixes

        progress = show_progress(session)
        return apply_fixes(found, session, selection_for, options, planned, resolvers, progress)
    return CheckRun.unplanned(options, found)  # a check that plans no fix never loads the fixer


def _merge_runs(runs, options, unlisted):
    """One CheckRun of the runs of every group (and the findings of directories not listed)."""
    from ..fix.outcome import CheckRun, FilePlan

    merged = CheckRun(options)
    for r in runs:
        merged.plans += r.plans
        merged.results += r.results
        merged.fixed += r.fixed
        merged.files_fixed += r.files_fixed
        merged.warnings += r.warnings
        merged.notes += r.notes
        merged.stale += r.stale
    merged.plans += [FilePlan(path, None, None, findings) for path, findings in unlisted]
    return merged


def _describers(findings, describers):
    """The JSON ``fix`` object of each finding, from the group (taxonomy) its file was checked in."""
    from ..fix.describe import describe_fixes

    made = [describe_fixes(findings, session, res) for session, res in describers]
    if len(made) == 1:
        return made[0]

    def describe(f):
        for d in made:
            out = d(f)
            if out is not None:
                return out
        return None

    return describe


def _show_settings(configs, paths) -> int:
    """``--show-settings``: the configuration that governs the first file (ruff's), and which
    configurations the other files follow."""
    first = paths[0] if paths else None
    cfg = configs.for_path(first) if first else configs.primary
    print(f"Resolved settings for: {shown_path(first) if first else '(no test file found)'}")
    for key, value in cfg.settings():
        print(visible(f"  {key} = {value!r}" if not isinstance(value, str) else f"  {key} = {value}"))
    others = {}
    for p in paths:
        c = configs.for_path(p)
        if c is not cfg:
            others.setdefault(str(c.source or "(defaults)"), []).append(p)
    for source, files in others.items():
        print(f"{len(files)} other file{'s' if len(files) != 1 else ''} follow {visible(source)}")
    return EXIT_CLEAN


def _add_noqa(findings, trees) -> int:
    from ..fix.noqa import add_noqa

    added, warnings, failed = add_noqa(findings, trees)
    for warning in warnings:
        warn("hwlint", warning)
    print(f"Added {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
    # findings left unsilenced are findings: exit 1, as for any (ruff exits 0 even then)
    return EXIT_FINDINGS if failed else EXIT_CLEAN


def _check_selector_options(args) -> None:
    """An unknown --select/--ignore code is a usage error (exit 2), never a silently empty run."""
    from ..rules.check import unknown_selectors

    for option in ("select", "extend_select", "ignore", "extend_ignore"):
        bad = unknown_selectors(getattr(args, option) or ())
        if bad:
            flag = "--" + option.replace("_", "-")
            raise _UserError(
                f"invalid value {bad[0]!r} for '{flag}': no rule code starts with it "
                "(`hwlint rule --all` lists the rules)"
            )


if __name__ == "__main__":
    sys.exit(main())
