"""``# noqa`` directives: read from comment tokens only, and only where ruff and flake8 both read one.

A ``#noqa`` inside a string (``class TestB(TestCase if "#noqa" else object):``) is no comment, and
``# docs: https://wiki.example/hw#noqa-policy`` is a comment that neither tool takes for a
directive: a pull request must not hide a finding with either. So a finding is suppressed only by
a comment token that is a directive for both tools, and only for the codes both would suppress:

* **ruff** (``crates/ruff_linter/src/noqa.rs``, ``lex_inline_noqa``): at each ``#`` of the comment,
  after optional whitespace, ``noqa`` (any case); then the end of the comment, ``#``, or whitespace
  not followed by ``:`` is a blanket directive; ``:`` (after optional whitespace) starts codes,
  each ``[A-Z]+[0-9]+`` separated by commas or whitespace, lexing stopping at the first word that
  is not a code. Anything else right after ``noqa`` (``# noqa-policy``, ``# noqa;F401``), a code with
  a suffix (``F401abc``) or ``noqa:`` with no code makes the comment no directive at all.
* **flake8** (``NOQA_INLINE_REGEXP`` in ``flake8/defaults.py``): ``# noqa`` with exactly one space,
  any case, searched anywhere in the line; ``:`` and at most one whitespace character then start
  ``[A-Z]+[0-9]+`` codes (letters in any case, compared case-sensitively); anything else after
  ``# noqa`` (``# noqa:HWC``, ``# noqa : HWC001``) is a blanket directive.

Both say ``# noqa`` and ``# noqa: HWC001,HWC2``; ``#noqa`` (flake8 ignores it), ``# noqa:HWC``
(ruff ignores it) and lowercase codes (neither matches them) suppress nothing here. As everywhere
in hwlint, a listed code suppresses the codes it is a prefix of.

Comments are found with Python's tokenizer, but only on the lines that hold both ``#`` and
``noqa``, and only from the start of the statement before each (a point where no string or
bracket is open), so that a file pays for the few lines it has rather than for a tokenizing of
all of it (3.7 s for the 229 files of PyTorch's tests that say noqa somewhere).
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from collections.abc import Sequence

#: flake8 7's NOQA_INLINE_REGEXP, verbatim.
_FLAKE8 = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_FLAKE8_SPLIT = re.compile(r"[,\s]")


def _space(c: str) -> bool:
    """Rust's ``char::is_whitespace`` (Unicode White_Space): Python's isspace() less U+001C..U+001F."""
    return c.isspace() and c not in "\x1c\x1d\x1e\x1f"


def ruff_directive(comment: str) -> tuple[int, int, tuple[str, ...]] | None:
    """How ruff reads the comment token *comment*: (start of the directive's ``#``, end of the
    directive, its codes: empty for a blanket ``noqa``), or None when it is no directive."""
    n = len(comment)
    i = 0
    while i < n:
        i = comment.find("#", i)
        if i < 0:
            return None
        start = i
        i += 1
        while i < n and _space(comment[i]):
            i += 1
        if comment[i : i + 4].lower() != "noqa" or not comment[i : i + 4].isascii():
            continue
        i += 4
        if i >= n or comment[i] == "#":
            return start, i, ()
        if _space(comment[i]):
            j = i + 1
            while j < n and _space(comment[j]):
                j += 1
            if j >= n or comment[j] != ":":
                return start, i, ()
            i = j
        elif comment[i] != ":":
            return None  # "noqaX", "noqa;F401": invalid, and ruff looks no further
        return _ruff_codes(comment, start, i + 1)
    return None


def _upper(c: str) -> bool:
    return "A" <= c <= "Z"


def _digit(c: str) -> bool:
    return "0" <= c <= "9"


def _ruff_codes(comment: str, start: int, i: int) -> tuple[int, int, tuple[str, ...]] | None:
    """ruff's ``lex_codes`` from *i*, just past the colon."""
    n = len(comment)
    codes: list[str] = []
    end = i
    joined = False  # the previous code ran into this one with no delimiter (`F401F402`)
    while i < n:
        while i < n and _space(comment[i]):
            i += 1
        if i < n and comment[i] == ",":  # an empty item: a warning, not an error
            i += 1
            continue
        if i >= n:
            break
        if not _upper(comment[i]):
            break  # a trailing remark, as in "noqa: HWC001 reason"
        j = i
        while j < n and _upper(comment[j]):
            j += 1
        if j >= n or not _digit(comment[j]):
            if joined:
                return None
            break  # a word, not a code: the remark starts here
        while j < n and _digit(comment[j]):
            j += 1
        codes.append(comment[i:j])
        end = i = j
        if i >= n:
            break
        c = comment[i]
        if c == ",":
            i += 1
            joined = False
        elif _space(c) or c == "#":
            joined = False
        elif _upper(c):
            joined = True
        else:
            return None  # `F401abc`, `F401;`
    if not codes:
        return None  # "noqa:" with no code after it
    return start, end, tuple(codes)


