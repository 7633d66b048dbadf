"""The edits of a file's fixes: a declaration placed first in a class body, a rewrite of a
hard-coded device, a conversion of a whole class (its tests take ``device``, its instantiation call).
The edits never overlap and are committed once; every byte outside them stays as it was."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model import ClassInfo, FileModel, ImportStatement, Site
from ..neutral import Conversion, Rewrite, neutral_except_for
from ..taxonomy import Taxonomy
from .imports import _name_reference
from .text import (
    _LONE_CR,
    Edit,
    _blank_after,
    _CallNodes,
    _check_disjoint,
    _comment_only,
    _default_newline,
    _indent_unit,
    _insert,
    _is_docstring,
    _line_end,
    _line_start,
    _line_starts,
    _merge_insertions,
    _offset,
    _Tree,
    apply_edits,
)

if TYPE_CHECKING:
    from ast_grep_py import SgNode


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
