"""``hwlint taxonomy check`` and ``show``: validate taxonomy files, print the effective one."""

from __future__ import annotations

import sys

from .common import EXIT_CLEAN, EXIT_ERROR, run_options
from .run import ConfigOptions, load_configs, read_taxonomy


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

    configs = load_configs(ConfigOptions.of(args))
    config = configs.primary
    taxonomy = read_taxonomy(args.taxonomy or config.taxonomy, not run_options(args).no_cache, configs.trees)
    data = effective_dict(taxonomy)
    if args.format == "json":
        print(json.dumps(data, indent=2))
    else:
        print(f"# effective taxonomy from {taxonomy.path}")
        print(yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100), end="")
    return EXIT_CLEAN
