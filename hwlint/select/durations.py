"""Recorded test durations, per class: pytest's JUnit XML (``--junitxml``) and pytest-split's
``.test_durations`` JSON, read for the shard planner.

A JUnit ``<testcase classname="inductor.test_foo.TestFooCPU" name="test_x_cpu" time="0.5">``
(pytest's default ``xunit2`` family: the node id's path with ``/`` as ``.`` and no ``.py``; ``xunit1``
adds ``file=``) and a pytest-split entry ``"inductor/test_foo.py::TestFooCPU::test_x_cpu": 0.5`` both
name a module path and a class. Records are matched to hwselect's classes by class name and the
longest common tail of the module path, so a record made from another directory (rootdir
``test/`` against ``pytorch/``) still matches. Module-level test functions are not classes and are
left out (hwselect never selects them).

A class without a record is estimated: the median recorded time per test item, times the items its
tests expand into (:mod:`hwlint.select.expansion`).
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
class Durations:
    """Seconds per (module path components, class name), from one or more files."""

    # class name -> [(module path components, seconds, test items)]
    by_class: dict[str, list[tuple[tuple[str, ...], float, int]]] = field(default_factory=dict)
    per_item: list[float] = field(default_factory=list)  # every recorded test item's seconds
    sources: list[str] = field(default_factory=list)

    @property
    def median(self) -> float | None:
        """The median seconds per recorded test item (None without records)."""
        return statistics.median(self.per_item) if self.per_item else None

    def add(self, module: Iterable[str], cls: str, seconds: float) -> None:
        comps = tuple(module)
        seconds = max(0.0, seconds)
        self.per_item.append(seconds)
        entries = self.by_class.setdefault(cls, [])
        for i, (m, s, n) in enumerate(entries):
            if m == comps:
                entries[i] = (m, s + seconds, n + 1)
                return
        entries.append((comps, seconds, 1))

    def recorded(self, c: Candidate) -> float | None:
        """The recorded seconds of *c* (any of its names), or None when nothing matches."""
        mine = module_components(c.path)
        best: tuple[int, float] | None = None
        for name in c.names:
            for comps, seconds, _ in self.by_class.get(name, ()):
                common = _common_tail(mine, comps)
                if common and (best is None or common > best[0]):
                    best = (common, seconds)
        return None if best is None else best[1]


def module_components(path: str) -> tuple[str, ...]:
    """``("inductor", "test_foo")`` for ``./test/inductor/test_foo.py`` (the tail is what matters)."""
    norm = os.path.normpath(path).replace(os.sep, "/")
    if norm.endswith(".py"):
        norm = norm[:-3]
    return tuple(p for p in norm.split("/") if p and p != ".")


def _common_tail(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


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
        out.add(comps, cls, seconds)


_NODE = re.compile(r"^(?P<path>[^:]+\.py)::(?P<cls>[^:\[]+)::")


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
        out.add(module_components(m["path"]), m["cls"], float(seconds))
