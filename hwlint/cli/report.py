"""``hwlint report``: where a suite's migration stands, in one of the report's formats."""

from __future__ import annotations

import sys

from .common import EXIT_CLEAN, run_options, warn
from .common import UserError as _UserError
from .run import ConfigOptions, load_configs, read_taxonomy


def cmd_report(args) -> int:
    import os

    from ..report.compare import compare, load_report
    from ..report.data import ReportError, report_paths
    from ..report.render import RENDERERS

    if args.base_url and not args.base_url.startswith(("https://", "http://")):
        raise _UserError(f"--base-url {args.base_url!r}: expected an http:// or https:// URL")
    configs = load_configs(ConfigOptions.of(args))
    taxonomy = read_taxonomy(configs.primary.taxonomy, not run_options(args).no_cache, configs.trees)
    for path in args.paths or ["."]:  # a report of nothing is a usage error, not "1 finding"
        if not os.path.lexists(path):
            raise _UserError(f"{path}: No such file or directory")
    # a git revision: no file of that name, and not named as a report is
    revision = bool(args.compare) and not os.path.lexists(args.compare) and not args.compare.endswith(".json")
    try:
        old = load_report(args.compare) if args.compare and not revision else None
    except ReportError as e:
        raise _UserError(str(e)) from None
    skipped: list = []
    report = report_paths(args.paths or ["."], taxonomy, configs, args.depth, run_options(args), skipped)
    for s in skipped:
        warn("hwlint", s)
    for warning in getattr(report, "warnings", ()):
        warn("hwlint", warning)
    doc = report.to_json()
    if old is not None:
        doc["compare"] = compare(doc, old, args.compare)
    elif revision:
        doc["compare"] = _compare_revision(doc, args, taxonomy, configs)
    # the HTML page links to sources relative to where it is written, or under --base-url
    text = RENDERERS[args.format](
        doc, output=args.output, base_url=args.base_url, needs=report.needs_person()
    )
    if not args.output:
        sys.stdout.write(text)
        return EXIT_CLEAN
    from ..effects import write_output

    try:
        write_output(args.output, text)
    except OSError as e:
        raise _UserError(f"{args.output}: cannot write: {e.strerror or e}") from None
    return EXIT_CLEAN


def _compare_revision(doc: dict, args, taxonomy, configs) -> dict:
    """``--compare REV``: against the revision's files, read from git (hwselect diff's reading)."""
    from ..report.compare import compare_revision
    from ..select.revisions import RevisionError

    try:
        return compare_revision(doc, args.compare, list(args.paths), taxonomy, configs, run_options(args))
    except RevisionError as e:
        raise _UserError(f"--compare {args.compare}: not a report file, nor a revision: {e}") from None
