"""Wording every message and rendering shares (findings, fixes, hwselect, the report's text,
markdown and HTML): counts, plurals and before/after pairs, one number format throughout
(``1,222 of 1,912``). It imports nothing of hwlint's, so every layer may use it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def number(n: int) -> str:
    """``1,222``: every count in a report is written this way."""
    return f"{n:,}"


def share(part: int, whole: int) -> str:
    """``1,222 of 1,912``."""
    return f"{part:,} of {whole:,}"


def plural(n: int, word: str) -> str:
    """``1 class``, ``2 classes``, ``3 directories``, ``1,234 tests``."""
    return f"{n:,} {noun(n, word)}"


def noun(n: int, word: str) -> str:
    """*word* as it goes with the count *n*, the count left out: ``class`` for 1, else ``classes``
    (for ``1 of 1 test class``, where the count is written apart)."""
    if n == 1:
        return word
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return f"{word}es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return f"{word[:-1]}ies"
    return f"{word}s"


def arrow(pair: Sequence, fmt: Callable[[object], str] = str) -> str:
    """A [before, after] pair in words: ``3 → 4``, ``4`` when equal, ``(new) 4``, ``3 (removed)``."""
    before, after = pair
    if before is None:
        return f"(new) {fmt(after)}"
    if after is None:
        return f"{fmt(before)} (removed)"
    return fmt(after) if before == after else f"{fmt(before)} → {fmt(after)}"


def changed_runners(cmp: dict) -> list[dict]:
    """The runners whose classes or tests changed (a new runner too)."""
    return [r for r in cmp["runners"] if r["classes"][0] != r["classes"][1] or r["tests"][0] != r["tests"][1]]
