"""Shards: one runner's tests split into balanced parts, the same on every CI job.

The unit is what a shard takes whole: a class, one of its tests (every item the test expands into:
``test_add`` of ``TestFooCPU`` is ``test_add_cpu_float32``, ``test_add_cpu_int64``...), or one
recorded item (a node id). A class stays whole where the balance allows it (its tests share
``setUpClass``); one too heavy for that is spread over shards by its tests, and a test too heavy
by its recorded items. Each unit weighs its predicted seconds: the recorded time of its items when
a durations file has them (:mod:`hwlint.select.durations`), else the median time per recorded item
times the items hwlint counts statically (:mod:`hwlint.select.expansion`), marked as an estimate
(without any record, one second per item).

**First-use costs** (:class:`FirstUse`): the first test of a class, of a module or of the whole run
pays what the rest then find ready: ``setUpClass``, ``setUpModule``, the first call of an op, a
table built lazily. The record shows it on the first item recorded of each class (JUnit records in
the order the tests ran): what that item took beyond the class's median item. That excess belongs to
the widest scope the item opened (the run's first item opens the run, its module and its class;
a module's first item its module and class), and a shard that runs anything of that scope without
the item that paid it pays it again: every shard but one pays the run's, a shard that runs a class
of a module without the module's first class pays the module's, a shard that runs part of a class
without its first item pays the class's. A shard's predicted seconds are its items' plus the
first-use costs it pays again (:attr:`ShardPlan.first_use`). The split weighs items alone; each
split tried is judged by its predicted seconds, so a class is spread only where that shortens the
longest shard with its first-use cost paid again.

The split (:func:`plan_shards`) is the longest-processing-time rule (heaviest unit first, onto the
lightest shard), then moves and swaps between the heaviest shard and the others while they shorten
it (:func:`split`). When the longest shard is more than :data:`TOLERANCE` over the bound
``max(total / N, heaviest indivisible unit)`` (below which no split can go), the units heavier than
a threshold are replaced by their parts and the split made again, the threshold halving each round;
the split kept is the first within the tolerance, else the first with the shortest longest shard
(a class is spread only where that shortens the longest shard, first-use costs included).
The pytest plugin (``--hw-shard I/N``) and ``hwselect --format matrix`` both ask
:meth:`ShardPlan.shard_of` where a collected item goes, so they agree item for item.

**The balance, as a property** (``tests/test_select_shards.py``): with ``total`` the sum of the
weights and ``largest`` the heaviest unit, the longest shard of :func:`split` is at most
``total / N + largest``; so when no unit dominates (``largest <= 0.05 * total / N``) it is within
5% of ``max(total / N, largest)``. In general the rule is within 4/3 of the best split.
"""

from __future__ import annotations

import bisect
import heapq
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from .records import Candidate, SelectionError
from .replay import source_order

#: More shards than this is a usage error (each job recomputes the split; a GitHub Actions matrix
#: holds at most 256 jobs). The bound keeps an absurd ``--shards`` from exhausting memory.
MAX_SHARDS = 10_000
#: Improvement rounds after the greedy split (each moves or swaps one unit).
_ROUNDS = 200
#: A split whose longest shard is within this fraction of the bound keeps its classes whole.
TOLERANCE = 0.02


@dataclass(frozen=True)
class Unit:
    """What one shard takes whole: a class (*test* None), one test of it (every item it expands
    into), or one recorded item (*item*)."""

    candidate: Candidate
    test: str | None  # the test as written (no device suffix); None: the whole class
    item: str | None  # a recorded item's name (a node id's last part); None: every item
    seconds: float  # predicted
    items: int  # the pytest items it holds: recorded, or counted statically
    estimated: int  # how many of those have no record (their time is an estimate)
    exact: bool  # *items* is what pytest collects (recorded, or every expansion counted)
    recorded: tuple[str, ...] = ()  # the names of its recorded items
    plain: bool = False  # a test no decorator expands: its items are the class's collected names of it

    @property
    def whole(self) -> bool:
        return self.test is None and self.item is None

    def nodeids(self) -> list[str] | None:
        """Node ids that collect exactly this unit, or None when hwlint cannot name them for sure:
        a whole class by its own; a part only when it is a test no decorator expands (its names are
        the class's collected ones) or a recorded item under such a name. Any other part (an item
        with dtype or parameter suffixes) is named only at collection: the plugin places it."""
        c = self.candidate
        if c.uncertain_nodeid:
            return None
        if self.whole:
            return [c.nodeid]
        known = frozenset(t.name for t in c.test_items)
        if self.item is not None:
            names = [self.item] if self.item in c.methods and owning_test(self.item, known) else []
        elif self.plain:
            names = [m for m in c.methods if owning_test(m, known) == self.test]
        else:
            names = []
        return [f"{c.nodeid}::{name}" for name in names] or None


