"""Fixes: write the inferred ``hw_classification`` into undeclared test classes (HWC001, HWC005),
spell hard-coded devices for every device (HWC301), and convert one-device classes to device-generic
ones (HWC302).

The facts (which classes, where their bodies and headers end, which imports exist) come from the
file model, and so do the places of the edits; ast-grep-py parses the text only for an edit the
model cannot place (a body on its header's line...). The edits never overlap and are committed
once. Every byte outside the inserted text stays as it was: comments, CRLF line endings, tabs, the
encoding declaration. The fixed text's model follows from the original's parse when every edit was
placed by the model (:class:`Edits`, :meth:`hwlint.model.Parsed.with_lines`); otherwise the fixed
text is parsed again, and refused if it does not parse. A file that does not parse is never
touched, and a file written is written atomically (a temporary file in the same directory, then
``os.replace``), unless it changed on disk since it was read.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import io
import itertools
import os
import re
import stat
import tempfile
import tokenize
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..checker import Finding, ProjectCheck, Selection, read_source, run_rules
from ..context import Context
from ..infer import Inference, inference
from ..model.build import (
    ClassInfo,
    FileModel,
    ImportStatement,
    Parsed,
    Resolver,
    Site,
    build_model,
    decode_source,
    line_map,
    parse_file,
    split_lines,
)
from ..neutral import SAFE, Conversion, Rewrite, conversion, hard_uses, neutral_except_for, shown
from ..pipeline.cache import Cache
from ..pipeline.engine import MAX_FILE_BYTES, analyze_files
from ..project import Links
from ..rules.registry import RULES, collected_inference
from ..taxonomy import Taxonomy
from .outcome import DECLARATION_CODES, FIXED_CODE, FIXED_CODES, CheckRun, FilePlan, FixOptions

if TYPE_CHECKING:  # ast-grep is imported when a file needs it (a few per migration), not by every check
    from ast_grep_py import SgNode


@dataclass(frozen=True)
class RewriteFix:
    """HWC301's fix: one hard-coded device spelled for every device."""

    cls: ClassInfo
    rewrite: Rewrite

    @property
    def safe(self) -> bool:
        return self.rewrite.applicability == SAFE

    fixable = True

    def describe(self) -> str:
        kind = "safe" if self.safe else "unsafe"
        use = self.rewrite.use
        before = use.target.text if use.target is not None else shown(use)
        return f"`{before}` -> `{self.rewrite.text}` ({kind}, line {use.site.line})"


@dataclass(frozen=True)
class ConversionFix:
    """HWC302's fix: the whole class made device-generic."""

    cls: ClassInfo
    conversion: Conversion
    safe = False
    fixable = True

    def describe(self) -> str:
        c = self.conversion
        return (
            f"{c.classification} -> {c.target} (unsafe): {len(c.tests)} test(s) take `device`, "
            f"{len(c.rewrites)} hard-coded device(s) rewritten, instantiated for every device but "
            "the generic runners'"
        )


# ---------------------------------------------------------------------------------------------
# Text edits


def insert_declarations(
    source: str, model: FileModel, taxonomy: Taxonomy, wanted: Sequence[tuple[ClassInfo, str]]
) -> str:
    """*source* with ``<attribute> = <enum>.<member>`` declared in each class of *wanted*.

    *model* must be the model of *source*. The enum is imported when no import binds it yet.
    """
    return fixed_text(source, model, taxonomy, wanted)


def fixed_text(
    source: str,
    model: FileModel,
    taxonomy: Taxonomy,
    declarations: Sequence[tuple[ClassInfo, str]] = (),
    rewrites: Sequence[Rewrite] = (),
    conversions: Sequence[Conversion] = (),
) -> str:
    """*source* with every fix applied at once: *declarations* inserted, *rewrites* replaced,
    *conversions* performed. *model* must be the model of *source*."""
    if not (declarations or rewrites or conversions):
        return source
    return apply_edits(source, fix_edits(source, model, taxonomy, declarations, rewrites, conversions).edits)


def apply_edits(source: str, edits: Sequence[Edit]) -> str:
    """*source* with the sorted, disjoint *edits* made."""
    out, pos = [], 0
    for e in edits:
        out += [source[pos : e.start_pos], e.inserted_text]
        pos = e.end_pos
    return "".join([*out, source[pos:]])


@dataclass(slots=True)
class Edit:
    """Characters [start_pos, end_pos) of a text replaced by *inserted_text* (ast-grep's shape)."""

    start_pos: int
    end_pos: int
    inserted_text: str


@dataclass
class Edits:
    """The sorted, disjoint edits of a file's fixes and the declarations they insert. *exact*: every
    edit inserts whole lines at the start of a line, placed by the model's (CPython's) positions
    where a statement may start, adds a name to an import, or replaces text within one line (a
    rewrite): the model of the fixed text follows from the original's parse, the methods holding a
    rewrite parsed again alone (:meth:`hwlint.model.Parsed.with_lines`). Otherwise (a conversion,
    a header that shares a line with the body...) the whole fixed text is parsed again."""

    edits: list[Edit]
    statements: list[str]
    exact: bool
    starts: list[int]  # where the edited text's lines start
    # what each exact edit is: the declaration of a class; the enum's import (None: a new line,
    # or the import statement a name is added to)
    declared: list[tuple[ClassInfo, Edit]] = field(default_factory=list)
    imported: list[tuple[Edit, ImportStatement | None]] = field(default_factory=list)
    rewritten: list[Edit] = field(default_factory=list)  # replacements within one line
    # module-level statements on lines of their own (a conversion's instantiation call), each
    # with the last line of the class it follows
    added: list[tuple[Edit, int]] = field(default_factory=list)


class _Tree:
    """ast-grep's tree of a text, parsed on first use: most fixes need only the model's positions.

    tree-sitter ends no line at a lone CR (CPython does): it would misread the blocks of such a
    file. A lone CR becomes LF in the text it parses, one character for one, so every offset it
    gives holds in the text itself, where the edits are applied."""

    def __init__(self, source: str):
        self.source = source
        self._root: SgNode | None = None
        self._classes: dict[int, SgNode] | None = None
        self._calls: _CallNodes | None = None

    @property
    def root(self) -> SgNode:
        if self._root is None:
            from ast_grep_py import SgRoot

            self._root = SgRoot(_LONE_CR.sub("\n", self.source), "python").root()
        return self._root

    def class_node(self, starts: list[int], cls: ClassInfo) -> SgNode:
        if self._classes is None:  # one walk of the tree: one per class would make a file of many quadratic
            self._classes = {n.range().start.index: n for n in self.root.find_all(kind="class_definition")}
        node = self._classes.get(_offset(starts, cls.site.line, cls.site.col))
        if node is not None:
            return node
        raise LookupError(f"class {cls.name} at line {cls.site.line} not found by ast-grep")

    @property
    def calls(self) -> _CallNodes:
        if self._calls is None:
            self._calls = _CallNodes(self.root)
        return self._calls


_LONE_CR = re.compile(r"\r(?!\n)")


