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

from .. import __version__
from .common import Parser as _Parser
from .common import UserError as _UserError
from .common import add_engine_options, guarded, unrecognized, written

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
    check.add_argument("--output-format", choices=FORMATS, default="concise")
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
    tshow.add_argument("--config", metavar="CONFIG_OPTION", action="append", default=[])
    tshow.add_argument("--format", choices=("yaml", "json"), default="yaml")
    parser.commands = sub.choices
    tax.commands = tax_sub.choices
    return parser


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
    from ..report.render import FORMATS as REPORT_FORMATS

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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hwlint`` console script."""
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


def _load_configs(args, paths: Sequence[str] | None = None):
    """The :class:`~hwlint.pipeline.config.Configs` of a command: each file's nearest
    configuration, or the one ``--config FILE`` / ``--isolated`` pins, with the command line's
    settings (``--config "key = value"``, then the dedicated options) applied over every one."""
    from ..pipeline.config import ConfigError, Configs, is_override, parse_override
    from ..rules.check import validate_selectors

    config_file = None
    overrides: list = []
    try:
        for value in getattr(args, "config", None) or []:
            if not is_override(value):
                if config_file is not None:
                    raise _UserError(
                        f"more than one configuration file on the command line: `--config={config_file}` "
                        f"and `--config={value}`"
                    )
                config_file = value
                continue
            try:
                settings = parse_override(value)
            except ConfigError as e:
                raise _UserError(f"invalid value {value!r} for '--config': {e}") from None
            _check_override_selectors(value, settings)
            overrides += settings
        overrides += _flag_settings(args)
        validate = validate_selectors if args.command in ("check", "baseline") else None
        paths = getattr(args, "paths", None) or [] if paths is None else paths
        return Configs(paths, config_file, getattr(args, "isolated", False), overrides, validate)
    except ConfigError as e:
        raise _UserError(str(e)) from None


def _flag_settings(args) -> list:
    """The dedicated options as settings over every configuration: they win over the files and over
    ``--config`` overrides, as ruff's do."""

    out: list = []
    if getattr(args, "taxonomy", None):
        out.append(("taxonomy", args.taxonomy))  # relative to the current directory, as given
    if getattr(args, "max_file_size", None):
        out.append(("max-file-size", args.max_file_size))
    if getattr(args, "respect_gitignore", None) is not None:
        out.append(("respect-gitignore", args.respect_gitignore))
    if getattr(args, "exclude", None) is not None:
        out.append(("exclude", tuple(args.exclude)))
    if getattr(args, "extend_exclude", None):
        out.append(("extend-exclude", tuple(args.extend_exclude)))
    for option in ("select", "ignore", "extend_select", "extend_ignore"):
        value = getattr(args, option, None)
        if value is not None and (value or option in ("select", "ignore")):
            out.append((option.replace("_", "-"), tuple(value)))
    return out


def _check_override_selectors(value: str, settings) -> None:
    from ..rules.check import unknown_selectors

    for key, v in settings:
        codes = [c for _, cs in v for c in cs] if key == "per-file-ignores" else v
        if key in ("select", "extend-select", "ignore", "extend-ignore", "per-file-ignores"):
            bad = unknown_selectors(codes)
            if bad:
                raise _UserError(
                    f"invalid value {value!r} for '--config': {key}: unknown rule selector {bad[0]!r} "
                    "(`hwlint rule --all` lists the rules)"
                )


def _load_config(args):
    """The configuration of the first path (commands that read one: ``taxonomy show``)."""
    return _load_configs(args).primary


def _load_taxonomy(path: str | None, args=None):
    from ..pipeline.config import ConfigError, read_bounded
    from ..taxonomy import TaxonomyError, load_taxonomy

    try:
        if path is not None:
            # a taxonomy a configuration names is read only if it is a regular file of a sane size
            # (TODO(lead): read it through this helper in hwlint.taxonomy, not twice)
            read_bounded(path, "taxonomy", TAXONOMY_MAX_BYTES)
        return load_taxonomy(path, remember=not getattr(args, "no_cache", False))
    except (TaxonomyError, ConfigError) as e:
        raise _UserError(str(e)) from None


