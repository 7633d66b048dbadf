"""``hwlint baseline``: record today's findings so that a check reports only new ones."""

from __future__ import annotations

import sys

from .common import EXIT_CLEAN, run_options
from .common import UserError as _UserError
from .run import (
    ConfigOptions,
    Taxonomies,
    check_all,
    groups,
    load_configs,
    say_notices,
    selections,
    session_for,
    skipped_findings,
)


def cmd_baseline(args) -> int:
    """Record today's findings, (file, class, code) with a count, in a baseline
    (``--regenerate`` to rewrite one)."""
    import os

    from ..pipeline.baseline import baseline_entries, write_baseline
    from ..pipeline.config import discover

    configs = load_configs(ConfigOptions.of(args))
    primary = configs.primary
    output = args.output or primary.baseline or "hwlint-baseline.json"
    if os.path.lexists(output) and not args.regenerate:
        raise _UserError(f"{output} exists; pass --regenerate to rewrite it")
    skipped: list = []
    paths = list(discover(args.paths or ["."], configs, skipped=skipped))
    selection_for = selections(configs)
    taxonomies = Taxonomies(not run_options(args).no_cache, configs.trees)
    taxonomies(primary.taxonomy)
    found = []
    options, said = run_options(args), set()
    for config, group in groups(paths, configs):
        session = session_for(options, configs, taxonomies(config.taxonomy), config, args.paths, paths, group)
        say_notices(session, said)
        found += check_all(session, group, selection_for)[0]
    found += skipped_findings(skipped, selection_for)
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
