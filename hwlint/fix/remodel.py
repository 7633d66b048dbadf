"""The fixer's incremental re-model: the model of a fixed text derived from the original's parse.

A fix inserts whole lines (declarations, imports), replaces text within lines (rewrites) and adds
module-level statements; the fixed text's model then follows from CPython's tree of the original
without a second parse of the whole file. Where it cannot (:class:`_Unmovable`), the fixer parses
the fixed text again.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import functools
import itertools
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Protocol

from ..edits.records import DECLARE, IMPORT_LINE, IMPORT_NAME, REWRITE, STATEMENT, TEXT, Edit
from ..edits.text import apply_edits, check_disjoint, comment_only, line_end, line_starts, offset_at
from ..model import ClassInfo, FileModel, ImportStatement, Parse, Site, split_lines
from ..model.build import Builder, Overlay
from ..model.syntax import COMPOUND, DEFS, module_statements
from ..taxonomy import Taxonomy
from .merge import merged


class _Planned(Protocol):
    """What the re-model reads of a file's plan (:class:`hwlint.fix.outcome.FilePlan`)."""

    model: FileModel | None
    parsed: Parse | None
    derived: Derivation | None


class Parsed:
    """A file's kept parse (:class:`~hwlint.model.build.Parse`) while the file is fixed: the model of
    the text with whole lines inserted (each fixed class's declaration, an import) follows from it
    without a second parse. The tree keeps the original's lines: the model is built on it again,
    the declarations in their classes, then moved to the new lines (:meth:`with_lines`); the device
    uses found by the first build's walks (the costly part) are reused, for the same nodes."""

    def __init__(self, parse: Parse):
        self.source, self.tree, self.path = parse.source, parse.tree, parse.path
        self.taxonomy, self.encoding, self.memo = parse.taxonomy, parse.encoding, parse.memo
        self.retired: list[ast.AST] = []  # nodes replaced in the tree: alive, so no id is reused

    def with_lines(
        self,
        text: str,
        insertions: Sequence[tuple[int, int]],
        declared: Mapping[tuple[int, int], int],
        imports: Sequence[tuple[int, int]],
        replaced: Sequence[int] = (),
        middle: str | None = None,
        rewritten: Sequence[int] = (),
        added: Sequence[tuple[int, int, str]] = (),
    ) -> FileModel | None:
        """The model of *text*: the original with *insertions*, (A, n) for n lines after original
        line A, and nothing else changed but the module-level imports whose original first lines are
        *replaced*. *declared*: (line, col) of each class whose body now starts with a declaration
        -> the declaration's line in *text*. *imports*: the (first, last) lines in *text* of the
        imports added or rewritten. *middle*: the original with the edits made within lines
        (*rewritten*, original line numbers) and no line inserted, when some are: each statement
        holding such a line (a statement of a class body or of the module) is parsed again alone,
        from *middle*. *added*: module-level statements among the inserted lines, (A, their first
        line in *text*, their text), A the last line of the module-level statement they follow.
        None when a recorded text spans an insertion (a statement holding a fixed class), or an
        edited line is in no statement of its own: only a parse of *text* models those."""
        source, dirty = middle if middle is not None else self.source, set()
        undo: list[tuple[list[ast.stmt], int, ast.stmt | None]] = []
        segments: list[tuple[int, int]] = []  # (first line in the source built on, first in *text*)
        try:
            if rewritten and not self.splice(source, rewritten, dirty, undo):
                return None
            if added:
                source, segments = self.append(source, added, undo)
                if source is None:
                    return None
            lines = split_lines(text)
            table = {}
            injected = {}
            for k, (key, line) in enumerate(declared.items(), start=1):
                table[-k] = line
                injected[key] = (-k, lines[line - 1])
            overlay = Overlay(injected, text, frozenset(dirty))
            builder = Builder(source, self.path, self.taxonomy, self.memo, overlay)
            model = builder.build(self.tree, self.encoding)
        finally:  # the tree stays the original's; every node it held stays alive (ids key the memo)
            for body, i, old in reversed(undo):
                self.retired.append(body[i])
                if old is None:
                    del body[i]
                else:
                    body[i] = old
        shifted = line_map(insertions)
        firsts = [first for first, _ in segments]

        def line_of(line: int) -> int:
            if line < 0:
                return table[line]
            if segments and line >= firsts[0]:  # an added statement's line
                first, where = segments[bisect.bisect_right(firsts, line) - 1]
                return where + line - first
            return shifted(line)

        try:
            moved = _Mover(line_of, sorted(a for a, _ in insertions)).record(model)
        except _Unmovable:
            return None
        dropped = {line_of(r) for r in replaced}
        kept = [i for i in moved.imports if i.site.line not in dropped]
        read = [_import_at(lines, first, last, self.path, self.taxonomy) for first, last in imports]
        merged = sorted([*kept, *read], key=lambda i: (i.site.line, i.site.col))
        return replace(moved, imports=tuple(merged))

    def splice(
        self,
        middle: str,
        rewritten: Sequence[int],
        dirty: set[int],
        undo: list[tuple[list[ast.stmt], int, ast.stmt | None]],
    ) -> bool:
        """Put in the tree, for each statement holding a line of *rewritten* (a statement of a
        class's body, or of the module's), the statement as *middle* spells it, parsed alone; add
        the ids of the classes around it to *dirty*, and each change to *undo*. False when a line
        is in no such statement, or in one that shares a line with another."""
        owners: list[tuple[int, int, list[ast.stmt], int, tuple[int, ...]]] = []
        classes: list[tuple[ast.ClassDef, tuple[int, ...]]] = []
        for body, around in [(self.tree.body, ())]:
            for i, stmt in enumerate(body):
                if isinstance(stmt, ast.ClassDef):
                    classes.append((stmt, around))
                elif not isinstance(stmt, (*COMPOUND, *DEFS)):
                    owners.append((stmt.lineno, stmt.end_lineno or stmt.lineno, body, i, around))
        classes += [
            (s, ())
            for s, nested in module_statements(self.tree.body, False)
            if nested and isinstance(s, ast.ClassDef)
        ]
        while classes:
            cls, around = classes.pop()
            around = (*around, id(cls))
            for i, stmt in enumerate(cls.body):
                if isinstance(stmt, ast.ClassDef):
                    classes.append((stmt, around))
                elif not isinstance(stmt, COMPOUND):
                    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
                    owners.append((first, stmt.end_lineno or stmt.lineno, cls.body, i, around))
        owners.sort(key=lambda o: o[0])
        starts = [o[0] for o in owners]
        chosen = {}
        for line in rewritten:
            k = bisect.bisect_right(starts, line) - 1
            if k < 0 or not owners[k][0] <= line <= owners[k][1]:
                return False
            chosen[k] = owners[k]
        lines = split_lines(middle)
        for k, (first, last, body, i, around) in chosen.items():
            if (k > 0 and owners[k - 1][1] >= first) or (k + 1 < len(owners) and owners[k + 1][0] <= last):
                return False  # `a = 1; b = 2`: the lines hold more than the statement
            # blank lines above put it at its line (cheaper than moving its nodes after)
            text = "".join(lines[first - 1 : last])
            if body is self.tree.body:
                new = ast.parse("\n" * (first - 1) + text).body[0]
            else:  # indented as in its class: the statement parses as the body of an `if`
                new = ast.parse("\n" * (first - 2) + "if 1:\n" + text).body[0].body[0]  # type: ignore[attr-defined]
            undo.append((body, i, body[i]))
            body[i] = new
            dirty.update(around)
        return True

    def append(
        self,
        source: str,
        added: Sequence[tuple[int, int, str]],
        undo: list[tuple[list[ast.stmt], int, ast.stmt | None]],
    ) -> tuple[str | None, list[tuple[int, int]]]:
        """*source* with the statements of *added* written after its last line, each parsed there
        and put in the module's body after the statement it follows; the first line of each in
        *source* and in the fixed text. None when a statement it follows is not found."""
        lines = split_lines(source)
        text = source if not lines or lines[-1].endswith(("\n", "\r")) else source + "\n"
        count = len(lines)
        segments = []
        for a, where, statement in sorted(added):
            index = next((i for i, s in enumerate(self.tree.body) if s.end_lineno == a), None)
            if index is None:
                return None, []
            new = ast.parse("\n" * count + statement).body[0]
            segments.append((count + 1, where))
            self.tree.body.insert(index + 1, new)
            undo.append((self.tree.body, index + 1, None))
            text += statement
            count += len(split_lines(statement))
        return text, segments