def fix_edits(
    source: str,
    model: FileModel,
    taxonomy: Taxonomy,
    declarations: Sequence[tuple[ClassInfo, str]] = (),
    rewrites: Sequence[Rewrite] = (),
    conversions: Sequence[Conversion] = (),
    tree: _Tree | None = None,
) -> Edits:
    """The edits of every fix (see :func:`fixed_text`). *tree*: ast-grep's tree of *source*, when
    the caller has one to share."""
    tree = tree or _Tree(source)
    edits: list[Edit] = []
    starts = _line_starts(source)
    statements = []
    exact = _LONE_CR.search(source) is None
    first_line = min([c.site.line for c, _ in declarations] + [c.cls.site.line for c in conversions] or [1])
    needs_enum = bool(declarations) or any(c.cls.declaration is None for c in conversions)
    enum_ref = taxonomy.enum_name
    imported = []
    if needs_enum:
        enum_ref, import_edit, placed = _name_reference(
            source, tree, starts, model, taxonomy.enum_module, taxonomy.enum_name, first_line
        )
        exact = exact and placed is not False
        if import_edit is not None:
            edits.append(import_edit)
            if placed is not False:
                imported.append((import_edit, placed))
    declared = []
    for cls, member in declarations:
        statement = f"{taxonomy.attribute} = {enum_ref}.{member}"
        statements.append(statement)
        edit = _declaration_edit(source, starts, cls, statement) if exact else None
        if edit is not None:
            edits.append(edit)
            declared.append((cls, edit))
        else:
            exact = False
            edits.extend(_declaration_edits(source, tree.class_node(starts, cls), statement))
    done: set[tuple[int, int]] = set()
    rewritten: list[Edit] = []
    for r in [*rewrites, *(r for c in conversions for r in c.rewrites)]:
        target = r.use.target
        if target is None or (target.line, target.col) in done:
            continue
        done.add((target.line, target.col))
        start = _offset(starts, target.line, target.col)
        edit = _insert(start, r.text, _offset(starts, target.end_line, target.end_col))
        edits.append(edit)
        rewritten.append(edit)
    added: list[tuple[Edit, int]] = []
    if conversions:
        function = taxonomy.instantiation_functions[0]
        ref, import_edit, placed = _name_reference(
            source, tree, starts, model, taxonomy.device_neutral.module, function, first_line
        )
        exact = exact and placed is not False
        if import_edit is not None:
            edits.append(import_edit)
            if placed is not False:
                imported.append((import_edit, placed))
        for c in conversions:
            made = _conversion_edits(source, tree, model, taxonomy, starts, c, enum_ref, ref, exact)
            edits += made.edits
            rewritten += made.rewritten
            declared += made.declared
            added += made.added
            exact = exact and made.exact
    merged = _merge_insertions(edits)
    _check_disjoint(merged)
    # a merged edit is none of those recorded
    exact = exact and len(merged) == len(edits) and all(_within_line(source, e) for e in rewritten)
    return Edits(merged, statements, exact, starts, declared, imported, rewritten, added)


def _within_line(source: str, e: Edit) -> bool:
    """Whether *e* replaces text within one line by text without a line break."""
    return not any(c in source[e.start_pos : e.end_pos] or c in e.inserted_text for c in "\r\n")


def fix_descriptions(plan: FilePlan, taxonomy: Taxonomy) -> dict[tuple[int, int], dict]:
    """ruff's JSON ``fix`` of each fixable finding of *plan*, by the finding's (line, col):
    ``applicability``, ``message`` and ``edits`` (each with the ``content`` to insert between
    ``location`` and ``end_location``, 1-based rows and columns in characters). Like each ruff fix,
    each stands alone: it carries the enum's import when the file lacks it. The text is parsed once
    per file, however many classes it has."""
    if plan.data is None or plan.model is None or not plan.inferences:
        return {}
    text, _ = decode_source(plan.data)
    tree = _Tree(text)
    starts = _line_starts(text)
    out = {}
    for f in plan.findings:
        inf = plan.inference_for(f)
        if inf is None or not inf.fixable:
            continue
        try:
            made = fix_edits(text, plan.model, taxonomy, [(inf.cls, inf.classification)], tree=tree)
            edits, (statement,) = made.edits, made.statements
        except Exception:  # a bug in the fixer costs the finding its fix description, not the run
            continue
        out[(f.line, f.col)] = {
            "applicability": "safe" if inf.safe else "unsafe",
            "message": f"Declare `{statement}`",
            "edits": [
                {
                    "content": e.inserted_text,
                    "location": _row_col(starts, e.start_pos),
                    "end_location": _row_col(starts, e.end_pos),
                }
                for e in edits
            ],
        }
    return out


def _row_col(starts: list[int], pos: int) -> dict:
    row = max(0, bisect.bisect_right(starts, pos) - 1)
    return {"row": row + 1, "column": pos - starts[row] + 1}


def _merge_insertions(edits: list[Edit]) -> list[Edit]:
    """Sorted edits, insertions at one position joined in the order they were made (two new import
    lines after the same statement)."""
    out: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.start_pos, e.end_pos)):
        last = out[-1] if out else None
        if last is not None and last.start_pos == last.end_pos == e.start_pos:
            out[-1] = _insert(e.start_pos, last.inserted_text + e.inserted_text, e.end_pos)
            continue
        out.append(e)
    return out


def _conversion_edits(
    source: str,
    tree: _Tree,
    model: FileModel,
    taxonomy: Taxonomy,
    starts: list[int],
    c: Conversion,
    enum_ref: str,
    function: str,
    exact: bool = False,
) -> Edits:
    """The edits that make class *c* device-generic (its rewrites are made by the caller), as
    :class:`Edits` say what each is (*exact*: try to place the declaration by the model)."""
    cls = c.cls
    made = Edits([], [], True, starts)
    edits = made.edits
    decl = cls.declaration
    if decl is not None:
        owner = decl.site.text.rpartition(".")[0]
        start = _offset(starts, decl.site.line, decl.site.col)
        end = _offset(starts, decl.site.end_line, decl.site.end_col)
        edits.append(_insert(start, f"{owner}.{c.target}", end))
        made.rewritten.append(edits[-1])
    else:
        statement = f"{taxonomy.attribute} = {enum_ref}.{c.target}"
        placed = _declaration_edit(source, starts, cls, statement) if exact else None
        if placed is not None:
            edits.append(placed)
            made.declared.append((cls, placed))
        else:
            made.exact = False
            edits.extend(_declaration_edits(source, tree.class_node(starts, cls), statement))
    param = taxonomy.device_params[0]
    for m in c.tests:
        if param in m.params:
            continue
        first = m.param_sites[0]
        edits.append(_insert(_offset(starts, first.end_line, first.end_col), f", {param}"))
        made.rewritten.append(edits[-1])
    neutral = taxonomy.device_neutral
    except_for = "(" + ", ".join(f'"{d}"' for d in neutral_except_for(taxonomy)) + ",)"
    instantiations = model.instantiations_of(cls)
    if instantiations:
        changed = _instantiation_edits(
            source, tree.calls, starts, instantiations[0].site, except_for, neutral.opt_ins
        )
        edits += changed
        made.rewritten += changed
        return made
    arguments = [cls.name, "globals()", f"except_for={except_for}", *(f"{o}=True" for o in neutral.opt_ins)]
    line_start = _offset(starts, cls.site.line, 0)
    indent = source[line_start : line_start + cls.site.col]
    newline = _default_newline(source)
    text = f"{newline}{newline}{indent}{function}({', '.join(arguments)}){newline}"
    if cls.end_line < len(starts) - 1:  # a line follows the class
        edits.append(_insert(_offset(starts, cls.end_line + 1, 0), text))
        if indent or cls.nested:
            made.exact = False
        else:
            made.added.append((edits[-1], cls.end_line))
    else:
        ends_line = source.endswith(("\n", "\r"))
        edits.append(_insert(len(source), ("" if ends_line else newline) + text))
        made.exact = False
    return made


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


def _instantiation_edits(
    source: str, calls: _CallNodes, starts: list[int], site: Site, except_for: str, opt_ins: Sequence[str]
) -> list[Edit]:
    """Turn ``only_for=<device>`` of the call at *site* into the device-neutral keywords."""
    call = calls.at(_offset(starts, site.line, site.col))
    if call is None:
        raise LookupError(f"instantiation at line {site.line} not found by ast-grep")
    args = call.field("arguments")
    assert args is not None
    keywords = {}
    for child in args.children():
        if child.kind() == "keyword_argument":
            name = child.field("name")
            if name is not None:
                keywords[name.text()] = child
    wanted = [f"except_for={except_for}", *(f"{o}=True" for o in opt_ins if o not in keywords)]
    only = keywords.get("only_for")
    if only is not None:
        r = only.range()
        return [_insert(r.start.index, ", ".join(wanted), r.end.index)]
    close = args.range().end.index - 1  # the closing parenthesis
    before = source[args.range().start.index + 1 : close].rstrip()
    sep = "" if before.endswith(",") or not before else ", "
    return [_insert(close, sep + ", ".join(wanted))]


