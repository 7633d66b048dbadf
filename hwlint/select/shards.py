"""Shards: one runner's classes split into balanced parts, the same on every CI job.

A class is the unit (its tests share setUpClass, and a node id names a class), weighted by its
predicted seconds: the recorded time when a durations file has it (:mod:`hwlint.select.durations`),
else the median time per recorded test item times the items its tests expand into (without any
record, one second per item). The split is the longest-processing-time rule (heaviest class first,
onto the lightest shard), then moves and swaps between the heaviest shard and the others while they
shorten it.

**The balance, as a property** (``tests/test_select_shards.py``): with ``total`` the sum of the
weights, ``largest`` the heaviest class and ``bound = max(total / N, largest)`` (no split can have a
shorter longest shard), the longest shard is at most ``total / N + largest``; so when no class
dominates (``largest <= 0.05 * total / N``) it is within 5% of ``bound``. In general the rule is
within 4/3 of the best split.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from .records import Candidate, SelectionError
from .replay import source_order

#: More shards than this is a usage error (each job recomputes the split; a GitHub Actions matrix
#: holds at most 256 jobs). The bound keeps an absurd ``--shards`` from exhausting memory.
MAX_SHARDS = 10_000
#: Improvement rounds after the greedy split (each moves or swaps one class).
_ROUNDS = 200


@dataclass
class ShardPlan:
    parts: list[list[Candidate]]
    seconds: list[float]  # predicted seconds per part
    recorded: int  # classes with a recorded duration
    estimated: int  # classes estimated from their item count
    per_item: float | None  # the median seconds per item used for estimates (None: no records)
    weights: list[float]  # predicted seconds per class, in the order the parts were filled

    @property
    def bound(self) -> float:
        """``max(total / N, largest class)``: no split has a shorter longest shard."""
        return lower_bound(self.weights, len(self.parts))


def lower_bound(weights: Sequence[float], shards: int) -> float:
    return max(sum(weights) / shards, max(weights, default=0.0))


def class_weights(candidates: Sequence[Candidate], durations=None) -> tuple[list[float], int, float | None]:
    """Predicted seconds per candidate, how many were recorded, and the per-item estimate used."""
    per_item = durations.median if durations is not None else None
    unit = per_item if per_item is not None else 1.0
    out = []
    recorded = 0
    for c in candidates:
        seconds = durations.recorded(c) if durations is not None else None
        if seconds is None:
            seconds = unit * c.item_count
        else:
            recorded += 1
        out.append(seconds)
    return out, recorded, per_item


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
    weights, recorded, per_item = class_weights(ordered, durations)
    assignment = split(weights, shards)
    parts: list[list[Candidate]] = [[] for _ in range(shards)]
    loads = [0.0] * shards
    for c, w, k in zip(ordered, weights, assignment, strict=True):
        parts[k].append(c)
        loads[k] += w
    return ShardPlan(parts, loads, recorded, len(ordered) - recorded, per_item, weights)


def shard(candidates: Sequence[Candidate], shards: int, durations=None) -> list[list[Candidate]]:
    """The parts of :func:`plan_shards`, each in source order."""
    return plan_shards(candidates, shards, durations).parts


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
