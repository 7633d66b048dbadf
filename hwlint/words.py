"""Wording every message and rendering shares (findings, fixes, hwselect, the report's text,
markdown and HTML): counts, plurals and before/after pairs, one number format throughout
(``1,222 of 1,912``), and text from the checked tree made safe to show (:func:`visible`). It
imports nothing of hwlint's, so every layer may use it.
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


# C0 controls, DEL, C1 controls and the Unicode line separators: echoed raw, a file name or a string
# from a pull request could move the cursor, recolour or clear the log (ESC), overwrite the line
# (CR), or start a line that looks like a finding or a workflow command (newline).
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
_CONTROLS.update({0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r", 0x2028: "\\u2028", 0x2029: "\\u2029"})


#: What a pytest argument may not start with: ``-`` is read as an option, ``@`` as an argument file
#: (argparse's ``fromfile_prefix_chars``, which pytest sets, expands ``@FILE`` anywhere in argv and
#: inside an argument file too).
ARGUMENT_PREFIXES = ("-", "@")


def argument(path: str) -> str:
    """*path* as a pytest argument that is only a path: ``./`` before one that starts with ``-`` or
    ``@`` (a file at ``@x/test_a.py`` would otherwise make pytest read ``x/test_a.py::TestA`` as
    more arguments, ``--collect-only`` or ``-p plugin``)."""
    return f"./{path}" if path.startswith(ARGUMENT_PREFIXES) else path


def shown_path(path: str) -> str:
    """*path* at the start of a line meant for people (``path:line:col: ...``, ``--show-files``):
    :func:`visible`, and ``./`` before a leading ``-`` or ``@``, so that no line starts with
    what a tool reading it would take for an option or an argument file (``-`` alone is stdin's
    name, as ruff prints it)."""
    return path if path == "-" else argument(visible(path))


def printable(text: str) -> str:
    """*text* with every control character written as a Python escape (``\\x1b``, ``\\n``)."""
    return text.translate(_CONTROLS)


#: The most characters of a value from a file that a message quotes (:func:`excerpt`).
EXCERPT_CHARS = 32


def clipped(text: str, limit: int = 2 * EXCERPT_CHARS) -> str:
    """*text* (a parser's message that may hold tokens of a file) cut to *limit* characters
    (``…`` marks a cut) and made :func:`visible`."""
    return visible(text if len(text) <= limit else text[:limit] + "…")


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """*value* as an error message may quote it when it comes from a file the checkout names: its
    ``repr`` cut to *limit* characters (``…`` marks a cut) and made :func:`visible`. A message
    never echoes a file's content whole, nor a control or invisible character raw."""
    return clipped(repr(value), limit)


# Characters that show nothing, or reorder what follows, though Python calls them printable:
# a combining grapheme joiner, Hangul and Khmer fillers, the braille blank.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")


def visible(text: str) -> str:
    """*text* as it may be shown to a person: :func:`printable`'s escapes, and every character that
    would not show as itself written as a Python escape too: format characters (the bidirectional
    overrides and isolates U+202A-202E and U+2066-2069, the marks U+200E/U+200F/U+061C, the
    zero-width U+200B-200D, U+2060, U+FEFF, the soft hyphen, tag characters), separators other
    than the space, private-use, unassigned and surrogate code points (what ``str.isprintable``
    refuses), and the blank letters of :data:`_INVISIBLE`. Raw, ``test_\\u202egnp.py`` displays as
    ``test_yp.png``, and a zero-width space makes two names that look the same."""
    if text.isascii():
        return text.translate(_CONTROLS)
    if text.isprintable() and _INVISIBLE.isdisjoint(text):
        return text
    return "".join(_escape(c) for c in text)


def _escape(c: str) -> str:
    if c.isprintable() and c not in _INVISIBLE:
        return c
    n = ord(c)
    if n in _CONTROLS:
        return _CONTROLS[n]
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"