def _insert(start: int, text: str, end: int | None = None) -> Edit:
    """An edit replacing characters [start, end) of the text (an insertion when end is None)."""
    return Edit(start, start if end is None else end, text)


def _check_disjoint(edits: Sequence[Edit]) -> None:
    # an overlap would garble the text, or (ast-grep's way) drop an edit: a silent half-fix
    for a, b in itertools.pairwise(edits):
        if b.start_pos < a.end_pos or (b.start_pos == a.start_pos and a is not b):
            raise AssertionError(f"overlapping edits at {a.start_pos} and {b.start_pos}")


def _line_starts(source: str) -> list[int]:
    """The offset of each line's first character, lines as CPython counts them.

    The model's places are CPython's (line, column); ast-grep's tree-sitter counts lines otherwise
    (a lone CR ends no line there) and its names are not NFKC-normalised as Python's are (``TestK``
    + KELVIN SIGN is the class ``TestKK``), so nodes are matched by character offset alone."""
    return list(itertools.accumulate(map(len, split_lines(source)), initial=0))


def _offset(starts: list[int], line: int, col: int) -> int:
    return starts[line - 1] + col if 0 < line <= len(starts) else -1


def _line_end(source: str, pos: int) -> tuple[int, str]:
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


def _line_start(source: str, pos: int) -> int:
    return max(source.rfind("\n", 0, pos), source.rfind("\r", 0, pos)) + 1


def _indent_unit(source: str, class_indent: str) -> str:
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


def _blank_after(source: str, pos: int) -> bool:
    """Whether the line starting at *pos* is blank (or the text ends there)."""
    end, _ = _line_end(source, pos)
    return not source[pos:end].strip()


def _declaration_edit(source: str, starts: list[int], cls: ClassInfo, statement: str) -> Edit | None:
    """The edit putting *statement* first in *cls*'s body (after its docstring) on a line of its own,
    placed by the model's positions; None where :func:`_declaration_at` says so."""
    if cls.colon is None:
        return None
    doc = cls.docstring
    placed = _declaration_at(
        source,
        statement,
        _offset(starts, cls.colon.line, cls.colon.col),
        _offset(starts, cls.body.line, cls.body.col),
        _offset(starts, doc.end_line, doc.end_col) if doc is not None else None,
    )
    return placed[0] if placed else None


def _declaration_at(
    source: str, statement: str, colon_end: int, first_start: int, doc_end: int | None, class_start: int = -1
) -> list[Edit] | None:
    """Edits putting *statement* first in a class body whose header's colon ends at *colon_end*,
    whose first statement starts at *first_start* (and ends at *doc_end* when it is the docstring).

    Without *class_start* (where the ``class`` keyword is), only a line of its own after the
    header's line or the docstring's: None when the body starts on the header's line, or a line to
    insert after holds code after the colon or the docstring, or ends in a continuation."""
    careful = class_start < 0
    header_end, newline = _line_end(source, colon_end)
    newline = newline or _default_newline(source)
    indent = source[_line_start(source, first_start) : first_start]
    if careful and (
        first_start < header_end or indent.strip() or not _comment_only(source[colon_end:header_end])
    ):
        return None
    if first_start < header_end:  # `class T(TestCase): pass`: the body shares the header line
        class_indent = source[_line_start(source, class_start) : class_start]
        indent = class_indent + _indent_unit(source, class_indent)
        if doc_end is None:
            return [_insert(colon_end, f"{newline}{indent}{statement}{newline}{indent}", first_start)]
        return [
            _insert(colon_end, f"{newline}{indent}", first_start),
            _insert(doc_end, f"{newline}{indent}{statement}"),
        ]
    anchor = header_end
    if doc_end is not None:
        anchor, newline = _line_end(source, doc_end)
        if careful and (not newline or not _comment_only(source[doc_end:anchor])):
            return None
        if not newline:  # the docstring ends the file
            return [_insert(anchor, f"{_default_newline(source)}{indent}{statement}")]
    blank = "" if _blank_after(source, anchor) else newline
    return [_insert(anchor, f"{indent}{statement}{newline}{blank}")]


def _comment_only(text: str) -> bool:
    """Whether the rest of a line is blank or a comment (no code, no continuation)."""
    text = text.strip()
    return not text or text.startswith("#")


def _declaration_edits(source: str, node: SgNode, statement: str) -> list[Edit]:
    """:func:`_declaration_at` for the class definition *node* of ast-grep's tree, any shape."""
    colon = next(c for c in node.children() if c.kind() == ":")
    body = node.field("body")
    assert body is not None
    first = next(c for c in body.children() if c.kind() != "comment")
    doc_end = first.range().end.index if _is_docstring(first) else None
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


def _is_docstring(stmt: SgNode) -> bool:
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


def _default_newline(source: str) -> str:
    _, newline = _line_end(source, 0)
    return newline or "\n"


# -- the enum's import ------------------------------------------------------------------------


def _name_reference(
    source: str,
    tree: _Tree,
    starts: list[int],
    model: FileModel,
    module: str,
    name: str,
    first_class_line: int,
) -> tuple[str, Edit | None, ImportStatement | bool | None]:
    """How to write *name* of *module*, the edit importing it (None when already imported), and
    what that edit changes when the model's positions alone placed it (see :attr:`Edits.exact`):
    the import statement it adds the name to, or None for a new line; False when ast-grep did."""
    for imp in sorted(model.imports, key=lambda i: i.nested):
        bound = imp.binding(name)
        if bound is not None:
            return bound, None, None
        if imp.module == module and imp.binding("*") is not None:
            return name, None, None
    for imp in model.imports:
        if imp.module == module and not imp.nested and imp.site.col == 0:
            edit = _add_name_edit_at(source, starts, imp, name)
            if edit is not None:
                return name, edit, imp
            node = _module_statement(tree.root, starts, imp.site.line)
            if node is not None and node.kind() == "import_from_statement":
                return name, _add_name_edit(source, node, name), False
    edit = _new_import_edit_at(source, starts, model, module, name, first_class_line)
    if edit is not None:
        return name, edit, None
    return name, _new_import_edit(source, tree.root, starts, model, module, name, first_class_line), False


def _module_statement(root: SgNode, starts: list[int], line: int) -> SgNode | None:
    """The module-level statement that starts *line* (1-based, as CPython counts lines)."""
    at = _offset(starts, line, 0)
    for node in root.children():
        if node.range().start.index == at and node.kind() != "comment":
            return node
    return None


def _add_name_edit(source: str, node: SgNode, name: str) -> Edit:
    """:func:`_name_edit` for the ``from m import ...`` statement *node* of ast-grep's tree."""
    names = [
        _Name(c.range().start.index, c.range().end.index, c.text().split(" as ")[0].strip().lower())
        for c in [c for c in node.children() if c.kind() in ("dotted_name", "aliased_import")][1:]
    ]
    parenthesized = any(c.kind() == "(" for c in node.children())
    placed = _name_edit(source, names, parenthesized, node.range().end.index, name, careful=False)
    assert placed is not None
    return placed


@dataclass(frozen=True)
class _Name:
    """A name a ``from`` import imports: where it is written, with its alias (``a as b``)."""

    start: int
    end: int
    key: str  # the imported name, lowercase: the sort key


