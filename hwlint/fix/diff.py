"""``--diff``: unified diffs of the fixed files, anchored on the lines the fixes leave alone so that a
hunk shows the edit itself, not a shifted look-alike."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from ..words import visible

if TYPE_CHECKING:
    from .outcome import FixResult


def unified_diff(result: FixResult) -> str:
    """The change a fix would make, as a unified diff (ruff's ``--diff``)."""
    if not result.changed:
        return ""
    assert result.text is not None and result.fixed_text is not None
    path = visible(result.plan.path)  # a header for people: a name's controls or bytes escaped
    a = result.text.splitlines(keepends=True)
    b = result.fixed_text.splitlines(keepends=True)
    out = [f"--- {path}\n", f"+++ {path}\n"]
    for group in _AnchoredMatcher(None, a, b).get_grouped_opcodes(3):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(f"@@ -{_hunk_range(i1, i2)} +{_hunk_range(j1, j2)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [" " + line for line in a[a1:a2]]
                continue
            out += ["-" + line for line in a[a1:a2]]
            out += ["+" + line for line in b[b1:b2]]
    if len(out) == 2:
        return ""
    return "".join(out)


def _hunk_range(start: int, stop: int) -> str:
    """A unified diff's ``start,length`` (1-based; an empty range names the line before it)."""
    length = stop - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


class _AnchoredMatcher(difflib.SequenceMatcher):
    """difflib's matcher, anchored first on the lines that occur once in each file (as patience
    diff does). Plain difflib compares every copy of a repeated line (``    def test_a(self):``,
    blank lines) with every other, which makes a file of thousands of classes quadratic; between
    anchors only a few lines are left to match."""

    def get_matching_blocks(self):
        if self.matching_blocks is not None:
            return self.matching_blocks
        a, b = self.a, self.b
        blocks: list[tuple[int, int, int]] = []
        i0 = j0 = 0
        for i, j in [*_unique_anchors(a, b), (len(a), len(b))]:
            if i - i0 and j - j0:
                gap = difflib.SequenceMatcher(None, a[i0:i], b[j0:j], autojunk=False)
                blocks += [(i0 + x, j0 + y, n) for x, y, n in gap.get_matching_blocks() if n]
            if i < len(a):
                blocks.append((i, j, 1))
            i0, j0 = i + 1, j + 1
        merged: list[tuple[int, int, int]] = []
        for i, j, n in blocks:
            if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
                merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
            else:
                merged.append((i, j, n))
        self.matching_blocks = [difflib.Match(*m) for m in [*merged, (len(a), len(b), 0)]]
        return self.matching_blocks


def _unique_anchors(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """(i, j) pairs of lines found exactly once in each of *a* and *b*, the longest run of them
    in the same order in both (a longest increasing subsequence, n log n)."""
    once_a = _once(a)
    once_b = _once(b)
    pairs = [(i, once_b[line]) for line, i in once_a.items() if line in once_b]
    pairs.sort()
    tails: list[int] = []  # tails[k]: index into pairs of the smallest tail of a run of length k+1
    back: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = _bisect_tail(pairs, tails, j)
        if pos:
            back[k] = tails[pos - 1]
        if pos == len(tails):
            tails.append(k)
        else:
            tails[pos] = k
    run: list[tuple[int, int]] = []
    k = tails[-1] if tails else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def _bisect_tail(pairs: list[tuple[int, int]], tails: list[int], j: int) -> int:
    lo, hi = 0, len(tails)
    while lo < hi:
        mid = (lo + hi) // 2
        if pairs[tails[mid]][1] < j:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _once(lines: list[str]) -> dict[str, int]:
    first: dict[str, int] = {}
    repeated: set[str] = set()
    for i, line in enumerate(lines):
        if line in first:
            repeated.add(line)
        else:
            first[line] = i
    return {line: i for line, i in first.items() if line not in repeated}
