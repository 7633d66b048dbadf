"""Text edits and the places they go: characters replaced by characters, lines as CPython counts
them, and ast-grep's tree of a text for the places the model cannot give (parsed on first use)."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..model import ClassInfo, split_lines
from .records import Edit

if TYPE_CHECKING:  # ast-grep is imported when a file needs it (a few per migration), not by every check
    from ast_grep_py import SgNode


def apply_edits(source: str, edits: Sequence[Edit]) -> str:
    """*source* with the sorted, disjoint *edits* made."""
    out, pos = [], 0
    for e in edits:
        out += [source[pos : e.start_pos], e.inserted_text]
        pos = e.end_pos
    return "".join([*out, source[pos:]])


class Tree:
    """ast-grep's tree of a text, parsed on first use: most fixes need only the model's positions.

    tree-sitter ends no line at a lone CR (CPython does): it would misread the blocks of such a
    file. A lone CR becomes LF in the text it parses, one character for one, so every offset it
    gives holds in the text itself, where the edits are applied; so does a stray byte of a UTF-8
    file (a lone surrogate, in a comment), which becomes U+FFFD."""

    def __init__(self, source: str):
        self.source = source
        self._root: SgNode | None = None
        self._classes: dict[int, SgNode] | None = None
        self._calls: _CallNodes | None = None

    @property
    def root(self) -> SgNode:
        if self._root is None:
            from ast_grep_py import SgRoot

            text = LONE_CR.sub("\n", self.source)
            if not text.isascii():  # stray bytes of a UTF-8 file (in comments) cannot cross into Rust
                text = _STRAY.sub("\ufffd", text)
            self._root = SgRoot(text, "python").root()
        return self._root

    def class_node(self, starts: list[int], cls: ClassInfo) -> SgNode:
        if self._classes is None:  # one walk of the tree: one per class would make a file of many quadratic
            self._classes = {n.range().start.index: n for n in self.root.find_all(kind="class_definition")}
        node = self._classes.get(offset_at(starts, cls.site.line, cls.site.col))
        if node is not None:
            return node
        raise LookupError(f"class {cls.name} at line {cls.site.line} not found by ast-grep")

    @property
    def calls(self) -> _CallNodes:
        if self._calls is None:
            self._calls = _CallNodes(self.root)
        return self._calls


LONE_CR = re.compile(r"\r(?!\n)")
_STRAY = re.compile("[\udc80-\udcff]")  # surrogateescape's lone surrogates: one character for one


def merge_insertions(edits: list[Edit]) -> list[Edit]:
    """Sorted edits, insertions at one position joined in the order they were made (two new import
    lines after the same statement)."""
    out: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.start_pos, e.end_pos)):
        last = out[-1] if out else None
        if last is not None and last.start_pos == last.end_pos == e.start_pos:
            out[-1] = insert_edit(e.start_pos, last.inserted_text + e.inserted_text, e.end_pos)
            continue
        out.append(e)
    return out


class _CallNodes:
    """Every call of the tree by its start offset (the outermost of calls starting at one offset),
    found in one walk of the tree, on first use: one walk per converted class would make a file of
    many classes and calls quadratic."""

    def __init__(self, root: SgNode):
        self.root = root
        self._by_start: dict[int, SgNode] | None = None

    def at(self, start: int) -> SgNode | None:
        if self._by_start is None:
            self._by_start = {}
            for node in self.root.find_all(kind="call"):  # pre-order: an outer call comes first
                self._by_start.setdefault(node.range().start.index, node)
        return self._by_start.get(start)


def insert_edit(start: int, text: str, end: int | None = None) -> Edit:
    """An edit replacing characters [start, end) of the text (an insertion when end is None)."""
    return Edit(start, start if end is None else end, text)


def check_disjoint(edits: Sequence[Edit]) -> None:
    # an overlap would garble the text, or (ast-grep's way) drop an edit: a silent half-fix
    for a, b in itertools.pairwise(edits):
        if b.start_pos < a.end_pos or (b.start_pos == a.start_pos and a is not b):
            raise AssertionError(f"overlapping edits at {a.start_pos} and {b.start_pos}")


def line_starts(source: str) -> list[int]:
    """The offset of each line's first character, lines as CPython counts them.

    The model's places are CPython's (line, column); ast-grep's tree-sitter counts lines otherwise
    (a lone CR ends no line there) and its names are not NFKC-normalised as Python's are (``TestK``
    + KELVIN SIGN is the class ``TestKK``), so nodes are matched by character offset alone."""
    return list(itertools.accumulate(map(len, split_lines(source)), initial=0))


def offset_at(starts: list[int], line: int, col: int) -> int:
    return starts[line - 1] + col if 0 < line <= len(starts) else -1


def line_end(source: str, pos: int) -> tuple[int, str]:
    """(offset just past the line ending at or after *pos*, that line ending); ("", len) at EOF."""
    for i in range(pos, len(source)):
        ch = source[i]
        if ch == "\n":
            return i + 1, "\n"
        if ch == "\r":
            if source.startswith("\r\n", i):
                return i + 2, "\r\n"
            return i + 1, "\r"
    return len(source), ""


def line_start_at(source: str, pos: int) -> int:
    return max(source.rfind("\n", 0, pos), source.rfind("\r", 0, pos)) + 1


def indent_unit(source: str, class_indent: str) -> str:
    """The indentation step the file uses: a tab if its first indented line starts with one."""
    if "\t" in class_indent:
        return "\t"
    return _file_indent_unit(source)


@functools.lru_cache(maxsize=4)
def _file_indent_unit(source: str) -> str:
    # cached: asked once per fixed class, and splitting a big file each time made fixing quadratic
    for line in split_lines(source):
        if line[:1] in (" ", "\t") and line.strip():
            return "\t" if line[0] == "\t" else "    "
    return "    "


def blank_after(source: str, pos: int) -> bool:
    """Whether the line starting at *pos* is blank (or the text ends there)."""
    end, _ = line_end(source, pos)
    return not source[pos:end].strip()


def comment_only(text: str) -> bool:
    """Whether the rest of a line is blank or a comment (no code, no continuation)."""
    text = text.strip()
    return not text or text.startswith("#")


def is_docstring(stmt: SgNode) -> bool:
    """Whether *stmt* is a docstring as CPython sees one: a string, not an f-string nor bytes."""
    if stmt.kind() != "expression_statement":
        return False
    children = stmt.children()
    if len(children) != 1 or children[0].kind() not in ("string", "concatenated_string"):
        return False
    parts = children[0].children() if children[0].kind() == "concatenated_string" else children
    return not any({"f", "b"} & set(_string_prefix(p.text())) for p in parts)


def _string_prefix(literal: str) -> str:
    """The prefix letters of a string literal's text (``rb`` in ``rb"..."``), lowercase."""
    return literal[: min(i for i in (literal.find('"'), literal.find("'"), len(literal)) if i >= 0)].lower()


def default_newline(source: str) -> str:
    _, newline = line_end(source, 0)
    return newline or "\n"
