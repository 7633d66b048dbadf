"""pytest plugin: ``pytest --hw-runner RUNNER`` runs exactly the tests that runner executes.

Registered through the ``pytest11`` entry point and inert unless ``--hw-runner`` is given. It asks the
same selector as ``hwselect`` which classes the runner runs in each collected file, and deselects
every other item, so none of ``-k``'s substring or length limits apply. Each option takes exactly
one value (upstream's ``--hw-classification`` takes ``nargs="+"`` and swallows the paths after it).
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hwselect", "hardware classification (hwlint)")
    group.addoption("--hw-runner", metavar="RUNNER", help="run only the tests this taxonomy runner executes")
    group.addoption("--hw-taxonomy", metavar="FILE", help="taxonomy YAML (default: [tool.hwlint] or bundled)")
    group.addoption("--hw-backend", metavar="NAME", help="PrivateUse1 backend name of this runner")
    group.addoption(
        "--hw-include-unclassified", action="store_true", help="with --hw-runner, keep unclassified classes"
    )
    group.addoption(
        "--hw-verify",
        action="store_true",
        help="with --hw-runner: compare the static selection with the runtime's classification filter "
        "on what was collected; a difference makes the session exit 1",
    )
    group.addoption(
        "--hw-verify-report",
        metavar="FILE",
        help="with --hw-runner: write what the runtime's filter keeps, per class, as JSON (hwselect verify)",
    )
    group.addoption(
        "--hw-shard",
        metavar="I/N",
        help="with --hw-runner: run only shard I of N, as `hwselect --format matrix --shards N` splits it",
    )
    group.addoption(
        "--hw-durations",
        action="append",
        default=[],
        metavar="FILE",
        help="with --hw-shard: balance by recorded times (JUnit XML or .test_durations; repeatable)",
    )
    add_expectation_options(group)


def pytest_configure(config: pytest.Config) -> None:
    configure_expectations(config)
    if config.getoption("hw_runner"):
        config.pluginmanager.register(_HwSelect(config), "hwselect-runner")
    elif config.getoption("hw_verify") or config.getoption("hw_verify_report"):
        raise pytest.UsageError("--hw-verify: give the runner with --hw-runner RUNNER")


#: Where a pytest run keeps hwlint's configuration and taxonomy (:func:`configured`)
_CONFIGURED = pytest.StashKey[tuple]()


def configured(config: pytest.Config) -> tuple:
    """(the hwlint configuration, the taxonomy) of the pytest run *config*, loaded once: the
    runner's selection and the expectations read the same. Raises ConfigError or TaxonomyError."""
    found = config.stash.get(_CONFIGURED, None)
    if found is None:
        from .pipeline.config import load_config
        from .taxonomy import load_taxonomy

        hw = load_config(start=config.rootpath)
        found = config.stash[_CONFIGURED] = (
            hw,
            load_taxonomy(config.getoption("hw_taxonomy") or hw.taxonomy),
        )
    return found