#: a taxonomy is a few KB of YAML; the bundled one 10 KB
TAXONOMY_MAX_BYTES = 4 * 1024 * 1024


class _Taxonomies:
    """The taxonomies of one run, by path, each loaded once (None: the bundled one)."""

    def __init__(self, args):
        self.args = args
        self.loaded: dict[str | None, object] = {}

    def __call__(self, path: str | None):
        if path not in self.loaded:
            self.loaded[path] = _load_taxonomy(path, self.args)
        return self.loaded[path]


def _selection_for(configs):
    """path -> the Selection its configuration (with the command line's over it) enables."""
    from ..rules.check import Selection

    def selection_for(path: str) -> Selection:
        cfg = configs.for_path(path)
        return Selection(cfg.select, cfg.ignore).with_ignored(cfg.ignored_for(path))

    return selection_for


def _groups(paths: Sequence[str], configs) -> list[tuple[tuple, list[str]]]:
    """*paths* grouped by what the engine needs one of per run: the taxonomy, the size cap and the
    import roots of the configuration that governs each file; in the order of first appearance.

    Each group is checked as a project of its own (cross-file links do not cross groups): a run
    over files whose configurations name different taxonomies is several runs."""
    groups: dict[tuple, list[str]] = {}
    for path in paths:
        cfg = configs.for_path(path)
        groups.setdefault((cfg.taxonomy, cfg.max_file_size, cfg.roots), []).append(path)
    return list(groups.items())


def cmd_check(args) -> int:
    _check_options(args)
    if args.watch:
        return _watch(args)
    return _check_once(args)