@dataclass
class _Node:
    unit: Unit
    parts: list[_Node] = field(default_factory=list)  # what it splits into (empty: indivisible)


@dataclass(frozen=True)
class FirstUse:
    """What the first recorded item of a class took beyond the class's median item, and the widest
    scope that item opened: ``"run"`` (the run's first item), ``"module"`` (its module's) or
    ``"class"``. A shard that runs anything of that scope without *item* pays *seconds* again."""

    item: str
    seconds: float
    scope: str
    module: str = ""  # the class's path


@dataclass
class Placement:
    """Where one class's items go (0-based shards): all to *whole*, or by item name."""

    whole: int | None
    tests: frozenset[str] = frozenset()  # the class's tests as written, to tell which an item is of
    by_test: dict[str, int] = field(default_factory=dict)
    by_item: dict[str, int] = field(default_factory=dict)
    default: int = 0  # an item of no known test (added at run time) goes with the class's first unit

    def shard_of(self, item: str) -> int:
        if self.whole is not None:
            return self.whole
        if item in self.by_item:
            return self.by_item[item]
        return self.by_test.get(owning_test(item, self.tests) or "", self.default)


@dataclass
class ShardPlan:
    parts: list[list[Unit]]
    seconds: list[float]  # predicted seconds per part
    placements: list[tuple[Candidate, Placement]]  # every class, in the planner's order
    recorded: int  # classes with a recorded duration
    estimated: int  # classes with at least one test estimated
    per_item: float | None  # the median seconds per item used for estimates (None: no records)
    bound: float  # max(total / N, the heaviest indivisible unit): no split can do better
    first_use: list[float] = field(default_factory=list)  # of *seconds*: first-use costs paid again

    def spread(self) -> set[int]:
        """The ids of the classes spread over more than one shard."""
        return {
            id(c)
            for c, p in self.placements
            if p.whole is None and len({p.default, *p.by_test.values(), *p.by_item.values()}) > 1
        }


def lower_bound(weights: Sequence[float], shards: int) -> float:
    return max(sum(weights) / shards, max(weights, default=0.0))


def owning_test(item: str, tests: Sequence[str] | frozenset[str]) -> str | None:
    """The test of *tests* an item called *item* comes from: the longest one the item's name starts
    with, followed by ``_`` (torch's parameter, device and dtype suffixes), ``[`` (pytest's
    parameters) or nothing; None when there is none. The plugin and the planner both read an item
    this way, so a recorded item and a collected one go to the same test."""
    known = tests if isinstance(tests, frozenset) else frozenset(tests)
    name = item.split("[", 1)[0]
    while name:
        if name in known:
            return name
        cut = name.rfind("_")
        if cut <= 0:
            return None
        name = name[:cut]
    return None


def parse_shard(spec: str, option: str = "--shard") -> tuple[int, int]:
    """``I/N`` as (I, N), 1-based, N at most :data:`MAX_SHARDS` (a :class:`SelectionError` else);
    *option* names the option in the message."""
    import re

    m = re.fullmatch(r"\s*(\d{1,12})\s*/\s*(\d{1,12})\s*", spec)
    if m is None or not 1 <= int(m[1]) <= int(m[2]):
        raise SelectionError(f"{option} expects I/N with 1 <= I <= N, got {spec!r}")
    if int(m[2]) > MAX_SHARDS:
        raise SelectionError(f"{option} {spec}: at most {MAX_SHARDS:,} shards")
    return int(m[1]), int(m[2])


def check_shards(shards: int) -> None:
    if not 1 <= shards <= MAX_SHARDS:
        raise SelectionError(f"the number of shards must be between 1 and {MAX_SHARDS:,}, got {shards:,}")


