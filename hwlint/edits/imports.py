"""The import a fix needs: how a name of a module is written in the file, and the edit importing it
when no import binds it yet (a name added to an existing ``from`` import in sorted position, or a
new line after the module's imports)."""

from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..model import FileModel, ImportStatement
from .records import Edit
from .text import (
    Tree,
    apply_edits,
    comment_only,
    default_newline,
    insert_edit,
    is_docstring,
    line_end,
    line_start_at,
    line_starts,
    offset_at,
)

if TYPE_CHECKING:
    from ast_grep_py import SgNode


def bound_name(model: FileModel, module: str, name: str) -> str | None:
    """The local name under which the file's imports bind *name* of *module* (an alias, or the name
    itself through ``from module import *``), if they do."""
    for imp in sorted(model.imports, key=lambda i: i.nested):
        bound = imp.binding(name)
        if bound is not None:
            return bound
        if imp.module == module and imp.binding("*") is not None:
            return name
    return None


def name_reference(
    source: str,
    tree: Tree,
    starts: list[int],
    model: FileModel,
    module: str,
    name: str,
    first_class_line: int,
) -> tuple[str, Edit | None, ImportStatement | bool | None]:
    """How to write *name* of *module*, the edit importing it (None when already imported), and
    what that edit changes when the model's positions alone placed it (see :attr:`Edits.exact`):
    the import statement it adds the name to, or None for a new line; False when ast-grep did."""
    bound = bound_name(model, module, name)
    if bound is not None:
        return bound, None, None
    for imp in model.imports:
        # a statement below the first use (a late `from ... import run_tests`) binds the name too late
        if (
            imp.module == module
            and not imp.nested
            and imp.site.col == 0
            and imp.site.end_line < first_class_line
        ):
            wrapped = _wrapped_edit(source, starts, imp, name)
            if wrapped is not None:
                return name, wrapped, False
            edit = _add_name_edit_at(source, starts, imp, name)
            if edit is not None:
                return name, edit, imp
            node = _module_statement(tree.root, starts, imp.site.line)
            if node is not None and node.kind() == "import_from_statement":
                return name, _add_name_edit(source, node, name), False
    statement = f"from {module} import {name}"
    edit = new_import_edit_at(source, starts, model, statement, first_class_line, module)
    if edit is not None:
        return name, edit, None
    return (
        name,
        new_import_edit(source, tree.root, starts, model, statement, first_class_line, module),
        False,
    )


def _module_statement(root: SgNode, starts: list[int], line: int) -> SgNode | None:
    """The module-level statement that starts *line* (1-based, as CPython counts lines)."""
    at = offset_at(starts, line, 0)
    for node in root.children():
        if node.range().start.index == at and node.kind() != "comment":
            return node
    return None


