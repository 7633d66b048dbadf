"""``hwlint baseline``: record today's findings so that a check reports only new ones."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from ..pipeline.session import RunOptions


@dataclass(frozen=True)
class BaselineOptions:
    """What ``hwlint baseline``'s arguments ask, typed: read once from the parsed arguments
    (:meth:`of`), the command then reads these, never the arguments."""

    paths: tuple[str, ...]  # as given (none: the current directory)
    output: str | None  # `-o FILE` (else the configuration's baseline)
    regenerate: bool
    config: ConfigOptions
    run: RunOptions

    @classmethod
    def of(cls, args) -> BaselineOptions:
        paths = tuple(args.paths or ())
        return cls(paths, args.output, args.regenerate, ConfigOptions.of(args), run_options(args))


def cmd_baseline(baseline: BaselineOptions) -> int:
    """Record today's findings, (file, class, code) with a count, in a baseline
    (``--regenerate`` to rewrite one)."""
    import os

    from ..pipeline.baseline import baseline_entries, write_baseline
    from ..pipeline.config import discover

    configs = load_configs(baseline.config)
    primary = configs.primary
    output = baseline.output or primary.baseline or "hwlint-baseline.json"
    if os.path.lexists(output) and not baseline.regenerate:
        raise _UserError(f"{output} exists; pass --regenerate to rewrite it")
    skipped: list = []
    paths = list(discover(list(baseline.paths) or ["."], configs, skipped=skipped))
    selection_for = selections(configs)
    taxonomies = Taxonomies(not baseline.run.no_cache, configs.trees)
    taxonomies(primary.taxonomy)
    found = []
    said: set[str] = set()
    for config, group in groups(paths, configs):
        taxonomy = taxonomies(config.taxonomy)
        session = session_for(baseline.run, configs, taxonomy, config, baseline.paths, paths, group)
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
