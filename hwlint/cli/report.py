"""``hwlint report``: where a suite's migration stands, in one of the report's formats."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .common import EXIT_CLEAN, run_options, warn
from .common import UserError as _UserError
from .run import ConfigOptions, load_configs, read_taxonomy

if TYPE_CHECKING:
    from ..pipeline.session import RunOptions


@dataclass(frozen=True)
class ReportCommandOptions:
    """What ``hwlint report``'s arguments ask, typed: read once from the parsed arguments
    (:meth:`of`), the command then reads these, never the arguments."""

    paths: tuple[str, ...]  # as given (none: the current directory)
    format: str
    output: str | None
    base_url: str | None
    compare: str | None  # a saved report, or a git revision
    depth: int | None
    config: ConfigOptions
    run: RunOptions

    @classmethod
    def of(cls, args) -> ReportCommandOptions:
        return cls(
            tuple(args.paths or ()),
            args.format,
            args.output,
            args.base_url,
            args.compare,
            args.depth,
            ConfigOptions.of(args),
            run_options(args),
        )


def cmd_report(options: ReportCommandOptions) -> int:
    import os

    from ..report.compare import compare, load_report
    from ..report.data import ReportError, report_paths
    from ..report.render import RENDERERS

    if options.base_url and not options.base_url.startswith(("https://", "http://")):
        raise _UserError(f"--base-url {options.base_url!r}: expected an http:// or https:// URL")
    configs = load_configs(options.config)
    taxonomy = read_taxonomy(configs.primary.taxonomy, not options.run.no_cache, configs.trees)
    for path in options.paths or ["."]:  # a report of nothing is a usage error, not "1 finding"
        if not os.path.lexists(path):
            raise _UserError(f"{path}: No such file or directory")
    # a git revision: no file of that name, and not named as a report is
    compared = options.compare
    revision = bool(compared) and not os.path.lexists(compared) and not compared.endswith(".json")
    try:
        old = load_report(options.compare) if options.compare and not revision else None
    except ReportError as e:
        raise _UserError(str(e)) from None
    skipped: list = []
    given = list(options.paths) or ["."]
    report = report_paths(given, taxonomy, configs, options.depth, options.run, skipped)
    for s in skipped:
        warn("hwlint", s)
    for warning in getattr(report, "warnings", ()):
        warn("hwlint", warning)
    doc = report.to_json()
    if old is not None:
        doc["compare"] = compare(doc, old, options.compare)
    elif revision:
        doc["compare"] = _compare_revision(doc, options, taxonomy, configs)
    # the HTML page links to sources relative to where it is written, or under --base-url
    text = RENDERERS[options.format](
        doc, output=options.output, base_url=options.base_url, needs=report.needs_person()
    )
    if not options.output:
        sys.stdout.write(text)
        return EXIT_CLEAN
    from ..effects import write_output

    try:
        write_output(options.output, text)
    except OSError as e:
        raise _UserError(f"{options.output}: cannot write: {e.strerror or e}") from None
    return EXIT_CLEAN


def _compare_revision(doc: dict, options: ReportCommandOptions, taxonomy, configs) -> dict:
    """``--compare REV``: against the revision's files, read from git (hwselect diff's reading)."""
    from ..report.compare import compare_revision
    from ..select.revisions import RevisionError

    try:
        return compare_revision(doc, options.compare, list(options.paths), taxonomy, configs, options.run)
    except RevisionError as e:
        raise _UserError(f"--compare {options.compare}: not a report file, nor a revision: {e}") from None