def _add_name_edit(source: str, node: SgNode, name: str) -> Edit:
    """:func:`_name_edit` for the ``from m import ...`` statement *node* of ast-grep's tree."""
    names = [
        _Name(c.range().start.index, c.range().end.index, c.text().split(" as ")[0].strip())
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
    name: str  # the imported name (not its alias)


def member_key(name: str) -> tuple[int, str]:
    """isort's and ruff's default order of the names of a ``from`` import (``order-by-type``):
    constants, then classes, then the others, each case-insensitively."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower()


def _order(names: list[_Name]):
    """The sort key *names* follow: by type (ruff's and isort's default) when they are sorted so,
    else case-insensitive (usort's, PyTorch's)."""
    typed = [member_key(n.name) for n in names]
    if typed == sorted(typed):
        return member_key
    return lambda name: name.lower()


def _import_names(source: str, starts: list[int], imp: ImportStatement) -> tuple[list[_Name], bool] | None:
    """The names of the module-level ``from m import ...`` *imp*, and whether they are in
    parentheses, read by the tokenizer from the statement's text; None when it cannot."""
    begin = offset_at(starts, imp.site.line, 0)
    text = source[begin : offset_at(starts, imp.site.end_line, imp.site.end_col)]
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
        return offset_at(starts, imp.site.line + position[0] - 1, position[1])

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
        names.append(_Name(offset(first.start), offset(last.end), first.string))
        i += 1
        if i < len(rest):
            if rest[i].string != ",":
                return None
            i += 1
    return (names, parenthesized) if names else None


#: pycodestyle's default line length (E501)
MAX_LINE = 79


def _wrapped_edit(source: str, starts: list[int], imp: ImportStatement, name: str) -> Edit | None:
    """The one-line ``from m import a, b`` *imp* rewritten with *name* as the formatters write a
    long one (``from m import (``, a name a line, ``)``), when adding *name* makes its line longer
    than :data:`MAX_LINE` (E501, and ruff's isort wraps it); None otherwise, or when a comment
    follows it (a ``# noqa`` must stay on the line flake8 reports)."""
    if imp.site.line != imp.site.end_line:
        return None
    found = _import_names(source, starts, imp)
    if found is None or found[1]:
        return None
    names = found[0]
    begin = offset_at(starts, imp.site.line, 0)
    end = offset_at(starts, imp.site.end_line, imp.site.end_col)
    after, newline = line_end(source, end)
    if source[end:after].strip() or len(source[begin:end]) + len(name) + 2 <= MAX_LINE:
        return None
    key = _order(names)
    items = [source[n.start : n.end] for n in names]
    at = next((i for i, n in enumerate(names) if key(n.name) > key(name)), len(names))
    items.insert(at, name)
    newline = newline or default_newline(source)
    head = source[begin : names[0].start].rstrip()
    body = "".join(f"    {item},{newline}" for item in items)
    return Edit(begin, end, f"{head} ({newline}{body})")


def _add_name_edit_at(source: str, starts: list[int], imp: ImportStatement, name: str) -> Edit | None:
    """:func:`_name_edit` with the names read by the tokenizer (None when they cannot be)."""
    found = _import_names(source, starts, imp)
    if found is None:
        return None
    end = offset_at(starts, imp.site.end_line, imp.site.end_col)
    return _name_edit(source, found[0], found[1], end, name, careful=True)


def _name_edit(
    source: str, names: list[_Name], parenthesized: bool, statement_end: int, name: str, careful: bool
) -> Edit | None:
    """Add *name* to a ``from m import ...`` statement (its *names*, ending at *statement_end*) in
    sorted position (the order its names follow: :func:`_order`), keeping its style. *careful*:
    None rather than a line after a trailing comma that shares its line with the closing
    parenthesis."""

    def starts_line(start: int) -> bool:
        return parenthesized and not source[line_start_at(source, start) : start].strip()

    key = _order(names)
    after = next((n for n in names if key(n.name) > key(name)), None)
    if after is not None:
        if starts_line(after.start):
            _, newline = line_end(source, after.start)
            indent = source[line_start_at(source, after.start) : after.start]
            return insert_edit(after.start, f"{name},{newline or default_newline(source)}{indent}")
        return _on_own_line(source, names, parenthesized, after, name) or insert_edit(
            after.start, f"{name}, "
        )
    last = names[-1]
    if not starts_line(last.start):
        return _on_own_line(source, names, parenthesized, None, name) or insert_edit(last.end, f", {name}")
    indent = source[line_start_at(source, last.start) : last.start]
    next_line, newline = line_end(source, last.end)
    if source[last.end : statement_end].lstrip().startswith(","):
        if careful and (not newline or not comment_only(source[last.end : next_line].lstrip()[1:])):
            return None  # `name,)`: the line holds the parenthesis too
        return insert_edit(next_line, f"{indent}{name},{newline}")
    return insert_edit(last.end, f",{newline}{indent}{name}")


def _on_own_line(
    source: str, names: list[_Name], parenthesized: bool, after: _Name | None, name: str
) -> Edit | None:
    """*name* on a line of its own before *after* (None: after the last name), where writing it
    on their line would make a continuation line of the import longer than :data:`MAX_LINE`: the
    line is broken before *after* (after the last name), so no line grows (``a, b,`` / ``name,`` /
    ``after, c``), a backslash ending each line the statement continues on without parentheses.
    None where the line fits, or holds more than names (the ``from`` head)."""
    at = after.start if after is not None else names[-1].end
    begin = line_start_at(source, at)
    end, newline = line_end(source, at)
    line = source[begin:end]
    indent = line[: len(line) - len(line.lstrip())]
    if end - len(newline) - begin + len(name) + 2 <= MAX_LINE:
        return None
    if line.lstrip().startswith("from"):  # the statement's head: continued at 4 spaces
        if parenthesized or after is None:
            return None
        indent = "    "
    newline = newline or default_newline(source)
    sep = "" if parenthesized else " \\"
    if after is None:
        return insert_edit(at, f",{sep}{newline}{indent}{name}")
    previous = [n for n in names if n.end <= after.start and n.end > begin]
    if not previous:  # *after* starts the line
        return insert_edit(at, f"{name},{sep}{newline}{indent}")
    gap = source[previous[-1].end : after.start]
    if gap.strip() != ",":
        return None
    return Edit(previous[-1].end, after.start, f",{sep}{newline}{indent}{name},{sep}{newline}{indent}")


def _sorted_position(
    source: str, starts: list[int], before: list[ImportStatement], statement: str, module: str | None
) -> Edit | None:
    """*statement* (a ``from module import ...``) on a line of its own in the first block of
    *before* (module-level imports with no code between them) that imports from *module*'s package,
    when those ``from`` imports are sorted (isort's order): just before the first that sorts after
    it, else after the last of them (an import below module code is E402); None otherwise."""
    if module is None:
        return None
    package = module.partition(".")[0]
    for block in _blocks(source, starts, before):
        kin = [
            i for i in block if i.module and i.module.partition(".")[0] == package and i.names[0][0] != "*"
        ]
        if not kin:
            continue
        keys = [i.module.lower() for i in kin if i.module]
        if keys != sorted(keys):
            return None
        later = next((i for i in kin if i.module and i.module.lower() > module.lower()), None)
        if later is None:
            at = _after_last_import(source, starts, kin)
            return None if at is None else insert_edit(at[0], f"{statement}{at[1]}")
        at = offset_at(starts, later.site.line, 0)
        _, newline = line_end(source, at)
        return insert_edit(at, f"{statement}{newline or default_newline(source)}")
    return None


def _blocks(source: str, starts: list[int], imports: list[ImportStatement]) -> list[list[ImportStatement]]:
    """*imports* in the file's order, in runs with nothing but blank lines and comments between."""
    out: list[list[ImportStatement]] = []
    for imp in sorted(imports, key=lambda i: i.site.line):
        if out:
            last = out[-1][-1]
            gap = source[
                offset_at(starts, last.site.end_line, last.site.end_col) : offset_at(starts, imp.site.line, 0)
            ]
            if all(comment_only(line) for line in gap.splitlines()):
                out[-1].append(imp)
                continue
        out.append([imp])
    return out


def new_import_edit_at(
    source: str,
    starts: list[int],
    model: FileModel,
    statement: str,
    first_class_line: int,
    module: str | None = None,
) -> Edit | None:
    """:func:`new_import_edit` on a line of its own among the module-level imports above the first
    class fixed: in sorted place among ``from`` imports of *module*'s package when those are sorted
    (isort's order), else after the last of them; None when there is none, or code or a
    continuation follows the import it goes after on its line."""
    before = _imports_above(model, first_class_line)
    if not before:
        return None
    sorted_at = _sorted_position(source, starts, before, statement, module)
    if sorted_at is not None:
        return sorted_at
    at = _after_last_import(source, starts, before)
    return None if at is None else insert_edit(at[0], f"{statement}{at[1]}")


def block_edit(
    source: str, starts: list[int], model: FileModel, block: str, newline: str, first_class_line: int
) -> Edit | None:
    """*block* (lines ending in a newline: the enum's fallback) after the last module-level import
    above the first class fixed, one blank line between them (isort's one line after an import
    block; the lines that followed the import then follow the block); None when there is no such
    import, or code or a continuation follows it on its line."""
    before = _imports_above(model, first_class_line)
    at = _after_last_import(source, starts, before) if before else None
    return None if at is None else insert_edit(at[0], f"{newline}{block}")


def _imports_above(model: FileModel, line: int) -> list[ImportStatement]:
    """The module-level import statements (not nested, at column 0) above *line*."""
    return [i for i in model.imports if not i.nested and i.site.col == 0 and i.site.line < line]


def _after_last_import(
    source: str, starts: list[int], before: list[ImportStatement]
) -> tuple[int, str] | None:
    """(the end of the line, its newline) of the last of *before*; None when code or a
    continuation follows the import on its line."""
    last = max(before, key=lambda i: i.site.end_line)
    end = offset_at(starts, last.site.end_line, last.site.end_col)
    pos, newline = line_end(source, end)
    if not newline or not comment_only(source[end:pos]):
        return None
    return pos, newline


def new_import_edit(
    source: str,
    root: SgNode,
    starts: list[int],
    model: FileModel,
    statement: str,
    first_class_line: int,
    module: str | None = None,
) -> Edit:
    """*statement* (an import, or the enum's fallback block) on lines of its own: in sorted place
    (see :func:`_sorted_position`), else after the last module-level import above the first class
    fixed, else after the module's docstring, placed by ast-grep's tree."""
    line = statement
    before = _imports_above(model, first_class_line)
    sorted_at = _sorted_position(source, starts, before, statement, module)
    if sorted_at is not None:
        return sorted_at
    if before:
        last = max(before, key=lambda i: i.site.end_line)
        node = _module_statement(root, starts, last.site.line)  # any kind: `from __future__` has its own
        if node is not None:
            pos, newline = line_end(source, node.range().end.index)
            if not newline:
                return insert_edit(pos, f"{default_newline(source)}{line}")
            return insert_edit(pos, f"{line}{newline}")
    # No import before the class: go before the first statement that is not the module docstring.
    statements = [c for c in root.children() if c.kind() != "comment"]
    if statements and is_docstring(statements[0]):
        pos, newline = line_end(source, statements[0].range().end.index)
        if not newline:  # the docstring ends the file
            newline = default_newline(source)
            return insert_edit(pos, f"{newline}{line}{newline}")
        return insert_edit(pos, f"{line}{newline}")
    target = statements[0] if statements else None
    pos = line_start_at(source, target.range().start.index) if target is not None else len(source)
    return insert_edit(pos, f"{line}{default_newline(source)}")


# ---------------------------------------------------------------------------------------------
# The imports a fix leaves unused


def unused_import_edits(
    before: str, before_model: FileModel, after: str, after_model: FileModel
) -> list[Edit]:
    """The edits removing from *after* (the fixed text of *before*) each name of a module-level
    ``from`` import that *before* used and *after* does not: what the fix itself stopped using
    (``@onlyNativeDeviceTypes`` deleted, ``@onlyCUDA`` made ``@onlyAccelerator``), which pyflakes
    (F401) would report. Conservative: a name counts as used wherever it is written outside its
    import but in a comment (a string, ``__all__``, another binding, an attribute of that name);
    a statement marked ``noqa``, bound twice, or whose rewrite would not parse is left as it is."""
    candidates = _fewer_mentions(before, before_model, after, after_model)
    if not candidates:
        return []
    used_after = _mentions(after, after_model, candidates)
    used_before = _mentions(before, before_model, candidates)
    if used_after is None or used_before is None:
        return []
    gone = {n for n in candidates if not used_after[n] and used_before[n]}
    edits: list[Edit] = []
    starts = line_starts(after)
    for imp in after_model.imports:
        names = {alias or name for name, alias in imp.names} & gone
        if names and _removable(imp, after, starts):
            edits += _without_names(after, starts, imp, names)
    return edits


def _bindings(model: FileModel) -> dict[str, int]:
    """Local name -> how many import statements of *model* bind it."""
    out: dict[str, int] = {}
    for imp in model.imports:
        for name, alias in imp.names:
            local = alias or name.partition(".")[0]
            out[local] = out.get(local, 0) + 1
    return out


def _fewer_mentions(before: str, before_model: FileModel, after: str, after_model: FileModel) -> set[str]:
    """The names one module-level ``from`` import binds in both texts that *after* writes fewer
    times than *before* (a cheap count of the word, comments and strings included)."""
    once_before, once_after = _bindings(before_model), _bindings(after_model)
    out = set()
    for imp in after_model.imports:
        if imp.module is None or imp.module == "__future__" or imp.nested or imp.site.col != 0:
            continue
        for name, alias in imp.names:
            local = alias or name
            if name == "*" or once_after.get(local) != 1 or once_before.get(local) != 1:
                continue
            word = re.compile(rf"\b{re.escape(local)}\b")
            if len(word.findall(after)) < len(word.findall(before)):
                out.add(local)
    return out


def _mentions(source: str, model: FileModel, names: set[str]) -> dict[str, int] | None:
    """How many times each of *names* is written outside the import statements binding it:
    as a name, or as a word of a string (a string may name it: ``__all__``, an annotation, eval);
    None when the text does not tokenize."""
    skipped = {n: set() for n in names}
    for imp in model.imports:
        for name, alias in imp.names:
            local = alias or name
            if local in skipped:
                skipped[local].update(range(imp.site.line, imp.site.end_line + 1))
    counts = dict.fromkeys(names, 0)
    words = re.compile(r"\w+")
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME:
                found = [tok.string] if tok.string in counts else []
            elif tok.type in (tokenize.STRING, _FSTRING_MIDDLE):
                found = [w for w in words.findall(tok.string) if w in counts]
            else:
                continue
            for name in found:
                if tok.start[0] not in skipped[name]:
                    counts[name] += 1
    except (tokenize.TokenError, SyntaxError):
        return None
    return counts


_FSTRING_MIDDLE = getattr(tokenize, "FSTRING_MIDDLE", -1)


def _removable(imp: ImportStatement, source: str, starts: list[int]) -> bool:
    """Whether a name may be taken out of *imp*: a module-level ``from`` import whose lines say
    no ``noqa`` (its author keeps it as it is)."""
    if imp.module is None or imp.nested or imp.site.col != 0:
        return False
    text = source[
        offset_at(starts, imp.site.line, 0) : line_end(source, offset_at(starts, imp.site.end_line, 0))[0]
    ]
    return "noqa" not in text.lower()


def _without_names(source: str, starts: list[int], imp: ImportStatement, names: set[str]) -> list[Edit]:
    """*imp* without *names* (local names): the statement's lines deleted when it binds nothing
    else; else, line by line, the names kept on each line written in place of the line's names
    (a line left with none deleted); [] when the statement cannot be read or its rewrite would not
    parse."""
    found = _import_names(source, starts, imp)
    if found is None:
        return []
    listed, _ = found
    local = {n.start: (alias or name) for n, (name, alias) in zip(listed, imp.names, strict=False)}
    if len(listed) != len(imp.names):
        return []
    begin = offset_at(starts, imp.site.line, 0)
    end = offset_at(starts, imp.site.end_line, imp.site.end_col)
    after, _ = line_end(source, end)
    if not comment_only(source[end:after]):
        return []  # code follows the statement on its line
    if all(local[n.start] in names for n in listed):
        return [Edit(begin, after, "")]
    edits = []
    for _, group in itertools.groupby(listed, key=lambda n: line_start_at(source, n.start)):
        on_line = list(group)
        kept = [source[n.start : n.end] for n in on_line if local[n.start] not in names]
        if len(kept) == len(on_line):
            continue
        first, last = on_line[0], on_line[-1]
        if kept:
            edits.append(Edit(first.start, last.end, ", ".join(kept)))
            continue
        start = line_start_at(source, first.start)
        stop, _ = line_end(source, last.end)
        rest = source[last.end : stop].strip()
        if source[start : first.start].strip() or not comment_only(rest.removeprefix(",")):
            return []  # the line holds more of the statement than names
        edits.append(Edit(start, stop, ""))
    statement = apply_edits(
        source[begin:after],
        [replace(e, start_pos=e.start_pos - begin, end_pos=e.end_pos - begin) for e in edits],
    )
    try:
        tree = ast.parse(statement)
    except SyntaxError:
        return []
    bound = [a.asname or a.name for s in tree.body if isinstance(s, ast.ImportFrom) for a in s.names]
    if len(tree.body) != 1 or bound != [local[n.start] for n in listed if local[n.start] not in names]:
        return []
    return edits