def _import_names(source: str, starts: list[int], imp: ImportStatement) -> tuple[list[_Name], bool] | None:
    """The names of the module-level ``from m import ...`` *imp*, and whether they are in
    parentheses, read by the tokenizer from the statement's text; None when it cannot."""
    begin = _offset(starts, imp.site.line, 0)
    text = source[begin : _offset(starts, imp.site.end_line, imp.site.end_col)]
    try:
        tokens = [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type in (tokenize.NAME, tokenize.OP)
        ]
    except (tokenize.TokenError, SyntaxError):
        return None
    keyword = next(
        (i for i, t in enumerate(tokens) if t.type == tokenize.NAME and t.string == "import"), None
    )
    if keyword is None:
        return None
    rest = tokens[keyword + 1 :]
    parenthesized = bool(rest) and rest[0].string == "("
    if parenthesized:
        if rest[-1].string != ")":
            return None
        rest = rest[1:-1]

    def offset(position: tuple[int, int]) -> int:
        return _offset(starts, imp.site.line + position[0] - 1, position[1])

    names: list[_Name] = []
    i = 0
    while i < len(rest):
        first = rest[i]
        if first.type != tokenize.NAME:
            return None
        last = first
        if i + 2 < len(rest) and rest[i + 1].string == "as":
            last = rest[i + 2]
            i += 2
        names.append(_Name(offset(first.start), offset(last.end), first.string.lower()))
        i += 1
        if i < len(rest):
            if rest[i].string != ",":
                return None
            i += 1
    return (names, parenthesized) if names else None


def _add_name_edit_at(source: str, starts: list[int], imp: ImportStatement, name: str) -> Edit | None:
    """:func:`_name_edit` with the names read by the tokenizer (None when they cannot be)."""
    found = _import_names(source, starts, imp)
    if found is None:
        return None
    end = _offset(starts, imp.site.end_line, imp.site.end_col)
    return _name_edit(source, found[0], found[1], end, name, careful=True)


def _name_edit(
    source: str, names: list[_Name], parenthesized: bool, statement_end: int, name: str, careful: bool
) -> Edit | None:
    """Add *name* to a ``from m import ...`` statement (its *names*, ending at *statement_end*) in
    case-insensitive sorted position, keeping its style. *careful*: None rather than a line after
    a trailing comma that shares its line with the closing parenthesis."""

    def starts_line(start: int) -> bool:
        return parenthesized and not source[_line_start(source, start) : start].strip()

    after = next((n for n in names if n.key > name.lower()), None)
    if after is not None:
        if starts_line(after.start):
            _, newline = _line_end(source, after.start)
            indent = source[_line_start(source, after.start) : after.start]
            return _insert(after.start, f"{name},{newline or _default_newline(source)}{indent}")
        return _insert(after.start, f"{name}, ")
    last = names[-1]
    if not starts_line(last.start):
        return _insert(last.end, f", {name}")
    indent = source[_line_start(source, last.start) : last.start]
    next_line, newline = _line_end(source, last.end)
    if source[last.end : statement_end].lstrip().startswith(","):
        if careful and (not newline or not _comment_only(source[last.end : next_line].lstrip()[1:])):
            return None  # `name,)`: the line holds the parenthesis too
        return _insert(next_line, f"{indent}{name},{newline}")
    return _insert(last.end, f",{newline}{indent}{name}")


def _new_import_edit_at(
    source: str, starts: list[int], model: FileModel, module: str, name: str, first_class_line: int
) -> Edit | None:
    """:func:`_new_import_edit` after the last module-level import above the first class fixed, on
    a line of its own; None when there is none, or code or a continuation follows it on its line."""
    before = [i for i in model.imports if not i.nested and i.site.col == 0 and i.site.line < first_class_line]
    if not before:
        return None
    last = max(before, key=lambda i: i.site.end_line)
    end = _offset(starts, last.site.end_line, last.site.end_col)
    pos, newline = _line_end(source, end)
    if not newline or not _comment_only(source[end:pos]):
        return None
    return _insert(pos, f"from {module} import {name}{newline}")


def _new_import_edit(
    source: str,
    root: SgNode,
    starts: list[int],
    model: FileModel,
    module: str,
    name: str,
    first_class_line: int,
) -> Edit:
    line = f"from {module} import {name}"
    before = [i for i in model.imports if not i.nested and i.site.col == 0 and i.site.line < first_class_line]
    if before:
        last = max(before, key=lambda i: i.site.end_line)
        node = _module_statement(root, starts, last.site.line)  # any kind: `from __future__` has its own
        if node is not None:
            pos, newline = _line_end(source, node.range().end.index)
            if not newline:
                return _insert(pos, f"{_default_newline(source)}{line}")
            return _insert(pos, f"{line}{newline}")
    # No import before the class: go before the first statement that is not the module docstring.
    statements = [c for c in root.children() if c.kind() != "comment"]
    if statements and _is_docstring(statements[0]):
        pos, newline = _line_end(source, statements[0].range().end.index)
        if not newline:  # the docstring ends the file
            newline = _default_newline(source)
            return _insert(pos, f"{newline}{line}{newline}")
        return _insert(pos, f"{line}{newline}")
    target = statements[0] if statements else None
    pos = _line_start(source, target.range().start.index) if target is not None else len(source)
    return _insert(pos, f"{line}{_default_newline(source)}")


# ---------------------------------------------------------------------------------------------
# Planning: which findings get which fix


def plan_file(
    path: str, taxonomy: Taxonomy, selection: Selection | None = None, resolver: Resolver | None = None
) -> FilePlan:
    """Check one file on disk and infer a classification for each class HWC001 flags.

    *resolver*: the project's (:attr:`hwlint.checker.ProjectCheck.linked`) for a file whose
    findings depend on other scanned files, so that a fix declares what the project-aware check
    asks for; None checks the file alone."""
    selection = selection or Selection()
    data = read_source(path)
    if isinstance(data, str):
        from ..checker import check_file

        return FilePlan(path, None, None, check_file(path, taxonomy, selection).findings)
    return plan_source(data, path, taxonomy, selection, resolver)


def plan_source(
    data: bytes,
    path: str,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    resolver: Resolver | None = None,
) -> FilePlan:
    """Like :func:`plan_file`, for contents already read. The plan's model keeps *resolver*: the
    fixed text is planned again with it."""
    model, parsed = parse_file(data, path, taxonomy, keep=True)
    if resolver is not None:
        model = replace(model, resolver=resolver)
    plan = plan_model(data, model, taxonomy, selection)
    plan.parsed = parsed
    return plan


def plan_model(
    data: bytes,
    model: FileModel,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    context: Context | None = None,
    findings: Sequence[Finding] | None = None,
) -> FilePlan:
    """The plan of a file whose contents *data* were modelled as *model*.

    The findings are a check's (every code, noqa applied) reduced to *selection*, so what a plan
    reports is what ``hwlint check`` reports. Pass the check's *findings* and the *context* its
    rules filled (:func:`hwlint.checker.check_in_context`) to plan from them: the rules do not run
    again and the inference they computed (HWC004's) is reused."""
    selection = selection or Selection()
    ctx = context or Context(model, taxonomy)
    if findings is None:
        findings = run_rules(model, taxonomy, context=ctx)
    plan = FilePlan(
        path=model.path,
        data=data,
        model=model,
        findings=[f for f in findings if selection.enabled(f.code)],
        parsed=context.parsed if context is not None else None,
    )
    if model.error is not None:
        return plan
    by_site = {(c.site.line, c.site.col): c for c in model.classes}
    _plan_device_fixes(ctx, plan, by_site)
    for f in plan.findings:
        cls = by_site.get((f.line, f.col)) if f.code in DECLARATION_CODES else None
        if cls is None:
            continue
        try:
            found = inference(ctx, cls) if f.code == FIXED_CODE else collected_inference(ctx, cls)
            if found is not None:
                plan.inferences[(f.line, f.col)] = found
        except Exception:  # a bug in the inference costs the class its fix, not the run (HWC004 reports it)
            continue
    return plan


def _plan_device_fixes(ctx: Context, plan: FilePlan, by_site: dict[tuple[int, int], ClassInfo]) -> None:
    """The fixes of the file's HWC301 and HWC302 findings."""
    codes = {f.code for f in plan.findings}
    if "HWC301" in codes:
        rewrites = {}
        for cls in ctx.model.test_classes:
            for h in hard_uses(ctx, cls):
                if h.rewrite is not None:
                    rewrites.setdefault((h.use.site.line, h.use.site.col), RewriteFix(cls, h.rewrite))
        for f in plan.findings:
            if f.code == "HWC301" and (f.line, f.col) in rewrites:
                plan.fixes[(f.line, f.col, f.code)] = rewrites[(f.line, f.col)]
    for f in plan.findings:
        cls = by_site.get((f.line, f.col)) if f.code == "HWC302" else None
        found = conversion(ctx, cls) if cls is not None else None
        if found is not None and found.convertible:
            plan.fixes[(f.line, f.col, f.code)] = ConversionFix(cls, found)  # type: ignore[arg-type]