class _HwSelect:
    def __init__(self, config: pytest.Config):
        from .pipeline.config import ConfigError
        from .pipeline.session import RunOptions, Session
        from .select.records import SelectionError
        from .select.runners import get_runner
        from .taxonomy import TaxonomyError

        self.config = config
        try:
            hw, self.taxonomy = configured(config)
            self.runner = get_runner(self.taxonomy, config.getoption("hw_runner"))
            # jobs=1: forking a process pool inside a pytest session that has imported torch (and
            # its threads) risks deadlocked children; the files are in the page cache anyway. The
            # cache is hwselect's (.hwlint_cache next to the configuration): a collection after
            # hwselect, or after another collection, parses only the files edited since
            self.session = Session.from_config(hw, RunOptions(jobs=1), self.taxonomy)
            self.hw = hw
        except (ConfigError, TaxonomyError, SelectionError) as e:
            raise pytest.UsageError(f"--hw-runner: {e}") from None
        from .select.durations import DurationsError, load_durations
        from .select.shards import parse_shard

        try:
            spec = config.getoption("hw_shard")
            self.shard = parse_shard(spec, "--hw-shard") if spec else None
            files = config.getoption("hw_durations")
            self.durations = load_durations(files) if files else None
        except SelectionError as e:
            raise pytest.UsageError(str(e)) from None
        except DurationsError as e:
            raise pytest.UsageError(f"--hw-durations: {e}") from None
        if files and self.shard is None:
            raise pytest.UsageError("--hw-durations balances shards: give --hw-shard I/N too")
        backend = config.getoption("hw_backend")
        self.backends = (backend,) if backend else ()
        self.include_unclassified = config.getoption("hw_include_unclassified")
        self.runs = set(self.runner.runs)
        self.summary: list[str] = []
        self.warnings: list = []  # the selection's notices, the root dir left out of their words
        self.verify = bool(config.getoption("hw_verify"))
        self.verify_report = config.getoption("hw_verify_report")
        self.verify_lines: list[str] = []
        self.differences = 0
        self.vacuous: list[str] = []  # why --hw-verify compared nothing it should have
        self.failed: list[str] = []  # collectors pytest could not collect (for verify)
        # the static selections (FileSelection) of the test files left unimported: none of their
        # classes is the runner's
        self.not_imported_files: list = []
        self.decided: dict[str, bool] = {}  # path -> holds none of the runner's tests
        self.static = None  # static_view(): a RunnerSelection, False when it failed, None not yet
        self.static_files: dict = {}
        self.arguments: CommandLine | None = None  # the command line's paths, resolved on first use
        self.device_environment(os.environ)

    #: The variable torch's instantiation reads to generate classes for some devices only.
    DEVICE_VARIABLE = "PYTORCH_TESTING_DEVICE_ONLY_FOR"

    def device_environment(self, env) -> None:
        """Set ``PYTORCH_TESTING_DEVICE_ONLY_FOR`` to the runner's device (before any test module is
        imported), or check the value CI set: one that leaves the runner's device out would make
        torch generate none of its classes, a run that looks green and tests nothing."""
        device = self.runner.device
        wanted = {device, *(b.lower() for b in self.backends)}
        if device == "privateuse1":
            wanted |= {b.lower() for b in self.taxonomy.backends()}
        value = env.get(self.DEVICE_VARIABLE)
        if not value:
            env[self.DEVICE_VARIABLE] = device
            return
        listed = {v.strip().lower() for v in value.split(",") if v.strip()}
        if not listed & wanted:
            raise pytest.UsageError(
                f"--hw-runner {self.runner.name}: {self.DEVICE_VARIABLE}={value!r} leaves out the "
                f"runner's device {device}, so torch would generate none of its classes; set "
                f"{self.DEVICE_VARIABLE}={device} or unset it"
            )

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makemodule(self, module_path, parent):
        """Never import a test module that holds none of the runner's tests: it is collected as
        an empty file (pytest consults ``pytest_ignore_collect`` only below the paths it is given,
        so this hook covers the files named on the command line too).

        Decided from the file alone, before import, and only where that is sure: no class of it
        is selected or unplaced (the plugin would place those by their live classification), it
        creates no class hwlint cannot see, imports no test class from elsewhere and generates
        none from a class defined elsewhere. A file a node id on the command line names, and every
        file under ``--hw-verify`` (which compares what the runtime collects), is imported."""
        if self.verify or self.verify_report:
            return None
        scope = self.command_line().scope(module_path)
        if scope in (None, "node id"):  # pytest offers siblings of a named file too; it imports none
            return None
        # pytest offers a directory's files once per argument below it: decide each file once
        key = str(module_path)
        if key not in self.decided:
            self.decided[key] = self.holds_none(module_path)
        if not self.decided[key]:
            return None
        return NotImported.from_parent(parent, path=module_path)

    def holds_none(self, path) -> bool:
        """True when the static view is sure *path* holds none of the runner's tests."""
        from .select.records import SELECTED, UNPLACED

        sel = self.static_view()
        f = self.static_files.get(os.path.normcase(str(path)))
        if sel is None or f is None:
            return False
        if f.error or f.unseen or any(c.status in (SELECTED, UNPLACED) for c in f.candidates):
            return False
        if any(str(w).startswith(f.path) for w in sel.warnings):  # an import hwlint could not follow
            return False
        self.not_imported_files.append(f)  # for the reasons an empty selection gives
        return True

    def command_line(self) -> CommandLine:
        """The command line's paths, resolved on first use."""
        if self.arguments is None:
            self.arguments = CommandLine.of(self.config)
        return self.arguments

    def static_view(self):
        """One static selection of every test file under the command line's paths, made on first
        use: the files share one project phase (a file at a time paid it again for each), and the
        collection's own selection reuses it. None when it cannot be made."""
        if self.static is not None:
            return self.static or None
        from .pipeline.config import discover
        from .select.runners import select_all

        paths = [str(p) for p in self.command_line().paths]
        try:
            files = list(discover(paths, self.hw))
            self.session = self.session.reading(paths)  # a symlink may point into them
            runner = self.runner
            sel = select_all(self.session, files, self.backends, self.include_unclassified, [runner])
            self.static = sel[runner.name]
        except Exception:  # the collection decides what is wrong, not this shortcut
            self.static = False
            return None
        self.static_files = {os.path.normcase(f.path): f for f in self.static.files}
        return self.static

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.failed.append(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Deselect the items the runner does not run (and those of other shards), through pytest's
        own ``pytest_deselected`` so that ``-k``, ``-m`` and ``--deselect`` still intersect; the
        selection is the static pass's when it covers every collected file, else one made now."""
        from .select.records import UNPLACED
        from .select.runners import select_all

        paths = sorted({str(item.path) for item in items})
        runner = self.runner
        if self.static and all(os.path.normcase(p) in self.static_files for p in paths):
            sel = self.static  # every collected file is in it: no second pass
        else:
            sel = select_all(self.session, paths, self.backends, self.include_unclassified, [runner])[
                runner.name
            ]
        if self.verify or self.verify_report:
            self._verify(config, items, sel)
        if sel is not self.static:
            sel.files += self.not_imported_files  # none selected: only the reasons read them
        keep_names: dict[str, set[str]] = {}
        generics: dict[str, set[str]] = {}
        shard_of = self._shards(sel)
        for c in sel.selected:
            key = os.path.normcase(c.path)
            keep_names.setdefault(key, set()).update(c.names)
            if c.generic and self.runner.device == "privateuse1":
                generics.setdefault(key, set()).add(c.generic)
        status = {(os.path.normcase(c.path), n): c.status for c in sel.candidates for n in c.names}
        kept, dropped = [], []
        counts: Counter[str] = Counter()
        for item in items:
            key = os.path.normcase(str(item.path))
            cls = getattr(item, "cls", None)
            keep = cls is not None and (
                cls.__name__ in keep_names.get(key, ())
                or self._backend_named(cls, generics.get(key, ()))
                or (status.get((key, cls.__name__)) == UNPLACED and self._live_member(cls) in self.runs)
            )
            if keep and shard_of is not None and not self._in_shard(item, cls, key, shard_of):
                counts["other shards"] += 1
                dropped.append(item)
                continue
            (kept if keep else dropped).append(item)
            if keep:
                counts["selected"] += 1
            elif cls is None:
                counts["unclassified"] += 1  # a plain test function: the runtime drops it too
            else:
                counts[status.get((key, cls.__name__), "other devices")] += 1
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        root = str(config.rootpath) + os.sep
        self.warnings = [
            dataclasses.replace(w, where=w.where.replace(root, ""), message=w.message.replace(root, ""))
            for w in sel.warnings
        ]
        self.summary = [self._summary(len(items) + len(dropped), counts)]
        if not kept:
            self.summary += [f"hwselect: runner {self.runner.name} selects nothing:"]
            reasons = sel.why_empty() or ["no collected test belongs to it"]
            self.summary += [f"  - {r.replace(root, '')}" for r in reasons]
        if self.not_imported_files:
            from .select.notices import plural

            files = plural(len(self.not_imported_files), "test file")
            self.summary.append(f"hwselect: {files} without a test of runner {self.runner.name} not imported")

    def _summary(self, total: int, counts: Counter[str]) -> str:
        """Item counts in the runtime's words (``total=, selected=, unclassified=, mismatched=``); the
        runtime says ``passed=`` for the items its filter keeps, but nothing has run yet."""
        runs = ", ".join(self.runner.runs) + (", unclassified" if self.include_unclassified else "")
        line = (
            f"hwselect runner {self.runner.name} active ([{runs}]): total={total}, "
            f"selected={counts['selected']}, unclassified={counts['unclassified']}, "
            f"mismatched={counts['mismatched']}"
        )
        for extra in ("unplaced", "other devices", "other shards"):
            if counts[extra]:
                line += f", {extra}={counts[extra]}"
        return line

    def _shards(self, sel) -> dict | None:
        """With --hw-shard: the :class:`~hwlint.select.shards.Placement` of each selected class, by
        (path, name), from the plan ``hwselect --format matrix`` makes of the same selection (None
        without --hw-shard)."""
        if self.shard is None:
            return None
        from .select.shards import plan_shards

        plan = plan_shards(sel.selected, self.shard[1], self.durations)
        out: dict = {}
        for c, placement in plan.placements:
            for name in (*c.names, *([c.generic] if c.generic else [])):
                out.setdefault((os.path.normcase(c.path), name), placement)
        return out

    def _in_shard(self, item, cls, key: str, shard_of: dict) -> bool:
        """Whether *item* (kept for the runner) is in this job's shard, placed by its name as the
        plan places it. A class the selection does not list (a backend-named or live-placed one)
        goes with its generic class, else to shard 1."""
        assert self.shard is not None
        placement = shard_of.get((key, cls.__name__))
        if placement is None:
            placement = next(
                (shard_of[(key, b.__name__)] for b in cls.__bases__ if (key, b.__name__) in shard_of), None
            )
        k = placement.shard_of(item.name) if placement is not None else 0
        return k + 1 == self.shard[0]

    def _live_member(self, cls: type) -> str | None:
        """The classification the live class carries, as the runtime's filter reads it.

        Used for classes the static view cannot place (a generic class from another module, a
        computed declaration): the plugin runs after import, so getattr answers exactly.
        """
        value = getattr(cls, self.taxonomy.attribute, None)
        return getattr(value, "name", None)

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

    def _verify(self, config: pytest.Config, items: list[pytest.Item], sel) -> None:
        """The runtime's filter on the collected *items*, written for hwselect verify and (with
        --hw-verify) compared with the static selection *sel*."""
        import json

        from .select.verify import REPORT_FORMAT, compare, runtime_records

        report = runtime_records(
            items, list(self.runner.runs), self.taxonomy.attribute, self.include_unclassified
        )
        report["format"] = REPORT_FORMAT
        report["errors"] = list(self.failed)
        report["failed_files"] = sorted(
            {str(config.rootpath / n.split("::")[0]) for n in self.failed if n.split("::")[0].endswith(".py")}
        )
        if self.verify_report:
            from .effects import write_output

            write_output(self.verify_report, json.dumps(report))
        if self.verify:
            result = compare(sel, report, self.taxonomy, self.backends, trees=self.session.trees)
            self.differences = len(result.differences)
            # pytest itself fails a session whose modules do not collect (unless told to go on)
            self.vacuous = result.vacuous(allow_uncollectable=True)
            root = str(config.rootpath) + os.sep
            self.verify_lines = [line.replace(root, "") for line in result.lines()]
            self.verify_lines += [f"hwselect verify: error: {r}" for r in self.vacuous]

    def pytest_report_collectionfinish(self, config: pytest.Config) -> list[str]:
        """The warnings as hwselect prints them (one line per kind; each with -v; none with -q),
        the summary, and the verify report."""
        from .select.notices import report_lines

        verbosity = config.get_verbosity()
        warnings = report_lines(self.warnings, verbose=verbosity > 0, quiet=verbosity < 0)
        return [*warnings, *self.summary, *self.verify_lines]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.vacuous and session.exitstatus in (0, 1, 5):
            session.exitstatus = 2
        elif self.differences and session.exitstatus in (0, 5):
            session.exitstatus = 1


# -- expectations (--hw-expectations FILE) ------------------------------------------------------
# A vendor's expectations applied to what pytest collected (docs/expectations.md): a test an entry
# names is marked ``xfail(strict=True)`` or ``skip`` (mode xfail, the default), or deselected, so
# pytest's own accounting (xfailed, XPASS(strict) failures, skipped, deselected) reports it. Entries
# for runners apply when ``--hw-runner`` names one of them; entries without runners always apply.

EXPECTATION_MODES = ("xfail", "deselect")


def add_expectation_options(group) -> None:
    group.addoption(
        "--hw-expectations",
        metavar="FILE",
        help="a vendor's expectations (YAML or JSON Lines): tests expected to fail or be skipped",
    )
    group.addoption(
        "--hw-expectations-mode",
        choices=EXPECTATION_MODES,
        default="xfail",
        help="xfail: mark them xfail(strict=True) or skip (default); deselect: leave them out",
    )


def configure_expectations(config: pytest.Config) -> None:
    """Register the expectations plugin when ``--hw-expectations`` is given."""
    if config.getoption("hw_expectations"):
        config.pluginmanager.register(HwExpectations(config), "hwselect-expectations")


class HwExpectations:
    def __init__(self, config: pytest.Config):
        from .collection import all_suffixes
        from .pipeline.config import ConfigError
        from .select.expectations import ExpectationsError, load_expectations
        from .taxonomy import TaxonomyError

        path = config.getoption("hw_expectations")
        try:
            self.entries = load_expectations(path)
            _, taxonomy = configured(config)
        except (ExpectationsError, ConfigError, TaxonomyError) as e:
            raise pytest.UsageError(f"--hw-expectations: {e}") from None
        backend = config.getoption("hw_backend")
        self.suffixes = all_suffixes(taxonomy, (backend,) if backend else ())
        self.runner = config.getoption("hw_runner")
        self.mode = config.getoption("hw_expectations_mode")
        self.path = path
        self.summary: list[str] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        from .collection import key_of_nodeid
        from .select.identity import key_matches

        mine = [e for e in self.entries if e.applies_to(self.runner)]
        used: set[int] = set()
        kept, dropped = [], []
        for item in items:
            key = key_of_nodeid(item.nodeid, self.suffixes)
            entry = next((e for e in mine if key is not None and key_matches(e.key, key)), None)
            if entry is None:
                kept.append(item)
                continue
            used.add(id(entry))
            if self.mode == "deselect":
                dropped.append(item)
                continue
            kept.append(item)
            reason = entry.reason + (f" ({entry.issue})" if entry.issue else "")
            if entry.status == "xfail":
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
            else:
                item.add_marker(pytest.mark.skip(reason=reason))
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        unused = [e for e in mine if id(e) not in used]
        self.summary = [
            f"hwselect expectations {self.path}: {len(mine) - len(unused)} of {len(mine)} entries name "
            f"collected tests ({self.mode})"
        ]
        if unused:
            shown = ", ".join(e.key for e in unused[:3]) + (" ..." if len(unused) > 3 else "")
            self.summary.append(f"  {len(unused)} name no collected test: {shown}")

    def pytest_report_collectionfinish(self, config: pytest.Config) -> list[str]:
        return self.summary


class NotImported(pytest.File):
    """A test module the runner runs nothing of: collected without importing it, it yields no item."""

    def collect(self):
        return []


@dataclasses.dataclass
class CommandLine:
    """The command line's paths, resolved once: pytest offers every file of a named file's directory
    to the collection hooks once per argument (thousands of offers for a few hundred arguments), so
    resolving each argument again per offer cost more than the imports the plugin saves."""

    paths: tuple  # each argument's path, resolved, in order
    files: dict  # resolved path -> "node id" or "named"
    dirs: frozenset  # resolved directory arguments
    seen: dict  # str(path) offered -> its scope

    @classmethod
    def of(cls, config: pytest.Config) -> CommandLine:
        here = config.invocation_params.dir
        files: dict = {}
        dirs = set()
        paths = []
        for arg in config.args:
            target = (here / arg.split("::", 1)[0]).resolve()
            paths.append(target)
            if "::" in arg:
                files[target] = "node id"
            elif target.is_dir():
                dirs.add(target)
            else:
                files.setdefault(target, "named")
        return cls(tuple(paths), files, frozenset(dirs), {})

    def scope(self, path) -> str | None:
        """How the command line reaches *path*: ``"node id"`` (a ``PATH::...`` argument names it:
        the user asked for a test in it, and pytest would report it not found were the module left
        unimported), ``"named"``, ``"under"`` (a directory argument holds it), or None (pytest
        offers the siblings of a named file to the collection hooks, then drops them)."""
        key = str(path)
        if key not in self.seen:
            resolved = path.resolve()
            found = self.files.get(resolved)
            if found is None and self.dirs and any(d in self.dirs for d in resolved.parents):
                found = "under"
            self.seen[key] = found
        return self.seen[key]
