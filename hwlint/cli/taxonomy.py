"""``hwlint taxonomy check`` and ``show``: validate taxonomy files, print the effective one."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .common import EXIT_CLEAN, EXIT_ERROR
from .run import ConfigOptions, load_configs, read_taxonomy

if TYPE_CHECKING:
    from ..pipeline.session import RunOptions


def cmd_taxonomy_check(files: Sequence[str]) -> int:
    """``hwlint taxonomy check FILE...``: each of *files* validated."""
    from ..taxonomy import TaxonomyError, load_taxonomy

    status = EXIT_CLEAN
    for f in files:
        try:
            t = load_taxonomy(f)
        except TaxonomyError as e:
            print(f"hwlint: error: {e}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        print(f"{f}: ok ({len(t.classifications)} classifications, {len(t.runners)} runners)")
    return status


def cmd_taxonomy_show(options: ConfigOptions, run: RunOptions, output_format: str) -> int:
    """``hwlint taxonomy show``: the effective taxonomy of the configuration *options* find (or
    ``--taxonomy``), in *output_format*; its parse remembered as the session's options *run* allow."""
    import json

    import yaml

    from ..taxonomy import effective_dict

    configs = load_configs(options)
    config = configs.primary
    taxonomy = read_taxonomy(options.taxonomy or config.taxonomy, not run.no_cache, configs.trees)
    data = effective_dict(taxonomy)
    if output_format == "json":
        print(json.dumps(data, indent=2))
    else:
        print(f"# effective taxonomy from {taxonomy.path}")
        print(yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100), end="")
    return EXIT_CLEAN