def line_map(insertions: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """Where each line of a text goes once (A, n) inserts n lines after its line A, for each."""
    points = sorted(insertions)
    after = [a for a, _ in points]
    shifts = list(itertools.accumulate((n for _, n in points), initial=0))

    def line_of(line: int) -> int:
        return line + shifts[bisect.bisect_left(after, line)]  # the insertions strictly above it

    return line_of


def _import_at(lines: list[str], first: int, last: int, path: str, taxonomy: Taxonomy) -> ImportStatement:
    """The module-level import statement on *lines* first to last (1-based), read alone."""
    text = "".join(lines[first - 1 : last])
    stmt = ast.parse(text).body[0]
    assert isinstance(stmt, (ast.Import, ast.ImportFrom)), text
    found = Builder(text, path, taxonomy).import_statement(stmt, False)
    moved = replace(found.site, line=found.site.line + first - 1, end_line=found.site.end_line + first - 1)
    return replace(found, site=moved)


class _Unmovable(Exception):
    """A recorded text spans an inserted line: moving the record would keep the old text."""


#: Where the model holds line numbers outside of :class:`Site` s: fields of these names (a record's
#: field named so is a line; :class:`~hwlint.model.records.ClassKeeper`'s ``rebound_line`` 0, no
#: later binding, stays 0: no line is inserted above line 1).
_LINE_FIELDS = frozenset({"line", "end_line", "first", "last", "rebound_line"})


class _Mover:
    """Copies a model's records with every line number mapped by *line_of* (columns stay: only
    whole lines are inserted), each record once however often it is shared."""

    def __init__(self, line_of: Callable[[int], int], after: list[int]):
        self.moved: dict[int, int] = {}  # line -> its new line, as asked

        def cached(line: int) -> int:
            found = self.moved.get(line)
            if found is None:
                found = self.moved[line] = line_of(line)
            return found

        self.line_of = cached
        self.after = after  # sorted lines after which lines were inserted
        self.done: dict[int, object] = {}

    def site(self, s: Site) -> Site:
        line_of = self.line_of
        if s.end_line > s.line > 0 and s.text:
            i = bisect.bisect_left(self.after, s.line)
            if i < len(self.after) and self.after[i] < s.end_line:
                raise _Unmovable
        return Site(line_of(s.line), s.col, s.text, line_of(s.end_line), s.end_col)

    def sites(self, v: tuple[Site, ...]) -> tuple[Site, ...]:
        return tuple([self.site(s) for s in v])

    def optional(self, v: Site | None) -> Site | None:
        return None if v is None else self.site(v)

    def records(self, v: tuple) -> tuple:
        return tuple([self.record(x) for x in v])

    def value(self, v: object) -> object:
        kind = type(v)
        if kind is Site:
            return self.site(v)  # type: ignore[arg-type]
        if kind is tuple:
            return tuple([self.value(x) for x in v])  # type: ignore[attr-defined]
        if hasattr(kind, "__dataclass_fields__"):
            return self.record(v)
        return v

    def record(self, obj: object) -> object:
        key = id(obj)
        done = self.done.get(key)
        if done is None:
            done = self.done[key] = _mover(type(obj))(obj, self, self.line_of)
        return done


_PLAIN_TYPES = (str, bool, int, float, type(None))


def _plain(hint: object) -> bool:
    """Whether values of type *hint* hold no record: str, bool, numbers, None, tuples of those."""
    if hint in _PLAIN_TYPES:
        return True
    args = typing.get_args(hint)
    return bool(args) and all(a is Ellipsis or _plain(a) for a in args)


def _records_of(hint: object) -> bool:
    """Whether *hint* is ``tuple[R, ...]`` for a record type R."""
    args = typing.get_args(hint)
    return len(args) == 2 and args[1] is Ellipsis and dataclasses.is_dataclass(args[0])


@functools.cache
def _mover(kind: type) -> Callable[[object, _Mover, Callable[[int], int]], object]:
    """A function copying a record of *kind* for :class:`_Mover`, written once per type: a field
    that holds no record is passed on, a line mapped, a site or a record moved."""
    hints = typing.get_type_hints(kind)
    values = []
    for f in fields(kind):
        if not f.init:
            continue
        name, hint = f.name, hints[f.name]
        if name in _LINE_FIELDS and hint is int:
            values.append(f"line_of(o.{name})")
        elif name.startswith("_") or name == "resolver" or _plain(hint):
            values.append(f"o.{name}")
        elif hint is Site:
            values.append(f"m.site(o.{name})")
        elif hint == Site | None:
            values.append(f"m.optional(o.{name})")
        elif hint == tuple[Site, ...]:
            values.append(f"m.sites(o.{name})")
        elif typing.get_origin(hint) is tuple and _records_of(hint):
            values.append(f"m.records(o.{name})")
        else:
            values.append(f"m.value(o.{name})")
    namespace = {"kind": kind}
    exec(f"def move(o, m, line_of):\n    return kind({', '.join(values)})\n", namespace)
    return namespace["move"]  # type: ignore[return-value]


@dataclass
class Edits:
    """The sorted, disjoint edits of one pass over a file, and what each does. *exact*: every edit
    inserts whole lines at the start of a line, placed by the model's (CPython's) positions where a
    statement may start, adds a name to an import, or replaces text within one line (a rewrite): the
    model of the fixed text follows from the original's parse, the statements holding a rewrite
    parsed again alone (:meth:`Parsed.with_lines`). Otherwise the whole fixed text is parsed again."""

    edits: list[Edit]
    exact: bool
    starts: list[int]  # where the edited text's lines start
    declared: list[tuple[ClassInfo, Edit]] = field(default_factory=list)
    # the enum's import: a new line (None), or the import statement a name is added to
    imported: list[tuple[Edit, ImportStatement | None]] = field(default_factory=list)
    rewritten: list[Edit] = field(default_factory=list)  # replacements within one line
    # module-level statements on lines of their own, each with the last line of what it follows
    added: list[tuple[Edit, int]] = field(default_factory=list)

    @classmethod
    def of(cls, source: str, model: FileModel, taken: Sequence[Edit]) -> Edits:
        """The edits *taken* for one pass over *source* (modelled as *model*), merged and sorted."""
        out = merged(taken)
        made = cls(out, all(e.role != TEXT for e in taken) and len(out) == len(taken), line_starts(source))
        classes = {(c.site.line, c.site.col): c for c in model.classes}
        imports = {i.site.line: i for i in model.imports}
        for e in sorted(taken, key=lambda e: (e.start_pos, e.end_pos)):
            if e.role == DECLARE:
                made.declared.append((classes[(e.line, e.col)], e))
            elif e.role == IMPORT_LINE:
                made.imported.append((e, None))
            elif e.role == IMPORT_NAME:
                made.imported.append((e, imports[e.line]))
            elif e.role == REWRITE:
                made.rewritten.append(e)
            elif e.role == STATEMENT:
                made.added.append((e, e.line))
        return made


@dataclass
class Derivation:
    """How a fixed text follows from the parse of the original (:meth:`Parsed.with_lines`): kept
    on the fixed text's plan, so that the next pass (the rewrites a declaration enables) is modelled
    from the same parse."""

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


def model_after(plan: _Planned, text: str, new_text: str, made: Edits) -> tuple[FileModel, Derivation] | None:
    """The model of *new_text*, *text* with the exact edits *made*, from the parse of the original
    (see :meth:`Parsed.with_lines`), and how it follows; None when the plan kept no
    parse, or the edits move more than whole lines (a line added inside an import that holds a
    ``noqa`` comment, a name added to an import followed by code on its last line), or a later pass
    adds more than rewrites."""
    try:
        derivation = _derivation(plan, text, new_text, made)
        model = derivation.model(new_text) if derivation is not None else None
    except Exception:  # a bug here costs a parse of the fixed text, never the fix
        return None
    return (model, derivation) if model is not None and derivation is not None else None


def _derivation(plan: _Planned, text: str, new_text: str, made: Edits) -> Derivation | None:
    if plan.model is None:
        return None
    if plan.derived is not None:  # a later pass: *text* is itself derived
        return _next_derivation(plan.derived, text, made)
    if plan.parsed is None:
        return None
    model = plan.model
    starts, new_starts = made.starts, line_starts(new_text)
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
        end = offset_at(starts, imp.site.end_line, imp.site.end_col)
        breaks = len(split_lines(e.inserted_text + "x")) - 1  # line breaks the edit adds
        noqa = any(imp.site.line <= d.line <= imp.site.end_line for d in model.noqa)
        if not comment_only(text[end : line_end(text, end)[0]]) or (noqa and breaks):
            return None
        if breaks:
            insertions.append((imp.site.end_line, breaks))
        replaced.append(imp.site.line)
        imports.append((new_line(offset_at(starts, imp.site.line, 0)), new_line(end, inclusive=True)))
    added = []
    for e, a in made.added:  # blank lines, then the statement
        lines = split_lines(e.inserted_text)
        blank = next(i for i, ln in enumerate(lines) if ln.strip())
        insertions.append((a, len(lines)))
        added.append((a, new_line(e.start_pos) + blank, "".join(lines[blank:])))
    rewrites = sorted(made.rewritten, key=lambda e: e.start_pos)
    return Derivation(
        Parsed(plan.parsed), sorted(insertions), declared, imports, replaced, rewrites, starts, added
    )


def _next_derivation(before: Derivation, text: str, made: Edits) -> Derivation | None:
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
    check_disjoint(rewrites)
    return replace(before, rewrites=rewrites)
