"""flake8 plugin (code prefix ``HWC``): the same findings as ``hwlint check``, through flake8.

flake8 parses the file, handles ``# noqa`` and selection; this adapter only builds the model from the
tree flake8 hands over and runs the rules. A file that does not parse is flake8's E999, not HWC901.

flake8 hands over one file at a time. Where a base or an instantiated class of it comes from a test
module it imports (a file named as ``hwlint check`` discovers test files), that module is loaded
(once per process) and the rules see it, as ``hwlint check`` does. What only another module can
tell, that it instantiates a class of this file, flake8 cannot know: HWC102 stays file-local here.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from typing import Any

from . import __version__
from .model import model_from_tree
from .pipeline.config import is_test_file_name
from .project import around
from .rules.check import run_rules
from .rules.registry import RULES
from .taxonomy import Taxonomy, TaxonomyError, load_taxonomy


class HWLintPlugin:
    name = "hwlint"
    version = __version__
    taxonomy: Taxonomy | None = None

    def __init__(self, tree: ast.Module, filename: str, lines: list[str]):
        self.tree = tree
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        option_manager.add_option(
            "--hw-taxonomy",
            default=None,
            parse_from_config=True,
            normalize_paths=True,
            metavar="FILE",
            help="hwlint taxonomy YAML for the HWC checks (default: the bundled taxonomy).",
        )

    @classmethod
    def parse_options(cls, options: Any) -> None:
        try:
            cls.taxonomy = load_taxonomy(options.hw_taxonomy)
        except TaxonomyError as e:
            print(f"hwlint: error: {e}", file=sys.stderr)
            raise SystemExit(2) from None

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        taxonomy = self.taxonomy or load_taxonomy()
        try:
            model = model_from_tree(self.tree, "".join(self.lines), self.filename, taxonomy)
            if model.error is None:
                model = around(model, taxonomy, accept=is_test_file_name)
        except Exception as e:  # a bug of ours is a finding for this file, never a flake8 traceback
            error = f"{type(e).__name__}: {e}".rstrip(".")
            yield 1, 0, "HWC900 " + RULES["HWC900"].message.format(rule="model", error=error), type(self)
            return
        for f in run_rules(model, taxonomy, noqa=False):
            yield f.line, f.col, f"{f.code} {f.message}", type(self)