def flake8_directive(comment: str) -> tuple[str, ...] | None:
    """How flake8 reads *comment*: its codes (empty: blanket), or None when it is no directive."""
    m = _FLAKE8.search(comment)
    if m is None:
        return None
    codes = m.group("codes")
    return tuple(c for c in _FLAKE8_SPLIT.split(codes) if c) if codes else ()


def directive(comment: str) -> tuple[str, ...] | None:
    """What the comment token *comment* suppresses for hwlint: None (nothing), () (every code), or
    the code prefixes that both ruff and flake8 would suppress."""
    found = ruff_directive(comment)
    if found is None:
        return None
    flake8 = flake8_directive(comment)
    if flake8 is None:
        return None
    ruff = found[2]
    if not ruff or not flake8:
        return ruff or flake8
    both = set()
    for a in ruff:
        for b in flake8:
            if a.startswith(b):
                both.add(a)
            elif b.startswith(a):
                both.add(b)
    return tuple(sorted(both)) or None


# ---------------------------------------------------------------------------------------------
# Comment tokens, found cheaply


def candidate_rows(lines: Sequence[str], noqa_rows: Sequence[int] | None = None) -> list[int]:
    """The lines (1-based) that may hold a noqa comment: those with ``#`` and ``noqa``.
    *noqa_rows*: the lines that say ``noqa`` in any case, when the caller knows them
    (:func:`rows_saying`)."""
    if noqa_rows is None:
        noqa_rows = _lines_saying_noqa(lines)
    return [i for i in noqa_rows if "#" in lines[i - 1]]


def _lines_saying_noqa(lines: Sequence[str]) -> list[int]:
    """The lines (1-based) that say ``noqa`` in any case, read line by line (any file)."""
    return [i for i, line in enumerate(lines, 1) if "noqa" in line.lower()]


def rows_saying(word: str, lowered: str, starts: Sequence[int]) -> list[int]:
    """The lines (1-based) whose text holds *word* (lowercase, no line break), found in the lowered
    text of the file (*lowered*, as long as the text: an ASCII file) whose lines start at the
    offsets *starts*: a search in C rather than a lowered copy of every line."""
    rows: list[int] = []
    pos = lowered.find(word)
    while pos >= 0:
        row = bisect.bisect_right(starts, pos)
        if not rows or rows[-1] != row:
            rows.append(row)
        pos = lowered.find(word, pos + len(word))
    return rows


def comments(lines: Sequence[str], tree: ast.Module, rows: Sequence[int]) -> dict[int, str]:
    """The comment token on each of *rows* (1-based) that has one, as the tokenizer reads the file.

    Each row is tokenized from the start of the last statement that begins at or before it (the
    rows that share that statement together), where the tokenizer's state is known: no string,
    bracket or continuation is open."""
    groups: dict[tuple[int, int], list[int]] = {}
    children: dict[int, list] = {}  # by node id: many rows descend through the same class
    for row in rows:
        groups.setdefault(_statement_start(tree, row, children), []).append(row)
    out: dict[int, str] = {}
    for (line, col), wanted in groups.items():
        simple = _simple_comment(lines[line - 1], col) if wanted == [line] else None
        if simple is not None:
            out[line] = simple
        else:
            out.update(_comments_from(lines, line, col, set(wanted)))
    return out


def _simple_comment(text: str, col: int) -> str | None:
    """The comment of a line on which a statement starts at *col* (a byte column) when no quote
    comes before its first ``#`` from there: what the tokenizer would read, without it (an import
    ``# noqa: F401`` is most directives). None when the line is not that plain."""
    if not text.isascii():
        return None
    at = text.find("#", col)
    if at < 0:
        return None
    if "'" in text[col:at] or '"' in text[col:at]:
        return None
    return text[at:].rstrip("\r\n")


def _statement_start(tree: ast.Module, row: int, children: dict[int, list]) -> tuple[int, int]:
    """(line, byte column) of the last statement (or ``except`` clause) starting at or before
    *row*, the deepest when they nest; (1, 0) when none does. Iterative: nesting is the input's."""
    best = (1, 0)
    nodes: list = tree.body
    while nodes:
        i = bisect.bisect_right(nodes, row, key=_line) - 1
        if i < 0:
            break
        node = nodes[i]
        best = (node.lineno, node.col_offset)
        nodes = children.get(id(node))  # type: ignore[assignment]
        if nodes is None:
            nodes = children[id(node)] = _children(node)
    return best


def _line(node: ast.AST) -> int:
    return node.lineno  # type: ignore[attr-defined]