@dataclass
class FixResult:
    """The outcome of fixing one file."""

    plan: FilePlan
    text: str | None = None  # the decoded original text (None: not decodable / not read)
    fixed_text: str | None = None  # the text with the fixes applied (None: nothing to change)
    # (a --fix run drops both texts once the file is written: only a diff shows them)
    after: FilePlan | None = None  # the fixed file, checked and planned again
    fixed: list[Finding] = field(default_factory=list)  # findings the fixes remove
    applied: list[Inference] = field(default_factory=list)
    error: str | None = None  # why the fixed text was not written
    written: bool = False  # the fixed text was written to the file
    edited: bool = False  # the fixed text differs, though the texts were dropped (see _check_and_fix)

    @property
    def changed(self) -> bool:
        # a written result may have dropped its texts (see _fix_and_write)
        return self.written or self.edited or (self.fixed_text is not None and self.fixed_text != self.text)


#: A fix may enable another (a class declared ACCELERATOR by HWC001's fix then has HWC301 findings);
#: as ruff does, fixes are applied again on the fixed text until nothing changes, this many times at most.
MAX_FIX_PASSES = 5


def fix_plan(
    plan: FilePlan,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    unsafe: bool = False,
) -> FixResult:
    """Compute the fixed text of a planned file (nothing is written), fixing until nothing changes.

    Each fixed text is modelled, checked and planned again (through the project, when the plan's
    model resolves through one): what ``after`` reports is what a fresh check of the fixed text
    reports."""
    result = _fix_once(plan, taxonomy, selection, unsafe)
    for _ in range(MAX_FIX_PASSES - 1):
        if not result.changed or result.after is None or result.error:
            break
        again = _fix_once(result.after, taxonomy, selection, unsafe)
        if not again.changed or again.error:
            break
        result.fixed_text, result.after = again.fixed_text, again.after
        result.applied += again.applied
        result.fixed += again.fixed
    return result


def _fix_once(
    plan: FilePlan,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    unsafe: bool = False,
) -> FixResult:
    result = FixResult(plan)
    if plan.data is None or plan.model is None or plan.model.error is not None:
        return result
    chosen = [(f, inf) for f in plan.findings if (inf := plan.fix_for(f, unsafe)) is not None]
    if not chosen:
        return result
    text, _ = decode_source(plan.data)
    result.text = text
    conversions = [fx for _, fx in chosen if isinstance(fx, ConversionFix)]
    converted = {id(fx.cls) for fx in conversions}
    # a converted class gets its declaration from the conversion: its HWC001 is fixed by it
    chosen += [
        (f, fx)
        for f in plan.findings
        if f.code in DECLARATION_CODES
        and (fx := plan.inference_for(f)) is not None
        and id(fx.cls) in converted
        and all(f is not g for g, _ in chosen)
    ]
    wanted = [
        (fx.cls, fx.classification)
        for _, fx in chosen
        if isinstance(fx, Inference) and id(fx.cls) not in converted
    ]
    rewrites = [fx.rewrite for _, fx in chosen if isinstance(fx, RewriteFix)]
    try:
        made = fix_edits(
            text,
            plan.model,
            taxonomy,
            wanted,  # type: ignore[arg-type]
            rewrites,
            [fx.conversion for fx in conversions],
        )
        new_text = apply_edits(text, made.edits)
        derived = _model_after(plan, text, new_text, made) if made.exact and new_text != text else None
    except Exception as e:  # a bug in the fixer must leave the file alone, not stop the run
        result.error = f"internal error while fixing ({type(e).__name__}: {e}); left unchanged"
        return result
    if new_text == text:  # the edits change nothing: no text to model again, nothing to write
        return result
    data = new_text.encode(plan.model.encoding)
    # unless it follows from the original's parse, parse the fixed text: the edits may have broken it
    model = derived[0] if derived is not None else build_model(data, plan.path, taxonomy)
    if plan.model.resolver is not None:  # the fixed text is seen through the project as the original was
        model = replace(model, resolver=plan.model.resolver)
    after = plan_model(data, model, taxonomy, selection)
    after.derived = derived[1] if derived is not None else None
    # The edits add a module-level import and class-body assignments: once the text parses, the only
    # error a compiler could still find is a `from __future__` import that is no longer first.
    if model.error is not None:
        broken = model.error.message
    else:
        broken = _compile_error(new_text, plan.path) if _future_displaced(plan.model, model) else None
    if broken is not None and _compile_error(text, plan.path) is None:
        # A fix must never break a file: refuse rather than write it.
        result.error = f"the fixed file would not compile ({broken}); left unchanged"
        return result
    result.fixed_text, result.after = new_text, after
    result.applied = [inf for _, inf in chosen]
    result.fixed = [f for f, _ in chosen]
    return result


@dataclass
class _Derivation:
    """How a fixed text follows from the parse of the original (:meth:`hwlint.model.Parsed.
    with_lines`): kept on the fixed text's plan, so that the next pass (the rewrites a declaration
    enables) is modelled from the same parse."""

    parsed: Parsed
    insertions: list[tuple[int, int]]  # (A, n): n lines after line A of the original
    declared: dict[tuple[int, int], int]
    imports: list[tuple[int, int]]
    replaced: list[int]
    rewrites: list[Edit]  # within lines, at offsets of the original
    starts: list[int]  # where the original's lines start
    added: list[tuple[int, int, str]] = field(default_factory=list)  # see Parsed.with_lines

    @functools.cached_property
    def line_of(self) -> Callable[[int], int]:
        """Where each line of the original is in the fixed text."""
        return line_map(self.insertions)

    def original_line(self, line: int) -> int | None:
        """The line of the original that is line *line* of the fixed text (None: an inserted one)."""
        low, high = 1, line
        while low < high:  # the last original line at or above *line*: line_of is increasing
            mid = (low + high + 1) // 2
            if self.line_of(mid) <= line:
                low = mid
            else:
                high = mid - 1
        return low if self.line_of(low) == line else None

    def model(self, text: str) -> FileModel | None:
        parsed = self.parsed
        middle = rewritten = None
        if self.rewrites:
            middle = apply_edits(parsed.source, self.rewrites)
            rewritten = sorted({bisect.bisect_right(self.starts, e.start_pos) for e in self.rewrites})
        return parsed.with_lines(
            text,
            self.insertions,
            self.declared,
            self.imports,
            self.replaced,
            middle,
            rewritten or (),
            self.added,
        )


def _model_after(
    plan: FilePlan, text: str, new_text: str, made: Edits
) -> tuple[FileModel, _Derivation] | None:
    """The model of *new_text*, *text* with the exact edits *made*, from the parse of the original
    (see :meth:`hwlint.model.Parsed.with_lines`), and how it follows; None when the plan kept no
    parse, or the edits move more than whole lines (a line added inside an import that holds a
    ``noqa`` comment, a name added to an import followed by code on its last line), or a later pass
    adds more than rewrites."""
    try:
        derivation = _derivation(plan, text, new_text, made)
        model = derivation.model(new_text) if derivation is not None else None
    except Exception:  # a bug here costs a parse of the fixed text, never the fix
        return None
    return (model, derivation) if model is not None and derivation is not None else None


