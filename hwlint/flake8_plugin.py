"""flake8 plugin (code prefix ``HWC``): the same findings as ``hwlint check``, through flake8.

flake8 parses the file, handles ``# noqa`` and selection; this adapter only builds the model from the
tree flake8 hands over and runs the rules. A file that does not parse is flake8's E999, not HWC901.

flake8 hands over every ``.py`` file; the plugin reports on the files ``hwlint check`` checks: a
file named on flake8's command line, or one that the ``include`` of its ``[tool.hwlint]``
configuration takes (``test_*.py``, ``*_test.py``) and its ``exclude`` does not skip. Of that
configuration it also applies ``select``/``ignore`` and ``per-file-ignores``, and the file-level
``# hwlint: noqa[: CODES]``. flake8 itself skips a file holding ``# flake8: noqa`` before any
plugin sees it; ``hwlint check`` and the lintrunner adapter check such a file (they stand in for
upstream's linter, which reads no flake8 comment): the one difference between the front ends.
The taxonomy is ``--hw-taxonomy``'s.

flake8 hands over one file at a time. Where a base or an instantiated class of it comes from a test
module it imports (a file named as ``hwlint check`` discovers test files), that module is loaded
(once per process) and the rules see it, as ``hwlint check`` does. What only another module can
tell, that it instantiates a class of this file, is read from the project's files (the current
directory's check scope: :class:`hwlint.project.Instantiators`), once per process.

An internal error (HWC900) or a file that cannot be checked (HWC901) is reported on line 0, as
flake8 reports its own E902: flake8 reads a ``# noqa`` from the physical line a finding is on,
and line 1's ``import torch  # noqa`` must not hide that the file went unchecked.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Iterator
from typing import Any

from . import __version__
from .model import model_from_tree
from .pipeline.config import ConfigError, Configs
from .pipeline.session import RunOptions, Session
from .project import around
from .rules.check import WHOLE_FILE, Selection, run_rules, selector_problem
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

    configs: Configs | None = None
    named: frozenset[str] = frozenset()  # the files named on flake8's command line

    @classmethod
    def parse_options(cls, options: Any) -> None:
        try:
            cls.taxonomy = load_taxonomy(options.hw_taxonomy)
            filenames = list(getattr(options, "filenames", None) or [])
            cls.configs = Configs(filenames, validate=selector_problem)
        except (TaxonomyError, ConfigError) as e:
            print(f"hwlint: error: {e}", file=sys.stderr)
            raise SystemExit(2) from None
        cls.named = frozenset(os.path.normpath(f) for f in filenames if not os.path.isdir(f))
        cls.session = None  # made on first use, once per process (flake8's -j forks after this)

    session: Session | None = None

    @classmethod
    def _session(cls, taxonomy: Taxonomy) -> Session:
        """The session of the run, as ``hwlint check`` builds it: imports followed into the
        project's test files, which are read (listed on first use) for instantiations of a
        class of another file. flake8 keeps no cache of ours and runs its own processes."""
        if cls.session is None:
            configs = cls.configs or Configs()
            options = RunOptions(jobs=1, no_cache=True)
            cls.session = Session.from_config(configs.primary, options, taxonomy, configs, project=True)
        return cls.session

    def _scope(self) -> Selection | None:
        """The Selection for this file, or None when ``hwlint check`` would not check it."""
        configs = self.configs or Configs()
        path = self.filename
        cfg = configs.for_path(path)
        selection = Selection(cfg.select, cfg.ignore).with_ignored(cfg.ignored_for(path))
        if os.path.normpath(path) in self.named or path in ("stdin", "-"):
            return selection  # named files are always checked, as hwlint check does
        if not cfg.is_included(os.path.basename(path)) or cfg.is_excluded(path):
            return None
        return selection

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        taxonomy = self.taxonomy or load_taxonomy()
        try:
            selection = self._scope()
        except ConfigError as e:  # a configuration met on the way: said where it is, once per file
            yield 0, 0, "HWC900 " + RULES["HWC900"].message.format(rule="configuration", error=e), type(self)
            return
        if selection is None:
            return
        try:
            model = model_from_tree(self.tree, "".join(self.lines), self.filename, taxonomy)
            if model.error is None:
                session = self._session(taxonomy)
                model = around(
                    model, taxonomy, session.roots, session.follow, session.instantiators, session.trees
                )
        except Exception as e:  # a bug of ours is a finding for this file, never a flake8 traceback
            error = f"{type(e).__name__}: {e}".rstrip(".")
            yield 0, 0, "HWC900 " + RULES["HWC900"].message.format(rule="model", error=error), type(self)
            return
        for f in run_rules(model, taxonomy, selection, noqa=False):
            if model.exempts(f.code):  # hwlint's file-level noqa: flake8 does not know it
                continue
            if f.code in WHOLE_FILE:  # on no line a noqa comment can be on
                yield 0, 0, f"{f.code} {f.message}", type(self)
            else:
                yield f.line, f.col, f"{f.code} {f.message}", type(self)