def plan_shards(candidates: Sequence[Candidate], shards: int, durations=None) -> ShardPlan:
    """*candidates* split into *shards* parts balanced by predicted seconds (see the module doc)."""
    check_shards(shards)
    ordered = sorted(candidates, key=lambda c: (c.path, *source_order(c)))  # the same order on every job
    per_item = durations.median if durations is not None else None
    unit = per_item if per_item is not None else 1.0
    firsts = first_uses(ordered, durations)
    trees = [_class_node(c, durations, unit) for c in ordered]
    leaves = [leaf.unit.seconds for t in trees for leaf in _leaves(t)]
    bound = lower_bound(leaves, shards)
    nodes = trees
    threshold = sum(leaves) / shards
    best: tuple[float, list[_Node], list[int], list[float], list[float]] | None = None
    while True:
        costs = _Costs(nodes, split([n.unit.seconds for n in nodes], shards), shards, firsts)
        if any(costs.again):
            _settle(costs)
        assignment, loads, again = costs.assignment, costs.loads(), costs.again
        longest = max(loads, default=0.0)
        # a finer split is kept only where it shortens the longest shard
        if best is None or longest < best[0] * (1 - 1e-9):
            best = (longest, nodes, assignment, loads, again)
        divisible = any(n.parts and n.unit.seconds > 0 for n in nodes)
        if longest <= (1 + TOLERANCE) * bound or not divisible:
            break
        expanded = nodes
        while expanded is nodes:  # halve until some divisible unit is over the threshold
            expanded = _expand(nodes, threshold)
            threshold /= 2
        nodes = expanded
    _, nodes, assignment, loads, again = best
    parts: list[list[Unit]] = [[] for _ in range(shards)]
    for n, k in zip(nodes, assignment, strict=True):
        parts[k].append(n.unit)
    recorded = sum(1 for t in trees if t.unit.estimated < t.unit.items)
    estimated = sum(1 for t in trees if t.unit.estimated)
    placements = _placements(ordered, nodes, assignment)
    return ShardPlan(parts, loads, placements, recorded, estimated, per_item, bound, again)


def first_uses(ordered: Sequence[Candidate], durations) -> dict[int, FirstUse]:
    """Each recorded class's :class:`FirstUse` (by id), over *ordered* (the planner's order)."""
    if durations is None:
        return {}
    out: dict[int, FirstUse] = {}
    seen: list[tuple[int, str, Candidate, str, float]] = []
    for c in ordered:
        records = durations.tests(c)
        if not records:
            continue
        item = next(iter(records))  # the first recorded: JUnit keeps the order the tests ran in
        excess = max(0.0, records[item] - statistics.median(records.values()))
        seen.append((durations.first_seen(c), c.path, c, item, excess))
    if not seen:
        return {}
    run = min(seen, key=lambda x: (x[0], x[1]))[2]
    module_first: dict[str, tuple[int, str]] = {}
    for seq, path, c, _, _ in seen:
        module_first[path] = min(module_first.get(path, (seq, c.name)), (seq, c.name))
    for seq, path, c, item, excess in seen:
        scope = "run" if c is run else "module" if module_first[path] == (seq, c.name) else "class"
        out[id(c)] = FirstUse(item, excess, scope, path)
    return out