def _children(node: ast.AST) -> list:
    """The statements (and ``except`` clauses) directly in *node*, in the order of the text."""
    parts = []
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        value = getattr(node, name, None)
        if not value or not isinstance(value, list):
            continue
        if name == "cases":  # a case has no position of its own
            parts += [case.body for case in value]
        elif isinstance(value[0], (ast.stmt, ast.ExceptHandler)):
            parts.append(value)
    if len(parts) == 1:
        return parts[0]
    out = [child for part in parts for child in part]
    out.sort(key=lambda n: (n.lineno, n.col_offset))
    return out


def _comments_from(lines: Sequence[str], line: int, col: int, rows: set[int]) -> dict[int, str]:
    first = lines[line - 1]
    if not first.isascii():
        col = len(first.encode("utf-8", "surrogateescape")[:col].decode("utf-8", "replace"))
    last = max(rows)
    # every line after the first at column 0: the tokenizer then never checks indentation, which
    # a fragment cannot satisfy, and a line's leading blanks decide nothing else it reads
    parts = [first[col:].rstrip("\r\n")]
    parts += [lines[i].lstrip(" \t\f").rstrip("\r\n") for i in range(line, min(last, len(lines)))]
    out: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO("\n".join(parts) + "\n").readline):
            if tok.type == tokenize.COMMENT:
                row = line + tok.start[0] - 1
                if row in rows:
                    out[row] = tok.string
            elif tok.start[0] > last - line + 1:
                break
    except (tokenize.TokenError, SyntaxError):
        pass  # the fragment ends inside a string or brackets: what it found before stands
    return out


def noqa_directives(
    lines: Sequence[str], tree: ast.Module, noqa_rows: Sequence[int] | None = None
) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(line, codes) of every noqa directive of a parsed file (codes empty: blanket); *noqa_rows*
    as for :func:`candidate_rows`."""
    rows = candidate_rows(lines, noqa_rows)
    if not rows:
        return ()
    found = comments(lines, tree, rows)
    out = []
    for row in rows:
        comment = found.get(row)
        codes = directive(comment) if comment is not None else None
        if codes is not None:
            out.append((row, codes))
    return tuple(out)


# The file-level exemption, a comment on a line of its own (written here without its hash, or ruff
# would read it), in ruff's syntax: "hwlint: noqa" (every code) or "hwlint: noqa: HWC001, HWC2"
# (those); anything else after "noqa" exempts nothing. flake8's "flake8: noqa" is flake8's: flake8
# skips such a file before the plugin sees it, while hwlint check and the lintrunner adapter, which
# stand in for upstream's TEST_LINTER (it reads no such comment), check it.
_HWLINT_FILE_NOQA = re.compile(
    r"\s*#\s*hwlint\s*:\s*noqa(?:\s*:\s*(?P<codes>[A-Z]+[0-9]*(?:\s*,\s*[A-Z]+[0-9]*)*))?\s*(?:#.*)?$",
    re.IGNORECASE,
)


def _in_strings(tree: ast.AST | None, rows: list[int]) -> set[int]:
    """Of *rows*, those inside a string literal of *tree* that spans lines (a line after its
    first is text). Only the nodes whose lines hold one of *rows* are visited: a comment on a line
    of its own lies between statements, so most files walk nothing below the module."""
    if tree is None or not rows:
        return set()
    out: set[int] = set()
    todo = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            if first is None:  # arguments, comprehensions, ...: no position of their own
                todo.append(child)
                continue
            last = child.end_lineno or first
            inside = [r for r in rows if first < r <= last]
            if not inside:
                continue
            if isinstance(child, ast.JoinedStr) or (
                isinstance(child, ast.Constant) and isinstance(child.value, (str, bytes))
            ):
                out.update(inside)
            else:
                todo.append(child)
    return out


def file_exemption(
    lines: list[str], lowered: str, tree: ast.AST | None, noqa_rows: Sequence[int] | None = None
) -> tuple[str, ...] | None:
    """The file-level ``# hwlint: noqa[: CODES]`` of the file of *lines* (*lowered*: its text in
    lowercase): None, () for every code, or the codes exempted. Only a comment counts: a line inside
    a string of *tree* is text. *noqa_rows* as for :func:`candidate_rows`."""
    if "hwlint" not in lowered:
        return None
    found: list[tuple[int, tuple[str, ...]]] = []
    for i in _lines_saying_noqa(lines) if noqa_rows is None else noqa_rows:
        m = _HWLINT_FILE_NOQA.match(lines[i - 1].rstrip("\r\n"))
        if m:
            codes = m.group("codes")
            found.append((i, tuple(c.strip().upper() for c in codes.split(",")) if codes else ()))
    if not found:
        return None
    strings = _in_strings(tree, [i for i, _ in found])
    found = [(i, codes) for i, codes in found if i not in strings]
    if not found:
        return None
    if any(not codes for _, codes in found):
        return ()
    return tuple(sorted({c for _, codes in found for c in codes}))