def _derivation(plan: FilePlan, text: str, new_text: str, made: Edits) -> _Derivation | None:
    if plan.model is None:
        return None
    if plan.derived is not None:  # a later pass: *text* is itself derived
        return _next_derivation(plan.derived, text, made)
    if plan.parsed is None:
        return None
    model = plan.model
    starts, new_starts = made.starts, _line_starts(new_text)
    insertions: list[tuple[int, int]] = []  # (A, n): n lines after line A of *text*
    at = [e.start_pos for e in made.edits]  # sorted: the edits are
    shifts = list(
        itertools.accumulate((len(e.inserted_text) - e.end_pos + e.start_pos for e in made.edits), initial=0)
    )

    def new_line(offset: int, inclusive: bool = False) -> int:
        """The line of *text*'s *offset* in *new_text*: after the edits before it (*inclusive*: and
        those that start there), before the others."""
        k = bisect.bisect_right(at, offset) if inclusive else bisect.bisect_left(at, offset)
        return bisect.bisect_right(new_starts, offset + shifts[k])

    declared = {}
    for cls, e in made.declared:
        line = bisect.bisect_right(starts, e.start_pos)  # the edit is at the start of this line
        insertions.append((line - 1, len(split_lines(e.inserted_text))))
        declared[(cls.site.line, cls.site.col)] = new_line(e.start_pos)
    replaced: list[int] = []
    imports = []
    for e, imp in made.imported:
        if imp is None:
            insertions.append((bisect.bisect_right(starts, e.start_pos) - 1, 1))
            imports.append((new_line(e.start_pos), new_line(e.start_pos)))
            continue
        end = _offset(starts, imp.site.end_line, imp.site.end_col)
        breaks = len(split_lines(e.inserted_text + "x")) - 1  # line breaks the edit adds
        noqa = any(imp.site.line <= n <= imp.site.end_line for n, _ in model.noqa)
        if not _comment_only(text[end : _line_end(text, end)[0]]) or (noqa and breaks):
            return None
        if breaks:
            insertions.append((imp.site.end_line, breaks))
        replaced.append(imp.site.line)
        imports.append((new_line(_offset(starts, imp.site.line, 0)), new_line(end, inclusive=True)))
    added = []
    for e, a in made.added:  # blank lines, then the statement
        lines = split_lines(e.inserted_text)
        blank = next(i for i, ln in enumerate(lines) if ln.strip())
        insertions.append((a, len(lines)))
        added.append((a, new_line(e.start_pos) + blank, "".join(lines[blank:])))
    rewrites = sorted(made.rewritten, key=lambda e: e.start_pos)
    return _Derivation(plan.parsed, sorted(insertions), declared, imports, replaced, rewrites, starts, added)


def _next_derivation(before: _Derivation, text: str, made: Edits) -> _Derivation | None:
    """*before* followed by the rewrites of a later pass over its fixed *text*, their offsets moved
    to the original's; None when that pass makes more than rewrites."""
    if made.declared or made.imported or made.added or len(made.rewritten) != len(made.edits):
        return None
    starts, original = made.starts, before.starts
    # a line the first pass edited within holds other columns now
    edited = {bisect.bisect_right(original, e.start_pos) for e in before.rewrites}
    moved = []
    for e in made.rewritten:
        line = bisect.bisect_right(starts, e.start_pos)
        at = before.original_line(line)
        if at is None or at in edited:
            return None
        shift = original[at - 1] - starts[line - 1]
        moved.append(Edit(e.start_pos + shift, e.end_pos + shift, e.inserted_text))
    rewrites = sorted([*before.rewrites, *moved], key=lambda e: e.start_pos)
    _check_disjoint(rewrites)
    return replace(before, rewrites=rewrites)


def _future_displaced(before: FileModel, after: FileModel) -> bool:
    """Whether an import the fix added or changed may come before a ``from __future__`` import of
    the fixed file, which then fails to compile. (Every other statement a fix adds is in a class
    body or after a class, which a compiling file has after its ``__future__`` imports.)"""
    futures = [i.site.end_line for i in after.imports if i.module == "__future__"]
    if not futures:
        return False
    unchanged = Counter((i.module, i.names) for i in before.imports)
    for i in after.imports:
        if unchanged[i.module, i.names] > 0:
            unchanged[i.module, i.names] -= 1
        elif i.site.line <= max(futures):
            return True
    return False


def _compile_error(text: str, path: str) -> str | None:
    """Why *text* does not compile, if it does not. Compiling catches what parsing lets through,
    such as a ``from __future__`` import that is no longer first."""
    try:
        with warnings.catch_warnings():  # the file's own warnings (invalid escapes...) are not ours
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        return f"{type(e).__name__}: {getattr(e, 'msg', e)}"
    except RecursionError:
        return None  # too deep to compile here; the parse above already passed
    return None


STALE_TEMP_SECONDS = 60
_CONFLICT = "the file changed on disk while hwlint was fixing it; left unchanged"


def write_fixed(result: FixResult, roots: Sequence[str] = ()) -> bool:
    """Write the fixed file (see :func:`write_if_unchanged`). False (and ``result.error``) when it
    cannot be done safely; the file is then left as it is."""
    assert result.after is not None and result.plan.data is not None
    result.error = write_if_unchanged(result.plan.path, result.plan.data, result.after.data, roots)  # type: ignore[arg-type]
    return result.error is None


