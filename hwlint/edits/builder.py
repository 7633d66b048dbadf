"""The edits a rule's fix is made of, placed in one file's text: a declaration first in a class body,
the import of a name, a replacement within a line, a parameter added to a test, a statement after a
class, the device-neutral keywords of an instantiation call.

A rule says *what* changes (``b.declare(cls, "GENERIC")``); the builder says *where* the characters
go, from the model's (CPython's) positions, and from ast-grep's tree only where the model cannot
tell (a body on its header's line...). Each method returns the edits, tagged with what they do
(:data:`~hwlint.edits.records.DECLARE`...), so that the fixer can tell whether the model of the fixed
text follows from the original's parse. Every byte outside an edit stays as it was: comments, CRLF
line endings, tabs, the encoding declaration.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..model import ClassInfo, FileModel, ImportStatement, Instantiation, Method, Site
from ..taxonomy import Taxonomy
from .imports import MAX_LINE, block_edit, bound_name, name_reference, new_import_edit
from .records import DECLARE, IMPORT_LINE, IMPORT_NAME, REWRITE, STATEMENT, TEXT, Edit
from .text import (
    LONE_CR,
    Tree,
    blank_after,
    comment_only,
    default_newline,
    indent_unit,
    insert_edit,
    is_docstring,
    line_end,
    line_start_at,
    line_starts,
    offset_at,
)
from .torch_enum import fallback_block

if TYPE_CHECKING:
    from ast_grep_py import SgNode


class EditBuilder:
    """The edits of one file's fixes, placed in *source* (whose model is *model*). ast-grep's tree
    of the text is parsed on first use, once for every fix of the file."""

    def __init__(self, source: str, model: FileModel, taxonomy: Taxonomy):
        self.source, self.model, self.taxonomy = source, model, taxonomy
        self.starts = line_starts(source)
        self.tree = Tree(source)
        # tree-sitter ends no line at a lone CR: such a file is edited through ast-grep's places only
        self.by_model = LONE_CR.search(source) is None

    def offset(self, line: int, col: int) -> int:
        return offset_at(self.starts, line, col)

    # -- names ----------------------------------------------------------------------------------
    def reference(self, module: str, name: str, before_line: int) -> tuple[str, list[Edit]]:
        """How *name* of *module* is written in the file, and the edit importing it when no import
        binds it yet (placed with the imports above *before_line*, where it is first used)."""
        ref, edit, placed = name_reference(
            self.source, self.tree, self.starts, self.model, module, name, before_line
        )
        if edit is None:
            return ref, []
        key = f"import {module} {name}"
        if placed is None and self.by_model:
            role, line = IMPORT_LINE, 0
        elif isinstance(placed, ImportStatement) and self.by_model:
            role, line = IMPORT_NAME, placed.site.line
        else:
            role, line = TEXT, 0
        return ref, [Edit(edit.start_pos, edit.end_pos, edit.inserted_text, role, line, 0, key)]

    def enum(self, before_line: int) -> tuple[str, list[Edit]]:
        """How the taxonomy's enum is written in the file, and the edit importing it if needed; with
        the taxonomy's ``enum.fallback`` (see :mod:`hwlint.edits.torch_enum`), the import in a
        ``try`` whose ``except ImportError`` defines the enum with the taxonomy's classifications
        (a torch without it still imports the file)."""
        tax = self.taxonomy
        if not tax.enum_fallback or bound_name(self.model, tax.enum_module, tax.enum_name) is not None:
            return self.reference(tax.enum_module, tax.enum_name, before_line)
        newline = default_newline(self.source)
        has_enum = any(i.binding_module("enum") == "enum" for i in self.model.imports if not i.nested)
        block = newline.join(fallback_block(tax, indent_unit(self.source, ""), not has_enum))
        placed = block_edit(self.source, self.starts, self.model, block + newline, newline, before_line)
        if placed is None:
            # no module-level import above the class on a line of its own: ast-grep places it
            placed = new_import_edit(
                self.source, self.tree.root, self.starts, self.model, block + newline, before_line
            )
        key = f"import {tax.enum_module} {tax.enum_name}"
        return tax.enum_name, [Edit(placed.start_pos, placed.end_pos, placed.inserted_text, TEXT, 0, 0, key)]

    # -- declarations ---------------------------------------------------------------------------
    def declare(self, cls: ClassInfo, member: str) -> list[Edit]:
        """``<attribute> = <enum>.<member>`` first in *cls*'s body (after its docstring), on a line of
        its own, and the enum's import when the file lacks it."""
        ref, edits = self.enum(cls.site.line)
        statement = f"{self.taxonomy.attribute} = {ref}.{member}"
        placed = self._declaration_by_model(cls, statement) if self.by_model else None
        if placed is not None:
            return [*edits, Edit(placed.start_pos, placed.end_pos, placed.inserted_text, DECLARE, *_at(cls))]
        return [*edits, *_declaration_edits(self.source, self.tree.class_node(self.starts, cls), statement)]

    def redeclare(self, site: Site, member: str) -> Edit:
        """The declared value at *site* (``HardwareClassification.CUDA``) made *member*."""
        owner = site.text.rpartition(".")[0]
        return self.replace(site, f"{owner}.{member}")

    def _declaration_by_model(self, cls: ClassInfo, statement: str) -> Edit | None:
        """The declaration placed by the model's positions; None where :func:`_declaration_at`
        says only ast-grep's tree can place it."""
        if cls.colon is None:
            return None
        doc = cls.docstring
        placed = _declaration_at(
            self.source,
            statement,
            self.offset(cls.colon.line, cls.colon.col),
            self.offset(cls.body.line, cls.body.col),
            self.offset(doc.end_line, doc.end_col) if doc is not None else None,
        )
        return placed[0] if placed else None

    # -- replacements ---------------------------------------------------------------------------
    def replace(self, site: Site, text: str) -> Edit:
        """The text of *site* replaced by *text*."""
        start, end = self.offset(site.line, site.col), self.offset(site.end_line, site.end_col)
        return self._within(start, end, text)

    def add_parameter(self, method: Method, param: str) -> Edit:
        """``, <param>`` after *method*'s first parameter (``self``); the parameters rewritten as
        the formatters wrap them (see :meth:`_wrapped_parameters`) where the line would grow longer
        than :data:`MAX_LINE`."""
        first = method.param_sites[0]
        at = self.offset(first.end_line, first.end_col)
        end, newline = line_end(self.source, at)
        if end - len(newline) - line_start_at(self.source, at) + len(param) + 2 > MAX_LINE:
            wrapped = self._wrapped_parameters(method, param)
            if wrapped is not None:
                return wrapped
        return self._within(at, at, f", {param}")

    def _wrapped_parameters(self, method: Method, param: str) -> Edit | None:
        """*method*'s parameter list with *param* after the first, written as the formatters write
        a signature too long for its line: the parameters on a line of their own, or one a line
        (a comma after each) when that line is too long still; None when a comment is among them,
        or a device's name."""
        at = self.offset(method.site.line, method.site.col)
        node = next(
            (n for n in self.tree.root.find_all(kind="function_definition") if n.range().start.index == at),
            None,
        )
        params = node.field("parameters") if node is not None else None
        if params is None:
            return None
        children = [c for c in params.children() if c.is_named()]
        if not children or any(c.kind() == "comment" for c in children):
            return None
        text = params.text()
        if any(f"{q}{d}" in text for d in self.taxonomy.devices for q in "\"'."):
            return None  # a device a fix rewrites in a default ("cuda", .cuda()) would overlap this edit
        items = [c.text() for c in children]
        items.insert(1, param)
        indent = self.source[line_start_at(self.source, at) : at]
        r = params.range()
        return Edit(r.start.index, r.end.index, self._wrapped(items, indent), TEXT)

    def _within(self, start: int, end: int, text: str) -> Edit:
        within = not any(c in self.source[start:end] or c in text for c in "\r\n")
        return Edit(start, end, text, REWRITE if within and self.by_model else TEXT)

    # -- whole lines ----------------------------------------------------------------------------
    def lines(self, first: int, last: int) -> str:
        """The text of lines *first* to *last* (1-based, ends kept)."""
        return self.source[self.offset(first, 0) : self._line_after(last)]

    def delete_lines(self, first: int, last: int) -> Edit:
        """Lines *first* to *last* removed."""
        return Edit(self.offset(first, 0), self._line_after(last), "", TEXT)

    def insert_after_line(self, line: int, text: str) -> Edit:
        """*text* (whole lines) inserted after line *line*."""
        at = self._line_after(line)
        ends = self.source[:at].endswith(("\n", "\r")) or not at
        return Edit(at, at, text if ends else default_newline(self.source) + text, TEXT)

    def _line_after(self, line: int) -> int:
        return self.starts[line] if line < len(self.starts) else len(self.source)

    # -- module-level statements ----------------------------------------------------------------
    def statement_after(self, cls: ClassInfo, statement: str) -> Edit:
        """*statement* on a line of its own after *cls*, two blank lines between, at its indent."""
        starts, source = self.starts, self.source
        line_start = self.offset(cls.site.line, 0)
        indent = source[line_start : line_start + cls.site.col]
        newline = default_newline(source)
        text = f"{newline}{newline}{indent}{statement}{newline}"
        if cls.end_line < len(starts) - 1:  # a line follows the class
            at = self.offset(cls.end_line + 1, 0)
            exact = self.by_model and not indent and not cls.nested
            return Edit(at, at, text, STATEMENT if exact else TEXT, cls.end_line if exact else 0)
        ends_line = source.endswith(("\n", "\r"))
        return Edit(len(source), len(source), ("" if ends_line else newline) + text, TEXT)

    def set_keywords(self, call: Instantiation, keywords: Sequence[tuple[str, str]], replacing: str) -> Edit:
        """The call *call* with *keywords* ((name, value text) pairs) written in place of its
        *replacing* keyword, or after its last argument when it has none; a keyword other than the
        first that the call passes already is left as it is."""
        site = call.site
        node = self.tree.calls.at(self.offset(site.line, site.col))
        if node is None:
            raise LookupError(f"instantiation at line {site.line} not found by ast-grep")
        args = node.field("arguments")
        assert args is not None
        present = {}
        for child in args.children():
            if child.kind() == "keyword_argument":
                name = child.field("name")
                if name is not None:
                    present[name.text()] = child
        added = [f"{k}={v}" for i, (k, v) in enumerate(keywords) if i == 0 or k not in present]
        text = ", ".join(added)
        items = [c.text() for c in args.children() if c.is_named() and c.kind() != "comment"]
        old = present.get(replacing)
        if old is not None:
            r = old.range()
            at = items.index(old.text())
            items[at : at + 1] = added
            edit = self._within(r.start.index, r.end.index, text)
        else:
            items += added
            close = args.range().end.index - 1  # the closing parenthesis
            before = self.source[args.range().start.index + 1 : close].rstrip()
            sep = "" if before.endswith(",") or not before else ", "
            edit = self._within(close, close, sep + text)
        return self._wrapped_arguments(args, items) or edit

    def call_text(self, function: str, items: Sequence[str], indent: str = "", end: str = "") -> str:
        """The call ``function(items...)`` as a statement at *indent* (the indent itself left out),
        followed by *end*, wrapped as the formatters wrap a line longer than :data:`MAX_LINE`. A
        class header is one too: ``call_text("class TestFooCudaOnly", ["TestFoo"], end=":")``."""
        one = f"{function}({', '.join(items)}){end}"
        if len(indent) + len(one) <= MAX_LINE:
            return one
        unit = indent_unit(self.source, indent)
        newline = default_newline(self.source)
        inner = f"{indent}{unit}{', '.join(items)}"
        if len(inner) <= MAX_LINE:
            return f"{function}({newline}{inner}{newline}{indent}){end}"
        body = "".join(f"{indent}{unit}{i},{newline}" for i in items)
        return f"{function}({newline}{body}{indent}){end}"

    def _wrapped(self, items: Sequence[str], indent: str) -> str:
        """*items* in parentheses as the formatters write arguments too long for their line: on a
        line of their own below *indent*, or one a line when that line is too long still."""
        unit = indent_unit(self.source, indent)
        newline = default_newline(self.source)
        one = f"{indent}{unit}{', '.join(items)}"
        if len(one) <= MAX_LINE:
            body = one + newline
        else:
            body = "".join(f"{indent}{unit}{i},{newline}" for i in items)
        return f"({newline}{body}{indent})"

    def _wrapped_arguments(self, args: SgNode, items: list[str]) -> Edit | None:
        """The one-line argument list *args* written with *items* as the formatters write a call
        longer than :data:`MAX_LINE`: the arguments on a line of their own, or one a line when that
        line is too long still; None when the line fits, or a comment ends the line (a ``# noqa``
        must stay on the line flake8 reports). A list over lines already is written one argument a
        line where its arguments would not fit on one line (None when a comment is among them)."""
        r = args.range()
        start, end = r.start.index, r.end.index
        first = line_start_at(self.source, start)
        last = len(self.source)
        for stop in ("\n", "\r"):
            found = self.source.find(stop, end)
            if found >= 0:
                last = min(last, found)
        head, tail = self.source[first:start], self.source[end:last]
        indent = head[: len(head) - len(head.lstrip())]
        if "\n" in self.source[start:end] or "\r" in self.source[start:end]:
            # over lines already: rewritten only where its arguments' line would grow too long
            unit = indent_unit(self.source, indent)
            if "#" in self.source[start:end] or len(f"{indent}{unit}{', '.join(items)}") <= MAX_LINE:
                return None
            return Edit(start, end, self._wrapped(items, indent), TEXT)
        if "#" in tail:
            return None
        if len(head) + len(", ".join(items)) + 2 + len(tail) <= MAX_LINE:
            return None
        return Edit(start, end, self._wrapped(items, indent), TEXT)


