"""Shards: one runner's classes split into balanced parts, the same on every CI job."""

from __future__ import annotations

from collections.abc import Sequence

from .records import Candidate, SelectionError
from .replay import _line


def shard(candidates: Sequence[Candidate], shards: int) -> list[list[Candidate]]:
    """Split *candidates* into *shards* lists balanced by test-method count (largest first, greedy).

    Deterministic for a given input, so every CI job recomputes the same split on its own.
    """
    if shards < 1:
        raise SelectionError("--shards must be at least 1")
    out: list[list[Candidate]] = [[] for _ in range(shards)]
    load = [0] * shards
    for c in sorted(candidates, key=lambda c: (-c.test_count, c.path, c.name)):
        k = min(range(shards), key=lambda i: (load[i], i))
        out[k].append(c)
        load[k] += c.test_count
    for part in out:
        part.sort(key=lambda c: (c.path, *_line(c)))
    return out