class _Costs:
    """What each shard runs of each first-use scope (see :class:`FirstUse`), kept as counts so that
    moving one unit re-prices only the two shards it leaves and joins."""

    def __init__(self, nodes: list[_Node], assignment: list[int], shards: int, firsts: dict[int, FirstUse]):
        self.nodes, self.assignment, self.firsts = nodes, assignment, firsts
        self.items = [0.0] * shards
        self.count: dict[tuple, int] = {}  # (shard, scope key) -> units; scope keys: see _keys
        self.by_module: dict[str, list[int]] = {}  # a module's classes with a first-use cost
        for c, first in firsts.items():
            if first.seconds:
                self.by_module.setdefault(first.module, []).append(c)
        self.run = next((c for c, f in firsts.items() if f.scope == "run" and f.seconds), None)
        for i, k in enumerate(assignment):
            self._add(i, k, 1)
        self.again = [self.paid_again(k) for k in range(shards)]

    def _keys(self, i: int) -> list[tuple]:
        u = self.nodes[i].unit
        c = id(u.candidate)
        first = self.firsts.get(c)
        keys = [("used",), ("class", c), ("module", u.candidate.path)]
        if first is not None and (u.whole or first.item in u.recorded):
            keys.append(("paid", c))
        return keys

    def _add(self, i: int, k: int, step: int) -> None:
        self.items[k] += step * self.nodes[i].unit.seconds
        for key in self._keys(i):
            self.count[(k, *key)] = self.count.get((k, *key), 0) + step

    def paid_again(self, k: int) -> float:
        """The first-use costs shard *k* pays again."""

        def has(*key) -> bool:
            return self.count.get((k, *key), 0) > 0

        total = 0.0
        run = self.firsts.get(self.run) if self.run is not None else None
        if run is not None and has("used") and not has("paid", self.run):
            total += run.seconds
        for path, classes in self.by_module.items():
            if not has("module", path):
                continue
            for c in classes:
                first = self.firsts[c]
                if first.scope == "run" or has("paid", c):
                    continue
                if first.scope == "module" or has("class", c):
                    total += first.seconds
        return total

    def loads(self) -> list[float]:
        return [x + a for x, a in zip(self.items, self.again, strict=True)]

    def move(self, i: int, dst: int) -> None:
        src = self.assignment[i]
        self._add(i, src, -1)
        self._add(i, dst, 1)
        self.assignment[i] = dst
        self.again[src], self.again[dst] = self.paid_again(src), self.paid_again(dst)


def _settle(costs: _Costs, rounds: int = _ROUNDS, tries: int = 4) -> None:
    """Moves from the longest predicted shard to the shortest while the longest gets shorter,
    first-use costs included (the split weighs items alone). Deterministic."""
    for _ in range(rounds):
        loads = costs.loads()
        h = max(range(len(loads)), key=lambda k: (loads[k], -k))
        low = min(range(len(loads)), key=lambda k: (loads[k], k))
        gap = loads[h] - loads[low]
        if gap <= 1e-9:
            return
        mine = [i for i, k in enumerate(costs.assignment) if k == h]
        mine.sort(key=lambda i: (abs(costs.nodes[i].unit.seconds - gap / 2), i))
        for i in mine[:tries]:
            costs.move(i, low)
            after = costs.loads()
            if max(after[h], after[low]) < loads[h] - 1e-9:
                break
            costs.move(i, h)
        else:
            return


def _class_node(c: Candidate, durations, unit: float) -> _Node:
    """*c* as a tree of units: the class, its tests, their recorded items."""
    records = (durations.tests(c) if durations is not None else None) or {}
    known = frozenset(t.name for t in c.test_items)
    by_test: dict[str | None, list[tuple[str, float]]] = {}
    for item, seconds in sorted(records.items()):
        by_test.setdefault(owning_test(item, known), []).append((item, seconds))
    parts = []
    for x in c.test_items:
        t, n = x.name, x.items
        mine = by_test.get(t)
        if not mine:
            parts.append(_Node(Unit(c, t, None, unit * n, n, n, x.exact, plain=x.plain)))
            continue
        items = [_Node(Unit(c, t, i, s, 1, 0, True, (i,))) for i, s in mine]
        names = tuple(i for i, _ in mine)
        whole = Unit(c, t, None, sum(s for _, s in mine), len(mine), 0, True, names, x.plain)
        parts.append(_Node(whole, items if len(items) > 1 else []))
    # recorded items of no test hwlint sees (added at run time): units of their own
    parts += [_Node(Unit(c, None, i, s, 1, 0, True, (i,))) for i, s in by_test.get(None, ())]
    if not parts:
        n = c.item_count
        return _Node(Unit(c, None, None, unit * n, n, n, c.items_exact))
    seconds = sum(p.unit.seconds for p in parts)
    items = sum(p.unit.items for p in parts)
    estimated = sum(p.unit.estimated for p in parts)
    exact = all(p.unit.exact for p in parts)
    return _Node(Unit(c, None, None, seconds, items, estimated, exact), parts if len(parts) > 1 else [])


def _leaves(node: _Node) -> list[_Node]:
    return [leaf for p in node.parts for leaf in _leaves(p)] if node.parts else [node]