def _at(cls: ClassInfo) -> tuple[int, int]:
    return cls.site.line, cls.site.col


def _declaration_at(
    source: str, statement: str, colon_end: int, first_start: int, doc_end: int | None, class_start: int = -1
) -> list[Edit] | None:
    """Edits putting *statement* first in a class body whose header's colon ends at *colon_end*,
    whose first statement starts at *first_start* (and ends at *doc_end* when it is the docstring).

    Without *class_start* (where the ``class`` keyword is), only a line of its own after the
    header's line or the docstring's: None when the body starts on the header's line, or a line to
    insert after holds code after the colon or the docstring, or ends in a continuation."""
    careful = class_start < 0
    header_end, newline = line_end(source, colon_end)
    newline = newline or default_newline(source)
    indent = source[line_start_at(source, first_start) : first_start]
    if careful and (
        first_start < header_end or indent.strip() or not comment_only(source[colon_end:header_end])
    ):
        return None
    if first_start < header_end:  # `class T(TestCase): pass`: the body shares the header line
        class_indent = source[line_start_at(source, class_start) : class_start]
        indent = class_indent + indent_unit(source, class_indent)
        if doc_end is None:
            return [insert_edit(colon_end, f"{newline}{indent}{statement}{newline}{indent}", first_start)]
        return [
            insert_edit(colon_end, f"{newline}{indent}", first_start),
            insert_edit(doc_end, f"{newline}{indent}{statement}"),
        ]
    anchor = header_end
    if doc_end is not None:
        anchor, newline = line_end(source, doc_end)
        if careful and (not newline or not comment_only(source[doc_end:anchor])):
            return None
        if not newline:  # the docstring ends the file
            return [insert_edit(anchor, f"{default_newline(source)}{indent}{statement}")]
    blank = "" if blank_after(source, anchor) else newline
    return [insert_edit(anchor, f"{indent}{statement}{newline}{blank}")]


def _declaration_edits(source: str, node: SgNode, statement: str) -> list[Edit]:
    """:func:`_declaration_at` for the class definition *node* of ast-grep's tree, any shape."""
    colon = next(c for c in node.children() if c.kind() == ":")
    body = node.field("body")
    assert body is not None
    first = next(c for c in body.children() if c.kind() != "comment")
    doc_end = first.range().end.index if is_docstring(first) else None
    placed = _declaration_at(
        source,
        statement,
        colon.range().end.index,
        first.range().start.index,
        doc_end,
        node.range().start.index,
    )
    assert placed is not None
    return placed