def _check_options(args) -> None:
    """Combinations ruff refuses, refused the same way (exit 2)."""
    _check_selector_options(args)
    conflicts = [
        ("exit_zero", "exit_non_zero_on_fix"),
        ("add_noqa", "fix"),
        ("add_noqa", "watch"),
        ("add_noqa", "statistics"),
        ("statistics", "diff"),
        ("statistics", "watch"),
        ("show_files", "show_settings"),
        ("diff", "show_fixes"),
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
    args.stdin = stdin


def _check_once(args) -> int:
    from ..fix.outcome import FixOptions
    from ..pipeline.config import discover

    configs = _load_configs(args)
    if args.stdin:
        return _check_stdin(args, configs)
    skipped: list = []
    paths = list(discover(args.paths or ["."], configs, args.force_exclude, skipped))
    if args.show_files:
        for s in skipped:
            print(f"hwlint: warning: {s}", file=sys.stderr)
        sys.stdout.write("".join(f"{p}\n" for p in sorted(paths)))
        return EXIT_CLEAN
    if args.show_settings:
        return _show_settings(configs, paths)
    fix = args.fix or args.fix_only
    options = FixOptions(fix, args.unsafe_fixes, args.diff, args.show_fixes, tuple(args.paths or ["."]))
    selection_for = _selection_for(configs)
    baselines = _Baselines(args, configs)
    # --fix, --diff and --show-fixes plan (and fix) each file in the check's own pass over it
    planning = (fix or args.diff or args.show_fixes) and not args.add_noqa
    describing = args.output_format in ("json", "json-lines") and not args.statistics and not args.fix_only
    taxonomies = _Taxonomies(args)
    taxonomies(configs.primary.taxonomy)  # a bad taxonomy is an error, whether a file needs it or not
    found_all: list = []
    runs = []
    describers = []
    for (taxonomy_path, max_mb, roots), group in _groups(paths, configs):
        taxonomy = taxonomies(taxonomy_path)
        session = _session(args, configs, taxonomy, max_mb, roots)

        def fixable(path: str) -> bool:
            baseline = baselines.for_path(path)
            return baseline is None or path not in baseline

        found, checked, planned = _check_all(
            args,
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
        if args.add_noqa:
            continue
        run = _fix_group(args, found, session, selection_for, options, planned, resolvers, planning)
        run.stale = stale  # type: ignore[attr-defined]
        runs.append(run)
        if describing:
            describers.append((session, resolvers))
    # a directory discovery could not list is an HWC901 finding of no group (as ruff's E902)
    unlisted = _skipped_findings(skipped, selection_for)
    if not paths:  # ruff's words; the run is clean but says that it looked at nothing
        print("warning: No test files found under the given path(s)", file=sys.stderr)
    for warning in baselines.warnings:
        print(f"hwlint: warning: {warning}", file=sys.stderr)
    if args.add_noqa:
        return _add_noqa([f for _, findings in found_all for f in findings])
    run = _merge_runs(runs, options, unlisted)
    for warning in run.warnings:
        print(f"hwlint: warning: {warning}", file=sys.stderr)
    if run.files_fixed:
        from .output import counted

        files = run.files_fixed
        print(
            f"hwlint: fixed {counted(_fixed_findings(run))} in {files} file{'s' if files != 1 else ''}",
            file=sys.stderr,
        )
    fixed_any = bool(run.files_fixed) and args.exit_non_zero_on_fix
    if args.diff:  # as in ruff: exit 1 when something would change
        from ..fix.describe import write_diff

        status = EXIT_FINDINGS if run.would_fix and not args.exit_zero else EXIT_CLEAN
        return written(status, lambda: write_diff(run, sys.stdout, sys.stderr))
    if args.fix_only:  # as ruff: fix, report nothing left over, exit 0 (1 with --exit-non-zero-on-fix)
        status = EXIT_FINDINGS if fixed_any else EXIT_CLEAN
        if args.show_fixes:
            from ..fix.describe import write_fix_report

            def report() -> None:
                with _output(args.output_file) as out:
                    write_fix_report(run, out)

            return written(status, report)
        return status
    findings = sorted([*run.findings, *run.stale], key=lambda f: f.sort_key())
    describe_fix = None
    if describing:
        describe_fix = _describers(findings, describers)
    clean = not fixed_any and (args.exit_zero or not findings)
    status = EXIT_CLEAN if clean else EXIT_FINDINGS

    def write() -> None:
        with _output(args.output_file) as out:
            _write_findings(args, out, run, findings, describe_fix)

    return written(status, write)


def _fix_group(args, found, session, selection_for, options, planned, resolvers, planning):
    from ..fix.outcome import CheckRun

    if planning:
        from ..fix.apply import apply_fixes

        progress = _show_progress(args)
        return apply_fixes(found, session, selection_for, options, planned, resolvers, progress)
    return CheckRun.unplanned(options, found)  # a check that plans no fix never loads the fixer


def _merge_runs(runs, options, unlisted):
    """One CheckRun of the runs of every group (and the findings of directories not listed)."""
    from ..fix.outcome import CheckRun, FilePlan

    merged = CheckRun(options)
    merged.stale = []  # type: ignore[attr-defined]
    for r in runs:
        merged.plans += r.plans
        merged.results += r.results
        merged.fixed += r.fixed
        merged.files_fixed += r.files_fixed
        merged.warnings += r.warnings
        merged.stale += r.stale  # type: ignore[attr-defined]
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


def _skipped_findings(skipped, selection_for) -> list:
    """Of the paths discovery *skipped*, a directory it cannot list is an HWC901 finding (as
    ruff's E902); a file that is not a regular file (a FIFO) is a warning."""
    from ..rules.check import unreadable

    out = []
    for s in skipped:
        if not s.error:
            print(f"hwlint: warning: {s}", file=sys.stderr)
            continue
        selection = selection_for(s.path)
        out.append((s.path, [f for f in unreadable(s.path, s.reason) if selection.enabled(f.code)]))
    return out


def _show_settings(configs, paths) -> int:
    """``--show-settings``: the configuration that governs the first file (ruff's), and which
    configurations the other files follow."""
    first = paths[0] if paths else None
    cfg = configs.for_path(first) if first else configs.primary
    print(f"Resolved settings for: {first or '(no test file found)'}")
    for key, value in cfg.settings():
        print(f"  {key} = {value!r}" if not isinstance(value, str) else f"  {key} = {value}")
    others = {}
    for p in paths:
        c = configs.for_path(p)
        if c is not cfg:
            others.setdefault(str(c.source or "(defaults)"), []).append(p)
    for source, files in others.items():
        print(f"{len(files)} other file{'s' if len(files) != 1 else ''} follow {source}")
    return EXIT_CLEAN


class _Baselines:
    """The baselines of a run: ``--baseline FILE`` for every file (relative to the first path's
    configuration), else the one each file's configuration names."""

    def __init__(self, args, configs):
        self.args, self.configs = args, configs
        self.loaded: dict[str, object] = {}
        self.warnings: list[str] = []
        self.any = bool(args.baseline) or any(c.baseline for c in configs.all())
        self._stale_done: set[tuple] = set()
        # read now, whether or not a file follows it: a bad baseline is an error in any run
        if args.baseline:
            self._load(args.baseline, configs.primary.root)
        elif configs.primary.baseline:
            self._load(configs.primary.baseline, configs.primary.root)

    def for_path(self, path: str):
        if self.args.baseline:
            return self._load(self.args.baseline, self.configs.primary.root)
        cfg = self.configs.for_path(path)
        if cfg.baseline is None:
            return None
        self.any = True
        return self._load(cfg.baseline, cfg.root)

    def _load(self, path: str, root):
        from ..pipeline.baseline import BaselineError, load_baseline

        if path not in self.loaded:
            try:
                baseline = load_baseline(path, root)
            except BaselineError as e:
                raise _UserError(str(e)) from None
            if baseline.legacy:
                self.warnings.append(
                    f"{path}: a list of files is the first baseline format, which hides every new "
                    f"finding in a listed file; `hwlint baseline --regenerate -o {path}` records "
                    "(file, class, code)"
                )
            self.loaded[path] = baseline
        return self.loaded[path]

    def apply(self, found):
        """*found* less what the baselines record, and each baseline's stale entries (HWC902) among
        these files, each baseline's entries once over the run."""
        from ..pipeline.baseline import apply_baseline

        by_baseline: dict[str, list] = {}
        out = []
        for path, findings in found:
            baseline = self.for_path(path)
            if baseline is None:
                out.append((path, findings))
            else:
                by_baseline.setdefault(baseline.path, []).append((path, findings))
        stale = []
        for key, items in by_baseline.items():
            kept, stale_here = apply_baseline(self.loaded[key], items)
            out += kept
            fresh = [f for f in stale_here if (f.path, f.line, f.message) not in self._stale_done]
            self._stale_done.update((f.path, f.line, f.message) for f in fresh)
            stale += fresh
        order = {path: i for i, (path, _) in enumerate(found)}
        out.sort(key=lambda item: order[item[0]])
        return out, stale


def _check_stdin(args, configs) -> int:
    """``hwlint check -`` (and ``--stdin-filename NAME``): check the text on stdin as the file
    NAME (its configuration, per-file-ignores and baseline), as ruff does. With ``--fix`` (or
    ``--fix-only``) the fixed text is written to stdout and the findings left to stderr; with
    ``--diff`` the diff."""
    from ..fix.apply import fix_plan, plan_source
    from ..pipeline.config import is_test_file_name, project_files
    from ..project import around, project_instantiators

    name = args.stdin_filename or "-"
    cfg = configs.for_path(name)
    taxonomy = _load_taxonomy(cfg.taxonomy, args)
    selection = _selection_for(configs)(name)
    max_bytes = cfg.max_file_size * 1024 * 1024
    stream = getattr(sys.stdin, "buffer", None)
    data = stream.read(max_bytes + 1) if stream is not None else sys.stdin.read().encode("utf-8")
    fixing = args.fix or args.fix_only
    if args.force_exclude and args.stdin_filename and cfg.is_excluded(name):
        if fixing:
            sys.stdout.buffer.write(data) if stream is not None else sys.stdout.write(data.decode("utf-8"))
        return EXIT_CLEAN
    if len(data) > max_bytes:
        from ..rules.check import unreadable

        reason = f"the file is larger than the {cfg.max_file_size} MB limit (--max-file-size)"
        findings = [f for f in unreadable(name, reason) if selection.enabled(f.code)]
        plan = None
    else:
        plan = plan_source(data, name, taxonomy, selection)
        if plan.model is not None and plan.model.error is None:
            # as the flake8 plugin: bases and instantiated classes from the test modules it imports
            reverse = project_instantiators(lambda: project_files(configs), taxonomy, max_bytes)
            linked = around(plan.model, taxonomy, accept=is_test_file_name, instantiators=reverse)
            if linked is not plan.model:
                plan = plan_source(data, name, taxonomy, selection, linked.resolver)
        findings = list(plan.findings)
    baseline = _Baselines(args, configs).for_path(name) if name != "-" else None
    if baseline is not None:
        findings = baseline.unrecorded(name, findings)
    result = None
    if plan is not None and (fixing or args.diff):
        result = fix_plan(plan, taxonomy, selection, args.unsafe_fixes)
    changed = result is not None and result.changed and result.after is not None
    if args.diff:
        from ..fix.diff import unified_diff

        sys.stdout.write(unified_diff(result) if changed else "")
        n = len(result.fixed) if changed else 0
        print(
            f"Would fix {n} error{'s' if n != 1 else ''}." if n else "No errors would be fixed.",
            file=sys.stderr,
        )
        return EXIT_FINDINGS if n and not args.exit_zero else EXIT_CLEAN
    if fixing:
        fixed = result.after.data if changed else data
        if stream is not None:
            sys.stdout.buffer.write(fixed)
            sys.stdout.flush()
        else:
            sys.stdout.write(fixed.decode("utf-8", "replace"))
        remaining = [f for f in result.after.findings if selection.enabled(f.code)] if changed else findings
        if baseline is not None:
            remaining = baseline.unrecorded(name, remaining)
        n_fixed = len(result.fixed) if changed else 0
        if args.fix_only:
            return EXIT_FINDINGS if n_fixed and args.exit_non_zero_on_fix else EXIT_CLEAN
        from ..fix.outcome import CheckRun, FixOptions

        run = CheckRun(FixOptions(True, args.unsafe_fixes), fixed=n_fixed)
        fixed_findings = list(result.fixed) if changed else []
        _write_findings(
            args, sys.stderr, run, sorted(remaining, key=lambda f: f.sort_key()), None, fixed_findings
        )
        if n_fixed and args.exit_non_zero_on_fix:
            return EXIT_FINDINGS
        return EXIT_CLEAN if args.exit_zero or not remaining else EXIT_FINDINGS
    from ..fix.outcome import CheckRun, FixOptions

    run = CheckRun(FixOptions(False, args.unsafe_fixes))
    findings.sort(key=lambda f: f.sort_key())
    with _output(args.output_file) as out:
        _write_findings(args, out, run, findings, None)
    return EXIT_CLEAN if args.exit_zero or not findings else EXIT_FINDINGS


def _watch(args) -> int:
    """``--watch``: check, then check again whenever a checked file, a directory on the way (a file
    added or removed) or a configuration file changes; poll-based (every HWLINT_WATCH_INTERVAL
    seconds, default 0.5), so it needs nothing but the standard library. Ends on Ctrl-C (exit 0)."""
    import os
    import time

    interval = float(os.environ.get("HWLINT_WATCH_INTERVAL", "0.5"))
    print("Starting hwlint in watch mode...", file=sys.stderr, flush=True)
    try:
        state = _watched_state(args)
        while True:
            try:
                guarded("hwlint", lambda: _check_once(args))
            finally:
                sys.stdout.flush()
            print("Watching for file changes.", file=sys.stderr, flush=True)
            while True:
                time.sleep(interval)
                now = _watched_state(args)
                if now != state:
                    state = now
                    print("File change detected...", file=sys.stderr, flush=True)
                    break
    except KeyboardInterrupt:
        return EXIT_CLEAN


def _watched_state(args) -> frozenset:
    """What a change of restarts a watched check: (path, mtime, size) of every directory and file
    under the checked paths that discovery would look at, and of the configuration files."""
    import os

    from ..pipeline.config import CONFIG_NAMES, DEFAULT_EXCLUDE

    out = set()
    skip = set(DEFAULT_EXCLUDE)
    for top in args.paths or ["."]:
        stack = [top]
        while stack:
            d = stack.pop()
            try:
                st = os.stat(d)
                out.add((d, st.st_mtime_ns, st.st_size))
                if not os.path.isdir(d):
                    continue
                with os.scandir(d) as it:
                    for e in it:
                        if e.is_dir(follow_symlinks=False):
                            if e.name not in skip:
                                stack.append(e.path)
                        elif (
                            e.name.endswith((".py", ".toml", ".yaml", ".yml", ".json"))
                            or e.name in CONFIG_NAMES
                        ):
                            s = e.stat()
                            out.add((e.path, s.st_mtime_ns, s.st_size))
            except OSError:
                continue
    return frozenset(out)


def _fixed_findings(run) -> list:
    """The findings the written fixes of *run* removed."""
    return [f for r in run.results if r.written for f in r.fixed]


def _write_findings(args, out, run, findings, describe_fix, fixed=None) -> None:
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
        fixable_count = sum(1 for f in findings if run.fixable(f))
        hidden = (
            0 if run.options.unsafe else sum(1 for f in findings if f.fix and f.fix.applicability == "unsafe")
        )
        fixed = _fixed_findings(run) if fixed is None else fixed
        out.write(summary(findings, fixable_count, fixed, hidden) + "\n")
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
    from ..rules.check import unknown_selectors

    for option in ("select", "extend_select", "ignore", "extend_ignore"):
        bad = unknown_selectors(getattr(args, option) or ())
        if bad:
            flag = "--" + option.replace("_", "-")
            raise _UserError(
                f"invalid value {bad[0]!r} for '{flag}': no rule code starts with it "
                "(`hwlint rule --all` lists the rules)"
            )


def cmd_baseline(args) -> int:
    """Record today's findings, (file, class, code) with a count, in a baseline
    (``--regenerate`` to rewrite one)."""
    import os

    from ..pipeline.baseline import baseline_entries, write_baseline
    from ..pipeline.config import discover

    configs = _load_configs(args)
    primary = configs.primary
    output = args.output or primary.baseline or "hwlint-baseline.json"
    if os.path.lexists(output) and not args.regenerate:
        raise _UserError(f"{output} exists; pass --regenerate to rewrite it")
    skipped: list = []
    paths = list(discover(args.paths or ["."], configs, skipped=skipped))
    selection_for = _selection_for(configs)
    taxonomies = _Taxonomies(args)
    taxonomies(primary.taxonomy)
    found = []
    for (taxonomy_path, max_mb, roots), group in _groups(paths, configs):
        session = _session(args, configs, taxonomies(taxonomy_path), max_mb, roots)
        found += _check_all(args, session, group, selection_for)[0]
    found += _skipped_findings(skipped, selection_for)
    # the entries are relative to the directory of the configuration that names the baseline
    root = primary.root if primary.source or configs.pinned else configs.cwd
    entries = baseline_entries([f for _, findings in found for f in findings], root)
    try:
        write_baseline(output, entries)
    except OSError as e:
        raise _UserError(f"{output}: cannot write: {e.strerror or e}") from None
    files = len({e["path"] for e in entries})
    print(
        f"hwlint: wrote {len(entries)} entr{'ies' if len(entries) != 1 else 'y'} "
        f"({files} file{'s' if files != 1 else ''}) to {output}",
        file=sys.stderr,
    )
    return EXIT_CLEAN


def _check_all(args, session, paths, selection_for, fix=None, fixable=None):
    """(path, enabled findings) for every path: parallel, cached, in the order given, seen through
    the project model; the project check (which files' findings depend on others); and the files
    planned in the same pass (with *fix*, the fix options: see :func:`hwlint.fix.check_and_fix_paths`;
    *fixable* says which paths may be fixed)."""
    from ..pipeline.check import check_project
    from ..pipeline.progress import Bar

    planned: dict = {}
    bar = Bar(len(paths), "checking", _show_progress(args))
    session = replace(session, progress=bar)
    try:
        if fix is None:
            checked = check_project(paths, session)
        else:
            from ..fix.apply import check_and_fix_paths

            checked, planned = check_and_fix_paths(paths, session, selection_for, fix, fixable)
    finally:
        bar.close()
    found = []
    for path, findings in zip(paths, checked.findings, strict=True):
        selection = selection_for(path)
        found.append((path, [f for f in findings if selection.enabled(f.code)]))
    return found, checked, planned


def _session(args, configs, taxonomy, max_mb: int, roots):
    """The pipeline session of one group of files: its taxonomy, processes, cache, size cap and
    roots; an import is followed into any file named as the configuration's tests are."""
    import functools

    from ..pipeline.config import is_test_file_name, project_files
    from ..pipeline.session import Session
    from ..project import project_instantiators

    follow = functools.partial(is_test_file_name, include=configs.primary.include)
    cache = _open_cache(args, configs, taxonomy)
    jobs = getattr(args, "jobs", None)
    max_bytes = max_mb * 1024 * 1024
    instantiators = project_instantiators(lambda: project_files(configs), taxonomy, max_bytes)
    return Session(taxonomy, jobs, cache, max_bytes, tuple(roots), follow=follow, instantiators=instantiators)


def _show_progress(args) -> bool:
    from ..pipeline.progress import wanted

    return wanted(getattr(args, "progress", False))


def cmd_report(args) -> int:
    import os

    from ..report.compare import compare, load_report
    from ..report.data import ReportError, report_paths
    from ..report.render import renderers

    if args.base_url and not args.base_url.startswith(("https://", "http://")):
        raise _UserError(f"--base-url {args.base_url!r}: expected an http:// or https:// URL")
    configs = _load_configs(args)
    taxonomy = _load_taxonomy(configs.primary.taxonomy, args)
    for path in args.paths or ["."]:  # a report of nothing is a usage error, not "1 finding"
        if not os.path.lexists(path):
            raise _UserError(f"{path}: No such file or directory")
    try:
        old = load_report(args.compare) if args.compare else None
    except ReportError as e:
        raise _UserError(str(e)) from None
    skipped: list = []
    cache = _open_cache(args, configs, taxonomy)
    report = report_paths(args.paths or ["."], taxonomy, configs, args.depth, args.jobs, cache, skipped)
    for s in skipped:
        print(f"hwlint: warning: {s}", file=sys.stderr)
    for warning in getattr(report, "warnings", ()):
        print(f"hwlint: warning: {warning}", file=sys.stderr)
    doc = report.to_json()
    if old is not None:
        doc["compare"] = compare(doc, old, args.compare)
    # the HTML page links to sources relative to where it is written, or under --base-url
    text = renderers()[args.format](doc, output=args.output, base_url=args.base_url)
    if not args.output:
        sys.stdout.write(text)
        return EXIT_CLEAN
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise _UserError(f"{args.output}: cannot write: {e.strerror or e}") from None
    return EXIT_CLEAN


def _open_cache(args, configs, taxonomy):
    from ..pipeline.cache import open_cache

    disabled = getattr(args, "no_cache", False)
    cache = open_cache(taxonomy.digest, configs.cache_root, getattr(args, "cache_dir", None), disabled)
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
    from ..model import decode_source, split_lines
    from ..rules.check import read_source

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