def _expand(nodes: list[_Node], threshold: float) -> list[_Node]:
    """*nodes* with each divisible unit heavier than *threshold* replaced by its parts (again while
    a part is); *nodes* itself when none is."""
    out: list[_Node] = []
    changed = False
    stack = list(reversed(nodes))
    while stack:
        n = stack.pop()
        if n.parts and n.unit.seconds > threshold:
            stack.extend(reversed(n.parts))
            changed = True
        else:
            out.append(n)
    return out if changed else nodes


def _placements(ordered: Sequence[Candidate], nodes: list[_Node], assignment: list[int]):
    """Each class's :class:`Placement`, from the final units and their shards."""
    by_class: dict[int, list[tuple[Unit, int]]] = {}
    for n, k in zip(nodes, assignment, strict=True):
        by_class.setdefault(id(n.unit.candidate), []).append((n.unit, k))
    out = []
    for c in ordered:
        units = by_class[id(c)]
        if len(units) == 1 and units[0][0].test is None and units[0][0].item is None:
            out.append((c, Placement(units[0][1])))
            continue
        p = Placement(None, frozenset(t.name for t in c.test_items), default=units[0][1])
        for u, k in units:
            if u.item is not None:
                p.by_item[u.item] = k
                if u.test is not None:
                    p.by_test.setdefault(u.test, k)  # an unrecorded variant goes with the first
            elif u.test is not None:
                p.by_test[u.test] = k
        out.append((c, p))
    return out


def split(weights: Sequence[float], shards: int) -> list[int]:
    """The shard of each weight: greedy (heaviest first onto the lightest shard, ties to the lower
    index), then moves and swaps that shorten the heaviest shard. Deterministic."""
    check_shards(shards)
    order = sorted(range(len(weights)), key=lambda i: (-weights[i], i))
    heap = [(0.0, k) for k in range(shards)]
    assignment = [0] * len(weights)
    for i in order:
        load, k = heapq.heappop(heap)
        assignment[i] = k
        heapq.heappush(heap, (load + weights[i], k))
    loads = [0.0] * shards
    for i, k in enumerate(assignment):
        loads[k] += weights[i]
    members: list[list[int]] = [[] for _ in range(shards)]
    for i, k in enumerate(assignment):
        members[k].append(i)
    for _ in range(_ROUNDS):
        if not _improve(weights, assignment, loads, members):
            break
    return assignment


def _improve(weights, assignment, loads, members) -> bool:
    """One move or swap of a class between the heaviest shard and another that makes both shorter
    than the heaviest was; False when there is none."""
    h = max(range(len(loads)), key=lambda k: (loads[k], -k))
    top = loads[h]
    mine = sorted(members[h], key=lambda i: (weights[i], i))
    mine_w = [weights[i] for i in mine]
    for low in sorted(range(len(loads)), key=lambda k: (loads[k], k)):
        if low == h:
            continue
        gap = top - loads[low]
        if gap <= 1e-9:
            break
        # a move of x: both sides end below top when 0 < x < gap; best near gap / 2
        j = bisect.bisect_left(mine_w, gap / 2)
        for pos in (j - 1, j):
            if 0 <= pos < len(mine) and 1e-9 < mine_w[pos] < gap - 1e-9:
                _move(mine[pos], h, low, weights, assignment, loads, members)
                return True
        # a swap of a (here) and b (there), a > b: both sides end below top when 0 < a - b < gap
        theirs = sorted(members[low], key=lambda i: (weights[i], i))
        theirs_w = [weights[i] for i in theirs]
        for a, wa in zip(mine, mine_w, strict=True):
            k = bisect.bisect_left(theirs_w, wa - gap / 2)
            for pos in (k - 1, k):
                if 0 <= pos < len(theirs) and 1e-9 < wa - theirs_w[pos] < gap - 1e-9:
                    _move(a, h, low, weights, assignment, loads, members)
                    _move(theirs[pos], low, h, weights, assignment, loads, members)
                    return True
    return False


def _move(i, src, dst, weights, assignment, loads, members) -> None:
    assignment[i] = dst
    loads[src] -= weights[i]
    loads[dst] += weights[i]
    members[src].remove(i)
    members[dst].append(i)
