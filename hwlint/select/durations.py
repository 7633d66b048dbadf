"""Recorded test durations, per test item: pytest's JUnit XML (``--junitxml``) and pytest-split's
``.test_durations`` JSON, read for the shard planner.

A JUnit ``<testcase classname="inductor.test_foo.TestFooCPU" name="test_x_cpu" time="0.5">``
(pytest's default ``xunit2`` family: the node id's path with ``/`` as ``.`` and no ``.py``; ``xunit1``
adds ``file=``) and a pytest-split entry ``"inductor/test_foo.py::TestFooCPU::test_x_cpu": 0.5`` both
name a module path and a class. Records are matched to hwselect's classes by class name and the
longest common tail of the module path, so a record made from another directory (rootdir
``test/`` against ``pytorch/``) still matches; within a class, each item keeps its own time under
its name (``test_x_cpu_float32``). Module-level test functions are not classes and are left out
(hwselect never selects them). Several files merge; an item recorded twice keeps its last record.
The order of the records is kept (JUnit's is the order the tests ran in): the first item recorded
of a class, a module or the whole run is the one that paid their first-use costs
(:mod:`hwlint.select.shards` charges them again to a shard that runs the rest without it).

A test without a record is estimated: the median recorded time per test item, times the items it
expands into (:mod:`hwlint.select.expansion`).
"""

from __future__ import annotations

import json
import os
import re
import stat
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .records import Candidate

#: A durations file is read only when it is a regular file of at most this size.
MAX_DURATIONS_BYTES = 512 * 1024 * 1024


class DurationsError(Exception):
    """A durations file that cannot be read (a usage error: exit 2)."""


@dataclass
class _Tails:
    """One class's records by their module path read from its end (a trie): the node of
    ``("inductor", "test_foo")`` is the child ``inductor`` of the child ``test_foo``. *first* is
    the module of the first record whose path ends so: a class's best match is the first record
    with the longest common tail, found in one walk down its own path, whatever the number of
    records (a committed file may name one class in 40,000 modules)."""

    children: dict[str, _Tails] = field(default_factory=dict)
    first: tuple[str, ...] | None = None


@dataclass
class Durations:
    """Seconds per test item, by (module path components, class name), from one or more files."""

    # class name -> module path components -> {item name: seconds}, in the order first recorded
    by_class: dict[str, dict[tuple[str, ...], dict[str, float]]] = field(default_factory=dict)
    tails: dict[str, _Tails] = field(default_factory=dict)  # class name -> its records' trie
    # (class name, module path components) -> the position of its first record among all classes'
    seq: dict[tuple[str, tuple[str, ...]], int] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    @property
    def per_item(self) -> list[float]:
        """Every recorded test item's seconds."""
        return [s for entries in self.by_class.values() for tests in entries.values() for s in tests.values()]

    @property
    def median(self) -> float | None:
        """The median seconds per recorded test item (None without records)."""
        seconds = self.per_item
        return statistics.median(seconds) if seconds else None

    def add(self, module: Iterable[str], cls: str, seconds: float, test: str | None = None) -> None:
        """Record *test* (an item's name; None: one more unnamed item) of *cls* in *module*."""
        comps = tuple(module)
        entries = self.by_class.setdefault(cls, {})
        tests = entries.get(comps)
        if tests is None:
            tests = entries[comps] = {}
            self.seq[(cls, comps)] = len(self.seq)
            node = self.tails.setdefault(cls, _Tails())
            for part in reversed(comps):
                node = node.children.setdefault(part, _Tails())
                if node.first is None:
                    node.first = comps
        tests[test if test is not None else f"#{len(tests)}"] = max(0.0, seconds)

    def tests(self, c: Candidate) -> dict[str, float] | None:
        """The recorded items of *c* (any of its names, the first one on a tie) by name, in the
        order recorded: those of the first record of its class whose module path shares the
        longest tail with *c*'s, or None when none shares one."""
        key = self._match(c)
        return None if key is None else self.by_class[key[0]][key[1]]

    def first_seen(self, c: Candidate) -> int | None:
        """The position of *c*'s records among every class's (by their first record), or None
        without a record: the lowest of a module's or a run's classes came first."""
        key = self._match(c)
        return None if key is None else self.seq[key]

    def _match(self, c: Candidate) -> tuple[str, tuple[str, ...]] | None:
        mine = module_components(c.path)
        best: tuple[int, str, tuple[str, ...]] | None = None
        for name in c.names:
            node, depth, found = self.tails.get(name), 0, None
            for part in reversed(mine):
                node = node.children.get(part) if node is not None else None
                if node is None:
                    break
                depth, found = depth + 1, node.first
            if found is not None and (best is None or depth > best[0]):
                best = (depth, name, found)
        return None if best is None else best[1:]

    def recorded(self, c: Candidate) -> float | None:
        """The recorded seconds of *c*'s items, summed (None: no record of it)."""
        tests = self.tests(c)
        return None if tests is None else sum(tests.values())


def module_components(path: str) -> tuple[str, ...]:
    """``("inductor", "test_foo")`` for ``./test/inductor/test_foo.py`` (the tail is what matters)."""
    norm = os.path.normpath(path).replace(os.sep, "/")
    if norm.endswith(".py"):
        norm = norm[:-3]
    return tuple(p for p in norm.split("/") if p and p != ".")


def load_durations(paths: Sequence[str]) -> Durations:
    """Every record of *paths* (JUnit XML or pytest-split JSON, told apart by their content)."""
    out = Durations()
    for path in paths:
        data = _read(path)
        head = data.lstrip()[:1]
        if head == b"<":
            _junit(path, data, out)
        elif head == b"{":
            _pytest_split(path, data, out)
        else:
            raise DurationsError(f"{path}: neither JUnit XML (--junitxml) nor a .test_durations JSON object")
        out.sources.append(path)
    return out


def _read(path: str) -> bytes:
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise DurationsError(f"{path}: not a regular file")
        if st.st_size > MAX_DURATIONS_BYTES:
            raise DurationsError(f"{path}: over {MAX_DURATIONS_BYTES >> 20} MB")
        with open(path, "rb") as f:
            return f.read(MAX_DURATIONS_BYTES + 1)
    except OSError as e:
        raise DurationsError(f"{path}: cannot read: {e.strerror or e}") from None


def _junit(path: str, data: bytes, out: Durations) -> None:
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(data)  # expat: no external entities; entity expansion is bounded
    except ET.ParseError as e:
        raise DurationsError(f"{path}: not well-formed XML ({e})") from None
    for case in root.iter("testcase"):
        classname = case.get("classname") or ""
        try:
            seconds = float(case.get("time") or 0)
        except ValueError:
            continue
        module, _, cls = classname.rpartition(".")
        if not cls or not module:
            continue  # a module-level function ("test_foo") or a bare class name
        file = case.get("file")
        comps = module_components(file) if file else tuple(module.split("."))
        out.add(comps, cls, seconds, case.get("name") or None)


_NODE = re.compile(r"^(?P<path>[^:]+\.py)::(?P<cls>[^:\[]+)::(?P<test>.+)$")


def _pytest_split(path: str, data: bytes, out: Durations) -> None:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as e:
        raise DurationsError(f"{path}: not JSON ({e})") from None
    if not isinstance(doc, dict):
        raise DurationsError(f"{path}: a .test_durations file is one JSON object (node id -> seconds)")
    for nodeid, seconds in doc.items():
        m = _NODE.match(str(nodeid))
        if m is None or not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
            continue
        out.add(module_components(m["path"]), m["cls"], float(seconds), m["test"])