def write_if_unchanged(path: str, original: bytes, new: bytes, roots: Sequence[str] = ()) -> str | None:
    """Replace *path*'s contents *original* with *new*; the reason when it did not.

    * The new text goes to a temporary file in the file's directory; the file's content and stat
      are compared again just before ``os.replace``: an edit made meanwhile is a conflict, never
      overwritten (the window left is the few microseconds between that check and the rename).
    * The temporary file gets the file's mode, owner and group; when they cannot be kept, the file
      is left alone.
    * A file with several hard links is rewritten in place (after the same check), so that every
      link sees the fix.
    * A symlink is followed only to a file inside *roots* (the checked paths; default: the current
      directory): a link out of the tree is not written through.
    * Temporary files (``.hwlint-*.tmp``) older than a minute, left by a killed run, are removed.
    """
    link = path
    path = os.path.realpath(link)  # replace the target of a symlink, not the link
    directory = os.path.dirname(path) or "."
    _remove_stale_temps(directory)
    if os.path.islink(link) and not _inside(path, roots or (os.getcwd(),)):
        return "a symlink to a file outside the checked tree; left unchanged"
    try:
        before = os.stat(path)
        if _read(path) != original:
            return _CONFLICT
        mode = stat.S_IMODE(before.st_mode)
        if not mode & 0o222:
            # os.replace would succeed (it needs only the directory), and root may write anything:
            # the mode is the owner's word that the file is not to be changed.
            return "the file is read-only; left unchanged"
        if before.st_nlink > 1:
            return _rewrite_in_place(path, before, original, new)
        fd, tmp = tempfile.mkstemp(prefix=".hwlint-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(new)  # the file's own encoding
                out.flush()
                os.fchmod(out.fileno(), mode)
                if (before.st_uid, before.st_gid) != (os.getuid(), os.getgid()):
                    os.fchown(out.fileno(), before.st_uid, before.st_gid)
            if _changed_since(path, before, original):
                os.unlink(tmp)
                return _CONFLICT
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except PermissionError as e:
        return f"cannot write the fixed file with its owner and mode kept: {e.strerror or e}"
    except OSError as e:
        return f"cannot write the fixed file: {e.strerror or e}"
    return None


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _changed_since(path: str, before: os.stat_result, data: bytes | None) -> bool:
    """True when *path* is no longer the file that was read (stat or content differ). This is the
    last look before the rename; tests hook it to land an edit in between."""
    now = os.stat(path)
    same = (now.st_ino, now.st_dev, now.st_size, now.st_mtime_ns, now.st_ctime_ns) == (
        before.st_ino,
        before.st_dev,
        before.st_size,
        before.st_mtime_ns,
        before.st_ctime_ns,
    )
    return not same or _read(path) != data


def _rewrite_in_place(path: str, before: os.stat_result, original: bytes, new: bytes) -> str | None:
    """Write *new* into the file itself, keeping its inode and so every hard link to it."""
    with open(path, "r+b") as f:
        if _changed_since(path, before, original):
            return _CONFLICT
        f.write(new)
        f.truncate()
    return None


def _inside(path: str, roots: Sequence[str]) -> bool:
    """Whether *path* (resolved) lies under one of *roots*: a checked directory, or the directory a
    checked file is named in (the file itself may be the link)."""
    for root in roots:
        base = os.path.realpath(root if os.path.isdir(root) else os.path.dirname(root) or ".")
        if path.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def _remove_stale_temps(directory: str) -> None:
    """Remove the temporary files a killed ``--fix`` left in *directory* (a live one is younger)."""
    import glob
    import time

    limit = time.time() - STALE_TEMP_SECONDS
    for tmp in glob.glob(os.path.join(glob.escape(directory), ".hwlint-*.tmp")):
        try:
            st = os.lstat(tmp)
            if stat.S_ISREG(st.st_mode) and st.st_mtime < limit:
                os.unlink(tmp)
        except OSError:
            continue


def unified_diff(result: FixResult) -> str:
    """The change a fix would make, as a unified diff (ruff's ``--diff``)."""
    if not result.changed:
        return ""
    assert result.text is not None and result.fixed_text is not None
    path = result.plan.path
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


# ---------------------------------------------------------------------------------------------
# A whole check run with fixes (what `hwlint check --fix | --unsafe-fixes | --diff` does)


def describe_fixes(
    findings: Sequence[Finding],
    taxonomy: Taxonomy,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    resolvers: Mapping[str, Resolver] | None = None,
) -> Callable[[Finding], dict | None]:
    """Finding -> its ruff-style ``fix`` object (None when hwlint has no fix for it).

    Only the files with a fixable finding are planned again: in parallel, and cached by content
    like the findings themselves, so a warm ``--output-format json`` run stays a warm run. A file
    in *resolvers* depends on other files: it is planned with the project's resolver, uncached.
    """
    resolvers = resolvers or {}
    paths = sorted({f.path for f in findings if f.code == FIXED_CODE and f.fix})
    linked = [p for p in paths if p in resolvers]
    paths = [p for p in paths if p not in resolvers]
    per_file = analyze_files(
        paths,
        taxonomy,
        _describe_analysis,
        "fix-descriptions",
        jobs,
        cache,
        max_bytes,
        list[tuple[int, int, dict]],
    )
    for path in linked:
        data = read_source(path, max_bytes)
        per_file.append(
            [] if isinstance(data, str) else _describe_plan(data, path, taxonomy, resolvers[path])
        )
        paths.append(path)
    table = {
        (path, line, col): desc
        for path, rows in zip(paths, per_file, strict=True)
        for line, col, desc in rows
    }
    return lambda f: table.get((f.path, f.line, f.col)) if f.code == FIXED_CODE else None


def _describe_analysis(path: str, data: bytes | str, taxonomy: Taxonomy) -> list[tuple[int, int, dict]]:
    return [] if isinstance(data, str) else _describe_plan(data, path, taxonomy)


def _describe_plan(
    data: bytes, path: str, taxonomy: Taxonomy, resolver: Resolver | None = None
) -> list[tuple[int, int, dict]]:
    plan = plan_source(data, path, taxonomy, resolver=resolver)
    return [(line, col, desc) for (line, col), desc in fix_descriptions(plan, taxonomy).items()]


def check_and_fix_paths(
    files: Sequence[str],
    taxonomy: Taxonomy,
    selection_for: Callable[[str], Selection],
    options: FixOptions,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Callable[[int], None] | None = None,
    fixable: Callable[[str], bool] | None = None,
    roots: Sequence[str] = (),
) -> tuple[ProjectCheck, dict[str, tuple[FilePlan, FixResult | None]]]:
    """A check of *files* that plans (and with ``fix`` or ``diff``, fixes) them in the same pass:
    the project check, as :func:`hwlint.checker.check_project` gives it, and the outcome of each
    file planned, for :func:`apply_fixes`.

    Each file is read once, on the *jobs* processes: the bytes read are checked, and when a
    selected finding has a fix (and *fixable(path)*, default all: a baselined file is not), the plan
    reuses the check's model and context, and the fix is computed from those same bytes;
    :func:`apply_fixes` writes it, once every plan is made (a plan that sees another file through
    the project must see it as it was checked). A file whose findings turn out to depend on other
    files (:attr:`~hwlint.checker.ProjectCheck.linked`) is left to :func:`apply_fixes`, which plans
    it again with the project's resolver, and so is a file whose bases or instantiated classes may
    come from another scanned module (the pass does not plan it). A cached check stands for a file with
    nothing to plan; the others are read again.
    """
    from ..checker import CHECK_KIND, CHECK_VALUE, link_checked
    from ..project import Project

    selections = {path: selection_for(path) for path in files if fixable is None or fixable(path)}
    task = functools.partial(_check_and_fix, selections, options, Project([], paths=files))

    def nothing_to_plan(path: str, hit: tuple[list[Finding], Links | None]) -> bool:
        return _to_plan(hit[0], selections.get(path)) is None

    values = analyze_files(
        files,
        taxonomy,
        task,
        CHECK_KIND,
        jobs,
        cache,
        max_bytes,
        CHECK_VALUE,
        progress,
        reuse=nothing_to_plan,
        cached=_Checked.value,
    )
    per_file, outcomes = [], {}
    for path, value in zip(files, values, strict=True):
        if isinstance(value, _Checked):
            if value.outcome is not None:
                outcomes[path] = value.outcome
            value = value.value()
        per_file.append(value)
    checked = link_checked(files, per_file, taxonomy, jobs, cache, max_bytes, roots)
    linked = set(checked.linked)
    return checked, {path: outcome for path, outcome in outcomes.items() if path not in linked}


@dataclass(frozen=True)
class _Checked:
    """What a check with fixes found in one file: every finding, its links (the check's cached
    value), and the plan and fix if planned."""

    findings: list[Finding]
    links: Links | None = None
    outcome: tuple[FilePlan, FixResult | None] | None = None

    def value(self) -> tuple[list[Finding], Links | None]:
        return self.findings, self.links


def _to_plan(findings: Sequence[Finding], selection: Selection | None) -> Selection | None:
    """*selection*, when a finding it enables has a fix (or an explanation) to plan; else None."""
    if selection is None or not any(f.code in FIXED_CODES and selection.enabled(f.code) for f in findings):
        return None
    return selection


def _check_and_fix(
    selections: dict[str, Selection],
    options: FixOptions,
    project,
    path: str,
    data: bytes | str,
    taxonomy: Taxonomy,
) -> _Checked:
    """The engine's per-file work for :func:`check_and_fix_paths`: check, plan and fix from one
    model of the bytes read (the main process writes)."""
    from ..checker import check_in_context, unreadable
    from ..project import links_of

    if isinstance(data, str):
        return _Checked(unreadable(path, data))
    findings, ctx = check_in_context(data, path, taxonomy, keep=True)
    links = links_of(ctx.model) if ctx is not None and ctx.model.error is None else None
    selection = _to_plan(findings, selections.get(path))
    if selection is None or ctx is None:
        return _Checked(findings, links)
    if links is not None and project.providers(links):
        return _Checked(findings, links)  # planned after the check, with what other modules define
    plan = plan_model(data, ctx.model, taxonomy, selection, ctx, findings)
    result = fix_plan(plan, taxonomy, selection, options.unsafe) if options.fix or options.diff else None
    # what goes back to the main process: the bytes to write, and the texts for a diff only
    for p in (plan, result.after if result is not None else None):
        if p is not None:
            p.model = p.parsed = p.derived = None
    if result is not None and not options.diff:
        result.edited = result.changed
        result.text = result.fixed_text = None
    _reported(plan, result)
    return _Checked(findings, links, (plan, result))


def _reported(plan: FilePlan, result: FixResult | None) -> None:
    """Reduce the classes the inferences of *plan* and *result* name to what the main process
    reports of them (name and place): their methods and device uses, most of what a worker would
    pickle back, stay in the worker."""
    slim: dict[int, Inference] = {}

    def named(inf: Inference) -> Inference:
        if id(inf) not in slim:
            cls = replace(
                inf.cls, methods=(), device_uses=(), shared_uses=(), test_uses=(), availability_checks=()
            )
            slim[id(inf)] = replace(inf, cls=cls)
        return slim[id(inf)]

    for p in (plan, result.after if result is not None else None):
        if p is not None:
            p.inferences = {k: named(v) for k, v in p.inferences.items()}
    if result is not None:
        result.applied = [named(inf) for inf in result.applied]


def _forks() -> bool:
    import multiprocessing  # imported here: a check that fixes nothing never pays for it

    return "fork" in multiprocessing.get_all_start_methods()


def apply_fixes(
    found: Sequence[tuple[str, list[Finding]]],
    taxonomy: Taxonomy,
    selection_for: Callable[[str], Selection],
    options: FixOptions,
    jobs: int | None = None,
    progress: bool = False,
    planned: dict[str, tuple[FilePlan, FixResult | None]] | None = None,
    resolvers: Mapping[str, Resolver] | None = None,
) -> CheckRun:
    """Plan the fixes of the checked files that have an HWC001 finding: with ``fix`` or ``diff``,
    compute them, and with ``fix``, write them. Files without one pass through unchanged.

    *found* holds each file with its selected findings, however they were computed (serially,
    in parallel, from a cache). *planned* holds the files already planned in the check's pass
    (:func:`check_and_fix_paths`); the others with something to fix (or explain) are read again,
    and planned and fixed on *jobs* processes (as the check ran), with a bar when *progress*. A file
    in *resolvers* (path -> the project's resolver: its findings depend on other scanned files) is
    planned with it: on the processes, where they fork (and inherit the resolvers), else in this
    one (a resolver holds the project's models, too many to pickle).
    """
    from ..pipeline.progress import Bar

    if not (options.fix or options.diff or options.show or planned):
        return CheckRun.unplanned(options, found)
    run = CheckRun(options)
    passed = dict(planned or {})  # computed in the check's pass, not written yet
    planned = dict(passed)
    planning = options.fix or options.diff or options.show
    todo = [
        path
        for path, findings in found
        if planning and path not in planned and any(f.code in FIXED_CODES for f in findings)
    ]
    selections = {path: selection_for(path) for path in todo}
    resolvers = resolvers or {}
    # forked processes inherit the resolvers; anywhere else they would be pickled: plan those here
    shared = resolvers if resolvers and _forks() else {}
    linked = [path for path in todo if path in resolvers and path not in shared]
    todo = [path for path in todo if path not in resolvers or path in shared]
    analysis = functools.partial(_plan_and_fix_linked, selections, options, shared)
    bar = Bar(len(todo) + len(linked), "fixing", progress)
    try:
        values = analyze_files(todo, taxonomy, analysis, "fix", jobs, progress=bar)
        for path in linked:
            data = read_source(path)
            values.append(_plan_and_fix(selections, options, path, data, taxonomy, resolvers[path]))
            todo.append(path)
            bar(1)
    finally:
        bar.close()
    planned.update(zip(todo, values, strict=True))
    for path, (plan, result) in passed.items():
        planned[path] = (plan, _write(result, options))
    for path, findings in found:
        if path not in planned:
            run.plans.append(FilePlan(path, None, None, list(findings)))
            continue
        plan, result = planned[path]
        if result is None:
            run.plans.append(plan)
            continue
        run.results.append(result)
        if result.error:
            run.warnings.append(f"{path}: {result.error}")
            # what could not be fixed is not offered as fixable ([*], "N fixable") either
            plan.findings = [replace(f, fix=None) if f.code == FIXED_CODE else f for f in plan.findings]
        if result.written:
            run.fixed += len(result.fixed)
            run.files_fixed += 1
        run.plans.append(result.after if result.written and result.after is not None else plan)
    return run


def _plan_and_fix_linked(
    selections: dict[str, Selection],
    options: FixOptions,
    resolvers: Mapping[str, Resolver],
    path: str,
    data: bytes | str,
    taxonomy: Taxonomy,
) -> tuple[FilePlan, FixResult | None]:
    """:func:`_plan_and_fix`, with the project's resolver of a file whose findings depend on others."""
    plan, result = _plan_and_fix(selections, options, path, data, taxonomy, resolvers.get(path))
    if path in resolvers:
        plan.model = None  # it would carry the resolver, and the project's models, back
    return plan, result


def _plan_and_fix(
    selections: dict[str, Selection],
    options: FixOptions,
    path: str,
    data: bytes | str,
    taxonomy: Taxonomy,
    resolver: Resolver | None = None,
) -> tuple[FilePlan, FixResult | None]:
    """The engine's per-file work for :func:`apply_fixes`: the plan of the bytes read, and the fix
    it allows (with ``fix`` or ``diff``), written with ``fix``."""
    selection = selections[path]
    if isinstance(data, str):
        from ..checker import unreadable

        return FilePlan(
            path, None, None, [f for f in unreadable(path, data) if selection.enabled(f.code)]
        ), None
    plan = plan_source(data, path, taxonomy, selection, resolver)
    return _fix_and_write(plan, taxonomy, selection, options)


def _fix_and_write(
    plan: FilePlan,
    taxonomy: Taxonomy,
    selection: Selection,
    options: FixOptions,
) -> tuple[FilePlan, FixResult | None]:
    """The fix *plan* allows (with ``fix`` or ``diff``), written with ``fix``: what is written
    is what was planned from, unless the file changed since (:func:`write_if_unchanged`). What
    goes back to the main process is what it reports: no model, no bytes, and the texts only for
    a diff."""
    result = None
    if options.fix or options.diff:
        result = fix_plan(plan, taxonomy, selection, options.unsafe)
    plan.parsed = plan.derived = None  # the tree stays in this process
    return plan, _write(result, options)


def _write(result: FixResult | None, options: FixOptions) -> FixResult | None:
    """*result* written with ``fix`` (unless the file changed since it was read:
    :func:`write_if_unchanged`), then reduced to what is reported: no model, no bytes, and the
    texts only for a diff."""
    if result is None:
        return None
    if options.fix and not options.diff and result.changed and not result.written:
        result.written = write_fixed(result, options.roots)
    for p in (result.plan, result.after):
        if p is not None:
            p.data = p.model = p.parsed = p.derived = None
    if not options.diff:
        result.text = result.fixed_text = None
    return result


def write_diff(run: CheckRun, out, err) -> int:
    """``--diff``, as ruff does it: the diff on *out*, the count on *err*. Returns that count."""
    out.write(run.diff())
    for r in run.results:  # the reason for every declaration the diff adds, for the reviewer
        if r.changed:
            for f, inf in zip(r.fixed, r.applied, strict=True):
                err.write(f"{r.plan.path}:{f.line}: {inf.cls.name}: {inf.describe()}\n")
    n = run.would_fix
    err.write(f"Would fix {n} error{'s' if n != 1 else ''}.\n" if n else "No errors would be fixed.\n")
    return n


def write_fix_report(run: CheckRun, out) -> None:
    """``--show-fixes``: the fixes applied (ruff's enumeration), then what hwlint inferred per class."""
    applied = [r for r in run.results if r.written and r.applied]
    if applied:
        n = sum(len(r.fixed) for r in applied)
        out.write(f"\nFixed {n} error{'s' if n != 1 else ''}:\n")
        for r in applied:
            out.write(f"- {r.plan.path}:\n")
            for code in FIXED_CODES:
                count = sum(1 for f in r.fixed if f.code == code)
                if count:
                    out.write(f"    {count} × {code} ({RULES[code].name})\n")
            for inf in r.applied:
                out.write(f"      {inf.cls.name}: {inf.describe()}\n")
    pending = [(p, f, p.inference_for(f)) for p in run.plans for f in p.findings if p.inference_for(f)]
    if pending:
        out.write("\nNot fixed:\n" if applied else "\nFixes:\n")
        for p, f, inf in pending:
            assert inf is not None
            state = "" if inf.fixable else "no fix: "
            if inf.fixable and not inf.safe and not run.options.unsafe:
                state = "needs --unsafe-fixes: "
            out.write(f"- {p.path}:{f.line}: {inf.cls.name}: {state}{inf.describe()}\n")
