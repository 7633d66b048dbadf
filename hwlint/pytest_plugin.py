"""pytest plugin: ``pytest --hw-runner RUNNER`` runs exactly the tests that runner executes.

Registered through the ``pytest11`` entry point and inert unless ``--hw-runner`` is given. It asks the
same selector as ``hwselect`` which classes the runner runs in each collected file, and deselects
every other item, so none of ``-k``'s substring or length limits apply. Each option takes exactly
one value (upstream's ``--hw-classification`` takes ``nargs="+"`` and swallows the paths after it).
"""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hwselect", "hardware classification (hwlint)")
    group.addoption("--hw-runner", metavar="RUNNER", help="run only the tests this taxonomy runner executes")
    group.addoption("--hw-taxonomy", metavar="FILE", help="taxonomy YAML (default: [tool.hwlint] or bundled)")
    group.addoption("--hw-backend", metavar="NAME", help="PrivateUse1 backend name of this runner")
    group.addoption(
        "--hw-include-unclassified", action="store_true", help="with --hw-runner, keep unclassified classes"
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("hw_runner"):
        config.pluginmanager.register(_HwSelect(config), "hwselect-runner")


class _HwSelect:
    def __init__(self, config: pytest.Config):
        from .config import ConfigError, load_config
        from .select import SelectionError, get_runner
        from .taxonomy import TaxonomyError, load_taxonomy

        self.config = config
        try:
            hw = load_config(start=config.rootpath)
            self.taxonomy = load_taxonomy(config.getoption("hw_taxonomy") or hw.taxonomy)
            self.runner = get_runner(self.taxonomy, config.getoption("hw_runner"))
        except (ConfigError, TaxonomyError, SelectionError) as e:
            raise pytest.UsageError(f"--hw-runner: {e}") from None
        backend = config.getoption("hw_backend")
        self.backends = (backend,) if backend else ()
        self.include_unclassified = config.getoption("hw_include_unclassified")
        self.summary = ""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        from .select import select_files

        paths = sorted({str(item.path) for item in items})
        sel = select_files(self.taxonomy, self.runner, paths, self.backends, self.include_unclassified)
        keep_names: dict[str, set[str]] = {}
        generics: dict[str, set[str]] = {}
        for c in sel.selected:
            key = os.path.normcase(c.path)
            keep_names.setdefault(key, set()).update(c.names)
            if c.generic and self.runner.device == "privateuse1":
                generics.setdefault(key, set()).add(c.generic)
        kept, dropped = [], []
        for item in items:
            key = os.path.normcase(str(item.path))
            cls = getattr(item, "cls", None)
            keep = cls is not None and (
                cls.__name__ in keep_names.get(key, ()) or self._backend_named(cls, generics.get(key, ()))
            )
            (kept if keep else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        root = str(config.rootpath) + os.sep
        self.warnings = [w.replace(root, "") for w in sel.warnings]
        self.summary = f"{sel.summary()}; items: kept={len(kept)}, deselected={len(dropped)}"

    def _backend_named(self, cls: type, generics: set[str] | tuple[()]) -> bool:
        """A PrivateUse1 class named after a backend nobody told hwselect about.

        The live class shows what no static view can: it was generated from a selected generic
        class (its bases include it) under a suffix that is no other device type's.
        """
        others = {d.upper() for d in self.taxonomy.devices if d != "privateuse1"}
        for base in cls.__bases__:
            name = base.__name__
            if name in generics and cls.__name__.startswith(name):
                return cls.__name__[len(name) :] not in others
        return False

    def pytest_report_collectionfinish(self, config: pytest.Config) -> list[str]:
        return [*(f"hwselect warning: {w}" for w in getattr(self, "warnings", ())), self.summary]
