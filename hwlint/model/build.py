"""The model of one file: its test classes, their declarations, and its instantiation calls.

A file is parsed once, with CPython's own parser (so a file hwlint accepts is a file Python accepts),
and reduced to plain data: :class:`FileModel`. Every consumer (the rules, the fixer, the selector, the
report) reads this model, never the AST, so the model can be cached and shipped between processes.

Positions follow ``ast``: lines are 1-based; columns are 0-based and counted in characters.

Cross-file facts (a base class or an instantiation in another module) are not resolved here; they
reach the model through :class:`Resolver`, whose default knows only the file itself.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import functools
import io
import itertools
import re
import tokenize
import typing
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import repeat
from typing import Protocol

from ..taxonomy import Taxonomy


# The records a file's model holds by the thousand (sites, device uses, methods, decorators,
# declarations) are slotted and not frozen: a frozen dataclass's __init__ sets each field through
# object.__setattr__, four times the cost of a plain one, on the model's hottest path. Nothing assigns
# to them once built (dataclasses.replace makes copies); unsafe_hash keeps them hashable by value.
@dataclass(slots=True, unsafe_hash=True)
class Site:
    """A place in the file, with the source text found there."""

    line: int
    col: int
    text: str = ""
    end_line: int = 0
    end_col: int = 0


@dataclass(slots=True, unsafe_hash=True)
class Declaration:
    """``hw_classification = <value>`` in a class body. ``member`` is None when not statically known."""

    site: Site
    member: str | None
    conditional: bool = False  # under an if/try/for/while in the class body: may not run


@dataclass(slots=True, unsafe_hash=True)
class Decorator:
    name: str  # last component of the decorator's (called) name: onlyCUDA, skipIf, dtypes
    site: Site


#: Kinds of device use. *hard*: code that fails without the device (``torch.cuda.synchronize()``,
#: ``"cuda"`` used as a device, ``.cuda()``, ``@onlyCUDA``). *guard*: code that only asks or skips
#: (``TEST_CUDA``, ``skipIfXpu``, ``torch.cuda.is_available()``, anything under ``if TEST_CUDA:``).
#: *none*: no evidence at all, recorded only for a call the taxonomy lists as an accelerator API.
HARD, GUARD, NONE = "hard", "guard", "none"

#: Forms of a device use (see :attr:`DeviceUse.form`).
FORM_LITERAL, FORM_CHAIN, FORM_CHAIN_KEYWORDS, FORM_METHOD = "literal", "chain", "chain-keywords", "method"
FORM_HELPER = "helper"  # a call to a module-level function whose body uses the device
FORM_NAME = "name"  # a name used as a device: device=DEVICE_CUDA, .to(CUDA_DEVICE)
#: Roles of a literal (:attr:`DeviceUse.detail`): a device (``.to("cuda")``, ``device="cuda"``,
#: ``torch.device("cuda")``), a device type (``device_type="cuda"``, ``torch.autocast("cuda")``,
#: ``torch.device("cuda", 0)``), or anything else.
ROLE_DEVICE, ROLE_TYPE, ROLE_OTHER = "device", "device-type", "other"


@dataclass(slots=True, unsafe_hash=True)
class DeviceUse:
    """Code that names a device type: ``torch.cuda.synchronize()``, ``"cuda:0"``, ``.cuda()``,
    ``TEST_CUDA``. ``device`` is a device name from the taxonomy, or :data:`ANY_ACCELERATOR` for code
    that asks for an accelerator without naming one (``requires_gpu``). ``api`` marks a call the
    taxonomy lists under ``availability_checks`` / ``accelerator_apis``."""

    device: str
    site: Site
    kind: str = HARD
    api: bool = False
    #: The syntax of the use, which decides how it can be rewritten: :data:`FORM_LITERAL` (``detail``
    #: tells the literal's role), :data:`FORM_CHAIN` (``torch.cuda.X`` as a call without keywords or a
    #: reference; ``detail`` is the dotted name), :data:`FORM_CHAIN_KEYWORDS` (such a call with keyword
    #: arguments), :data:`FORM_METHOD` (``x.cuda(...)``; ``detail`` is the text inside the
    #: parentheses), :data:`FORM_HELPER` (a call to a module-level helper that uses the device),
    #: :data:`FORM_NAME` (a variable used as a device, ``device=DEVICE_CUDA``), or ""
    #: (identifiers such as ``TEST_CUDA`` and ``onlyCUDA``).
    form: str = ""
    detail: str = ""
    #: The text a rewrite replaces: the literal, the dotted name of a chain, or ``.cuda(...)``.
    target: Site | None = None
    #: The use sits in a decorator (``@largeTensorTest(device="cuda")``, ``@onlyCUDA``).
    decorator: bool = False


@dataclass(slots=True, unsafe_hash=True)
class Method:
    name: str
    site: Site  # the `def` line, column of `def`/`async`
    is_test: bool
    params: tuple[str, ...]
    param_sites: tuple[Site, ...]
    decorators: tuple[Decorator, ...]
    # Device uses in the method, its decorators included.
    device_uses: tuple[DeviceUse, ...] = ()
    # Methods it calls as `self.name(...)` / `cls.name(...)` that lead to device uses.
    calls: tuple[str, ...] = ()
    end_line: int = 0  # the last line of the body


@dataclass(frozen=True)
class ClassInfo:
    name: str
    site: Site  # the `class` line
    end_line: int
    bases: tuple[str, ...]  # dotted source text of each base; "" for an expression that is not a name
    decorators: tuple[Decorator, ...]
    declarations: tuple[Declaration, ...]
    methods: tuple[Method, ...]
    availability_checks: tuple[Site, ...]
    nested: bool  # defined inside an if/try/with/for/while/match block rather than at module level
    # Where the fixer writes a declaration: just after the header's colon (None when the text
    # between the last base and the colon holds more than brackets, commas and comments), the first
    # statement of the body, and that statement again when it is the docstring.
    colon: Site | None
    body: Site
    docstring: Site | None
    # Device uses anywhere in the class: decorators, bases, class-level statements, methods.
    device_uses: tuple[DeviceUse, ...] = ()
    # The device evidence per test (undeclared classes and their bases only), within the class and
    # its bases in the file: `shared_uses` apply to every test (class decorators and statements,
    # setUp/setUpClass/tearDown and what they call); `test_uses` holds, for each test the class
    # collects (its own and its bases'), the uses of the test and of the helpers it calls.
    shared_uses: tuple[DeviceUse, ...] = ()
    test_uses: tuple[tuple[str, tuple[DeviceUse, ...]], ...] = ()
    # The last class-level `device = ...` (a device parameter's name): its site, and its value when
    # it is a string literal.
    device_attribute: Site | None = None
    device_value: str | None = None
    # Tests bound by assignment in the body (``test_x = helper``, ``test_y = _make(...)``): pytest
    # collects them; rules see no signature for them, so they are not methods.
    assigned_tests: tuple[str, ...] = ()
    # Test methods defined under an if/try/... in the body (they are in ``methods`` too)
    conditional_tests: tuple[str, ...] = ()

    @property
    def is_test(self) -> bool:
        return any(m.is_test for m in self.methods)

    @property
    def declaration(self) -> Declaration | None:
        """The declaration in effect: the last assignment in the body wins, as at run time."""
        return self.declarations[-1] if self.declarations else None

    @property
    def test_methods(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.is_test)


@dataclass(frozen=True)
class DeviceFilter:
    """An ``only_for`` / ``except_for`` argument. ``devices`` is None when it cannot be resolved."""

    site: Site
    devices: tuple[str, ...] | None


@dataclass(frozen=True)
class Instantiation:
    """A call to an instantiation function such as ``instantiate_device_type_tests(TestFoo, globals())``."""

    site: Site
    function: str
    class_name: str | None  # None when the first argument is not a plain name
    only_for: DeviceFilter | None
    except_for: DeviceFilter | None
    # Opt-in keywords (allow_mps, allow_xpu...) that were passed: True/False, or None if not static.
    opt_ins: tuple[tuple[str, bool | None], ...]
    dynamic: bool  # *args or **kwargs: arguments beyond those listed may be present

    def opt_in(self, keyword: str) -> bool | None:
        """True/False if *keyword* was passed statically, None if unknowable, False if absent."""
        for k, v in self.opt_ins:
            if k == keyword:
                return v
        return None if self.dynamic else False


@dataclass(frozen=True)
class ImportStatement:
    """A module-level ``import`` or ``from ... import`` statement (the fixer places imports by these)."""

    site: Site  # the whole statement: line..end_line
    module: str | None  # ``from`` imports: the module ("" for ``from . import x``); None for ``import``
    names: tuple[tuple[str, str | None], ...]  # (name, asname) as written; ("*", None) for a star
    nested: bool  # inside an if/try/with/... block

    def binding(self, name: str) -> str | None:
        """The local name under which this statement binds *name* (a from-import), if it does."""
        for imported, alias in self.names:
            if imported == name:
                return alias or name
        return None


@dataclass(frozen=True)
class ParseError:
    line: int
    col: int
    message: str


@dataclass(frozen=True)
class FileModel:
    path: str
    classes: tuple[ClassInfo, ...] = ()
    instantiations: tuple[Instantiation, ...] = ()
    # suppression comments by line: the codes listed, or () for a blanket one
    noqa: tuple[tuple[int, tuple[str, ...]], ...] = ()
    error: ParseError | None = None
    encoding: str = "utf-8"
    newline: str = "\n"
    imports: tuple[ImportStatement, ...] = ()
    # `del Name` statements at module level (also nested in if/try/...): (name, line)
    deletions: tuple[tuple[str, int], ...] = ()
    # line ranges (first, last) of `if __name__ == "__main__":` bodies, which pytest never runs
    main_guards: tuple[tuple[int, int], ...] = ()
    # module-level test functions (pytest collects them; the runtime filter drops them): (name, line)
    test_functions: tuple[tuple[str, int], ...] = ()
    # line ranges of blocks that may not run on import: if/else, for/while, except/else of a try, match cases
    conditional_blocks: tuple[tuple[int, int], ...] = ()
    # try statements with handlers: (first, last) line of the try body, then of its handlers. When
    # nothing raises (the common path) a name the body binds keeps the body's value.
    try_blocks: tuple[tuple[int, int, int, int], ...] = ()
    # module-level names bound to a value known only at run time (``TestCase = NoTest`` under an if,
    # ``skip = functools.partial(skipIf, True)``, ``Base = object`` in an except): (name, line)
    runtime_names: tuple[tuple[str, int], ...] = ()
    # module-level code that creates classes or tests hwlint cannot see: (site, kind) with kind one
    # of globals, type, setattr, exec, loop (an instantiation whose class is not a plain name)
    dynamic: tuple[tuple[Site, str], ...] = ()
    # Resolves names beyond the file (the project model sets it); None: this file only
    resolver: Resolver | None = field(default=None, compare=False, repr=False)
    # Indexes built once, so that every query below is a lookup or a bisection: a file with tens
    # of thousands of classes and calls must not cost their product.
    _index: dict[str, list[ClassInfo]] = field(default_factory=dict, compare=False, repr=False)
    _lines: dict[str, list[int] | None] = field(default_factory=dict, compare=False, repr=False)
    _calls: dict[str, list[Instantiation]] = field(default_factory=dict, compare=False, repr=False)
    _noqa: dict[int, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)
    _spans: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        # dataclasses.replace() hands the old indexes in: start from empty ones, or every copy
        # (a model given a resolver) would list each class and call once more
        for name in ("_index", "_lines", "_calls", "_noqa", "_spans"):
            object.__setattr__(self, name, {})
        for c in self.classes:
            self._index.setdefault(c.name, []).append(c)
        for name, found in self._index.items():
            lines = [c.site.line for c in found]
            self._lines[name] = lines if all(a <= b for a, b in itertools.pairwise(lines)) else None
        for i in self.instantiations:
            if i.class_name is not None:
                self._calls.setdefault(i.class_name, []).append(i)
        for line, codes in reversed(self.noqa):  # the first comment on a line wins
            self._noqa[line] = codes
        self._spans["main"] = _disjoint(self.main_guards)
        self._spans["conditional"] = _disjoint(self.conditional_blocks)

    @property
    def test_classes(self) -> tuple[ClassInfo, ...]:
        return tuple(c for c in self.classes if c.is_test)

    def class_named(self, name: str, before_line: int | None = None) -> ClassInfo | None:
        """The class bound to *name*: the last definition (before *before_line*, when given)."""
        found = self._index.get(name)
        if not found:
            return None
        if before_line is None:
            return found[-1]
        lines = self._lines[name]
        if lines is not None:  # in line order (always, for classes of one scope): bisect
            k = bisect.bisect_left(lines, before_line)
            return found[k - 1] if k else found[-1]
        earlier = [c for c in found if c.site.line < before_line]
        return (earlier or found)[-1]

    def instantiations_of(self, cls: ClassInfo) -> list[Instantiation]:
        return [i for i in self._calls.get(cls.name, ()) if self.class_named(cls.name, i.site.line) is cls]

    def under_main_guard(self, line: int) -> bool:
        """True when *line* is inside an ``if __name__ == "__main__":`` block."""
        return _inside(self._spans["main"], line)

    def is_conditional(self, line: int) -> bool:
        """True when *line* is inside a block that importing the module may skip."""
        return _inside(self._spans["conditional"], line)

    def handler_shadowed(self, line: int, name: str, bound_in: Callable[[str, int, int], bool]) -> bool:
        """True when *line* is in an except handler whose try body also binds *name*.

        *bound_in(name, first, last)* tells whether *name* is bound between those lines.
        """
        return any(h1 <= line <= h2 and bound_in(name, b1, b2) for b1, b2, h1, h2 in self.try_blocks)

    def runtime_bound(self, name: str, before: int = 1 << 30, after: int = 0) -> int:
        """The first line between *after* and *before* where *name* is bound to a run-time value
        at module level, else 0."""
        for n, line in self.runtime_names:
            if n == name and after < line < before:
                return line
        return 0

    def noqa_codes(self, line: int) -> tuple[str, ...] | None:
        """None: no noqa on *line*; (): blanket noqa; otherwise the listed codes."""
        return self._noqa.get(line)


def _disjoint(ranges: Iterable[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Inclusive line ranges merged into sorted disjoint ones, as (starts, ends) for bisection."""
    starts: list[int] = []
    ends: list[int] = []
    for first, last in sorted(ranges):
        if ends and first <= ends[-1] + 1:
            ends[-1] = max(ends[-1], last)
        else:
            starts.append(first)
            ends.append(last)
    return starts, ends


def _inside(spans: tuple[list[int], list[int]], line: int) -> bool:
    starts, ends = spans
    k = bisect.bisect_right(starts, line)
    return k > 0 and line <= ends[k - 1]


class Resolver(Protocol):
    """Finds classes outside the file; a project-wide index implements this."""

    def resolve_base(self, model: FileModel, cls: ClassInfo, base: str) -> ClassInfo | None: ...

    def instantiated_from(self, model: FileModel, cls: ClassInfo) -> list[tuple[str, Instantiation]]:
        """(file, call) of each call in another file that instantiates *cls*."""
        ...

    def imported_instantiations(self, model: FileModel) -> list[tuple[ClassInfo, Instantiation]]:
        """(class, call) of each call of *model* that instantiates a class another file defines."""
        ...


class LocalResolver:
    """Resolves a base only to a class of the same file, bound under that name when ``cls`` is defined."""

    def resolve_base(self, model: FileModel, cls: ClassInfo, base: str) -> ClassInfo | None:
        if not base or "." in base:
            return None
        found = model.class_named(base, cls.site.line)
        return found if found is not None and found is not cls else None

    def instantiated_from(self, model: FileModel, cls: ClassInfo) -> list[tuple[str, Instantiation]]:
        return []  # one file knows no other file's calls

    def imported_instantiations(self, model: FileModel) -> list[tuple[ClassInfo, Instantiation]]:
        return []  # nor any other file's classes


def mro(model: FileModel, cls: ClassInfo, resolver: Resolver | None = None) -> list[ClassInfo]:
    """The known part of *cls*'s method resolution order (C3), itself first.

    Bases that cannot be resolved are left out: they contribute nothing hwlint can see.
    """
    resolver = resolver or model.resolver or LocalResolver()
    cache: dict[int, list[ClassInfo]] = {}

    def linearize(c: ClassInfo, stack: tuple[int, ...]) -> list[ClassInfo]:
        if id(c) in cache:
            return cache[id(c)]
        if id(c) in stack:  # a cycle only a broken file can have
            return [c]
        bases = [b for b in (resolver.resolve_base(model, c, n) for n in c.bases) if b is not None]
        seqs = [linearize(b, (*stack, id(c))) for b in bases] + [bases]
        out = [c]
        seqs = [list(s) for s in seqs if s]
        while seqs:
            for s in seqs:
                head = s[0]
                if not any(head in t[1:] for t in seqs):
                    break
            else:  # inconsistent hierarchy: Python would refuse it; fall back to depth-first order
                head = seqs[0][0]
            out.append(head)
            seqs = [[x for x in s if x is not head] for s in seqs]
            seqs = [s for s in seqs if s]
        cache[id(c)] = out
        return out

    return linearize(cls, ())


def effective_declaration(
    model: FileModel, cls: ClassInfo, resolver: Resolver | None = None
) -> tuple[Declaration, ClassInfo] | None:
    """The declaration ``getattr(cls, attribute)`` would find, and the class that holds it."""
    for c in mro(model, cls, resolver):
        if c.declaration is not None:
            return c.declaration, c
    return None


# ---------------------------------------------------------------------------------------------
# Building the model


def decode_source(data: bytes) -> tuple[str, str]:
    """Decode file bytes as Python does (BOM, PEP 263 cookie). Returns (text, encoding)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        # detect_encoding also refuses first lines that are not UTF-8; decoding says exactly where
        data.decode("utf-8")
        raise
    return data.decode(encoding), encoding


# CPython's parser needs about 600 bytes per "syntax unit" below (3 per line, 1 per punctuation mark
# that opens or separates nodes): 4 MB of `1\n` would take 3.3 GB. This cap keeps one file under
# about 1 GB; PyTorch's largest test file has fewer than 100,000 units, a generated file of 50,000
# test classes 1.3 million.
MAX_PARSE_COST = 1_500_000
_COST_MARKS = ",;([{=.:"


def parse_cost(source: str) -> int:
    """A cheap, linear estimate of what parsing *source* costs (a few fast scans, no tokenizing)."""
    return 3 * source.count("\n") + sum(source.count(c) for c in _COST_MARKS)


def build_model(source: str | bytes, path: str, taxonomy: Taxonomy, devices: bool = True) -> FileModel:
    """Parse *source* and reduce it to a :class:`FileModel`. Never raises for bad input.

    Without *devices* the model holds no device evidence (no :class:`DeviceUse`, no helper calls,
    no ``test_uses``): the selector reads none, and the scan that finds it costs more than the rest
    of the model together."""
    return parse_file(source, path, taxonomy, devices=devices)[0]


def parse_file(
    source: str | bytes, path: str, taxonomy: Taxonomy, keep: bool = False, devices: bool = True
) -> tuple[FileModel, Parsed | None]:
    """:func:`build_model`, and with *keep* the parse behind the model (None when the file does not
    parse): the fixer models its fixed text from it (:meth:`Parsed.with_lines`)."""
    encoding = "utf-8"
    if isinstance(source, bytes):
        try:
            source, encoding = decode_source(source)
        except UnicodeDecodeError as e:
            line = source.count(b"\n", 0, e.start) + 1
            return FileModel(path, error=ParseError(line, 0, f"cannot decode file: {_reason(e)}")), None
        except (SyntaxError, LookupError) as e:
            return FileModel(path, error=ParseError(1, 0, f"cannot decode file: {_reason(e)}")), None
    # a character costs at most 3 units: most files are too small to need counting
    units = parse_cost(source) if 3 * len(source) > MAX_PARSE_COST else 0
    if units > MAX_PARSE_COST:
        reason = (
            f"the file is too large to parse safely ({units:,} syntax units, more than {MAX_PARSE_COST:,})"
        )
        return FileModel(path, error=ParseError(1, 0, reason), encoding=encoding), None
    try:
        with warnings.catch_warnings():  # invalid escapes and the like are the file's business
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        line = e.lineno or 1
        error = ParseError(line, max((e.offset or 1) - 1, 0), _reason(e))
        return FileModel(path, error=error, encoding=encoding), None
    except (ValueError, RecursionError, MemoryError) as e:
        return FileModel(path, error=ParseError(1, 0, _reason(e)), encoding=encoding), None
    memo: dict[object, object] | None = {"source": source} if keep else None
    try:
        model = _Builder(source, path, taxonomy, memo, devices=devices).build(tree, encoding)
    except RecursionError as e:
        return FileModel(path, error=ParseError(1, 0, _reason(e)), encoding=encoding), None
    return model, (Parsed(source, tree, path, taxonomy, encoding, memo) if memo is not None else None)


def model_from_tree(
    tree: ast.Module, source: str, path: str, taxonomy: Taxonomy, encoding: str = "utf-8"
) -> FileModel:
    """Build the model from an already parsed tree (flake8 hands plugins one)."""
    return _Builder(source, path, taxonomy).build(tree, encoding)


class Parsed:
    """A file's text and CPython's tree of it, kept while the file is fixed: the model of the text
    with whole lines inserted (each fixed class's declaration, an import) follows from them without
    a second parse. The tree keeps the original's lines: the model is built on it again, the
    declarations in their classes, then moved to the new lines (:meth:`with_lines`); the device
    uses found by the first build's walks (the costly part) are reused, for the same nodes."""

    def __init__(
        self,
        source: str,
        tree: ast.Module,
        path: str,
        taxonomy: Taxonomy,
        encoding: str,
        memo: dict[object, object],
    ):
        self.source, self.tree, self.path, self.taxonomy = source, tree, path, taxonomy
        self.encoding, self.memo = encoding, memo
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
            builder = _Builder(source, self.path, self.taxonomy, self.memo, injected, text, dirty)
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
                elif not isinstance(stmt, (*_COMPOUND, *_DEFS)):
                    owners.append((stmt.lineno, stmt.end_lineno or stmt.lineno, body, i, around))
        classes += [
            (s, ())
            for s, nested in _module_statements(self.tree.body, False)
            if nested and isinstance(s, ast.ClassDef)
        ]
        while classes:
            cls, around = classes.pop()
            around = (*around, id(cls))
            for i, stmt in enumerate(cls.body):
                if isinstance(stmt, ast.ClassDef):
                    classes.append((stmt, around))
                elif not isinstance(stmt, _COMPOUND):
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
    found = _Builder(text, path, taxonomy).import_statement(stmt, False)
    moved = replace(found.site, line=found.site.line + first - 1, end_line=found.site.end_line + first - 1)
    return replace(found, site=moved)


class _Unmovable(Exception):
    """A recorded text spans an inserted line: moving the record would keep the old text."""


#: Where the model holds line numbers outside of :class:`Site` s: fields of these names, and, in
#: :class:`FileModel`'s tuples of plain values, these members of each entry.
_LINE_FIELDS = frozenset({"line", "end_line"})
_LINE_MEMBERS = {
    "noqa": (0,),
    "deletions": (1,),
    "main_guards": (0, 1),
    "test_functions": (1,),
    "conditional_blocks": (0, 1),
    "try_blocks": (0, 1, 2, 3),
    "runtime_names": (1,),
}


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

    def members(self, entries: tuple[tuple, ...], at: tuple[int, ...]) -> tuple[tuple, ...]:
        line_of = self.line_of
        return tuple(tuple(line_of(x) if i in at else x for i, x in enumerate(e)) for e in entries)


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
        elif kind is FileModel and name in _LINE_MEMBERS:
            values.append(f"m.members(o.{name}, {_LINE_MEMBERS[name]!r})")
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


def _reason(e: BaseException) -> str:
    if isinstance(e, SyntaxError):
        return f"SyntaxError: {e.msg}"
    if isinstance(e, RecursionError):
        return "the file is nested too deeply to parse (recursion limit)"
    if isinstance(e, MemoryError):
        return "the file is nested too deeply to parse (parser out of memory)"
    if isinstance(e, UnicodeDecodeError):
        return f"not valid {e.encoding} (byte {e.object[e.start]:#04x} at offset {e.start})"
    return f"{type(e).__name__}: {e}"


_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)
_COMPOUND = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)
if hasattr(ast, "TryStar"):
    _COMPOUND += (ast.TryStar,)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


_OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@functools.lru_cache(maxsize=64)
def _expression(text: str) -> ast.expr:
    """The tree of the expression *text* (a declaration's value: a handful per run; not mutated)."""
    return ast.parse(text, mode="eval").body


def _one_line(text: str, limit: int) -> str:
    """*text* on one line, each run of blanks a space, shortened to *limit* characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def split_lines(source: str) -> list[str]:
    """Lines as the tokenizer counts them (only \\n, \\r\\n and \\r end a line), ends kept."""
    if not any(c in source for c in _OTHER_BREAKS):
        return source.splitlines(keepends=True)  # the same lines, several times faster
    return _LINE.findall(source)


def dotted_name(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain, else ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


class _Builder:
    def __init__(
        self,
        source: str,
        path: str,
        taxonomy: Taxonomy,
        memo: dict[object, object] | None = None,
        injected: Mapping[tuple[int, int], tuple[int, str]] | None = None,
        text: str | None = None,
        dirty: set[int] | None = None,
        devices: bool = True,
    ):
        """*memo*: what the costly steps found (device uses, classes, methods, word indexes), by the
        ids of their nodes and what else they depend on, kept across builds on one tree.
        *injected*: classes (line, col) whose body starts with a declaration the tree lacks: the
        line it gets (a placeholder, see :meth:`Parsed.with_lines`) and its text. *text*: the
        file's text with those lines (it decides whether a device word occurs at all). *dirty*:
        ids of the classes holding a method put in the tree since the memo was filled. Without
        *devices*, no class is scanned for device uses (see :func:`build_model`)."""
        self.source = source
        self.memo = memo
        self.injected = injected or {}
        self.dirty = dirty or set()
        self.path = path
        self.tax = taxonomy
        self.lines: list[str] = self.remember("lines", lambda: split_lines(source))
        self.enum_names = {taxonomy.enum_name}
        self.constants: dict[str, object] = {}
        self.reassigned: set[str] = set()
        # constant name -> (line, "extend" | "remove", value) changes after its assignment
        self.mutations: dict[str, list[tuple[int, str, object]]] = {}
        self.at_line = 1 << 30  # line of the statement whose literals are read (changes after it are unknown)
        self.opt_in_keywords = {d.opt_in for d in taxonomy.devices.values() if d.opt_in}
        self.functions = set(taxonomy.instantiation_functions)
        self.vocabulary = _vocabulary(taxonomy)
        # Module-level helper functions and the devices their bodies use: a test that calls
        # `_make_cuda_tensor()` uses cuda as surely as one that calls torch.cuda itself.
        self.helper_devices: dict[str, tuple[tuple[str, str], ...]] = {}
        # Words whose absence from a piece of source proves it has no device use; helper names join
        # them once the helpers are known.
        self.device_words = list(self.vocabulary.words)
        self.lowered: str = self.remember("lowered", source.lower)
        self.text = text
        self.devices = devices
        self.scan_devices = False  # decided once the classes to scan are known
        self._device_index: _WordIndex | None = None  # built on first use
        self._offsets: tuple[list[int], list[int]] | None = None
        self.scan_classes: set[int] = set()
        # Method names (of scanned classes) whose bodies lead to device uses, across the file.
        self.method_helpers: set[str] = set()
        self.ascii = source.isascii()  # then byte columns are character columns

    def remember(self, key: object, compute: Callable[[], object], whole_text: bool = True) -> typing.Any:
        """*compute*'s value, once when the builds on a tree share a memo. *whole_text*: it depends
        on the file's text (and *key*), so only the builds on the same text share it; else on the
        node *key* names alone, whose text stays whatever else changes."""
        if self.memo is None or (whole_text and self.memo.get("source") is not self.source):
            return compute()
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = compute()
        return found

    # -- positions -------------------------------------------------------------------------
    def col(self, line: int, col: int) -> int:
        """Convert ast's UTF-8 byte column to a character column."""
        if self.ascii:
            return col
        if 0 < line <= len(self.lines):
            text = self.lines[line - 1]
            if not text.isascii():
                return len(text.encode("utf-8")[:col].decode("utf-8", "replace"))
        return col

    def site(self, node: ast.AST, text: str | None = None) -> Site:
        line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        end_line = node.end_lineno or line  # type: ignore[attr-defined]
        end_col = node.end_col_offset or 0  # type: ignore[attr-defined]
        if text is None:
            text = self.segment(node)
        if self.ascii:
            return Site(line, col, text, end_line, end_col)
        return Site(line, self.col(line, col), text, end_line, self.col(end_line, end_col))

    def header_site(self, node: ast.AST, text: str) -> Site:
        """A def/class statement's position, spanning its keyword and name only."""
        line = node.lineno  # type: ignore[attr-defined]
        col = self.col(line, node.col_offset)  # type: ignore[attr-defined]
        return Site(line, col, text, line, col + len(text))

    def header_colon(self, node: ast.ClassDef) -> Site | None:
        """The place just after the colon that ends *node*'s header, read from the text after its last
        base, keyword or type parameter (or after its name), where only brackets, commas, comments
        and line continuations may come first; None when anything else does."""
        parts = [*node.bases, *node.keywords, *getattr(node, "type_params", ())]
        lines = self.lines
        if parts:
            last = max(parts, key=lambda p: (p.end_lineno or 0, p.end_col_offset or 0))
            line = last.end_lineno or last.lineno
            col = self.col(line, last.end_col_offset or 0)
        else:  # `class`, blanks, the name (as written: the tree's is NFKC-normalised)
            line = node.lineno
            text = lines[line - 1]
            col = self.col(line, node.col_offset) + len("class")
            while col < len(text) and text[col] in " \t\f":
                col += 1
            while col < len(text) and (text[col].isalnum() or text[col] == "_" or not text[col].isascii()):
                col += 1
        while line <= len(lines):
            text = lines[line - 1]
            while col < len(text):
                ch = text[col]
                if ch == ":":
                    return Site(line, col + 1)
                if ch == "#":
                    break
                if ch not in _HEADER_FILLER:
                    return None
                col += 1
            line, col = line + 1, 0
        return None

    def segment(self, node: ast.AST, limit: int = 120) -> str:
        """The node's source text on one line, shortened to *limit* characters."""
        l1, c1 = node.lineno, node.col_offset  # type: ignore[attr-defined]
        l2, c2 = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if l2 is None or c2 is None or not 0 < l1 <= l2 <= len(self.lines):
            return ""
        if l1 == l2:
            text = self.slice(l1, c1, c2)
        else:
            parts = [self.slice(l1, c1, None)]
            for ln in range(l1 + 1, min(l2, l1 + 8)):
                parts.append(self.lines[ln - 1])
            parts.append("..." if l2 - l1 >= 8 else self.slice(l2, 0, c2))
            text = "".join(parts)
        return _one_line(text, limit)

    def slice(self, line: int, start: int, end: int | None) -> str:
        """Characters of *line* between ast byte columns *start* and *end*."""
        text = self.lines[line - 1]
        if text.isascii():
            return text[start:end]
        return text.encode("utf-8")[start:end].decode("utf-8", "replace")

    # -- where device words are ---------------------------------------------------------------
    def hot(self, first: int, last: int) -> bool:
        """Whether a line from *first* to *last* names a device word (or a helper's name)."""
        return self.device_index().lines(first, last)

    def names_device_word(self) -> bool:
        """Whether the file's text names a device word at all (the index is built for the walk
        anyway: its occurrences say so without another pass over the text)."""
        if self.text is not None:  # a fixed text, modelled on its original's tree
            lowered = self.text.lower()
            return any(w in lowered for w in self.device_words)
        return bool(self.device_index().hits)

    def device_index(self) -> _WordIndex:
        if self._device_index is None:
            offsets = self.offsets() if self.ascii else _offsets([ln.lower() for ln in self.lines])
            self._device_index = _WordIndex(self.lowered, offsets, self.ascii, self.device_words)
        return self._device_index

    def offsets(self) -> tuple[list[int], list[int]]:
        """Where each line starts and ends in the source."""
        if self._offsets is None:
            self._offsets = self.remember("offsets", lambda: _offsets(self.lines))
        return self._offsets

    def note_word(self, word: str) -> None:
        """*word* (lowercase) is a device word from now on."""
        if self._device_index is not None:
            self._device_index.add(word)

    # -- module level ----------------------------------------------------------------------
    def build(self, tree: ast.Module, encoding: str) -> FileModel:
        statements = list(_module_statements(tree.body, nested=False))
        for stmt, nested in statements:
            self.note_module_statement(stmt, nested)
        # Device uses feed the inference of undeclared classes (and of their bases) and the API
        # checks of classes whose classification forbids them: on a migrated file most classes need
        # neither, and the scan, a walk of every method body, would be pure cost.
        self.scan_classes = self.classes_to_scan(statements) if self.devices else set()
        self.scan_devices = bool(self.scan_classes) and self.names_device_word()
        for stmt, _ in statements:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kinds = _strongest(self.device_uses(stmt))
                if kinds:
                    self.helper_devices[stmt.name] = kinds
                    self.device_words.append(stmt.name.lower())
                    self.note_word(stmt.name.lower())
        classes = []
        calls = []
        imports = []
        deletions = []
        guards = []
        functions = []
        blocks: list[tuple[int, int]] = []
        tries: list[tuple[int, int, int, int]] = []
        runtime: list[tuple[str, int]] = []
        dynamic: list[tuple[Site, str]] = []
        # The statements that may create classes name one of these functions in their text, and
        # those that may end the import one of those: found once (a search per statement is
        # quadratic) in the text of the module's statements other than its classes, whose bodies
        # neither search reads (they are most of a test file's text).
        outside = self.remember("outside", lambda: self.outside_classes(tree.body))
        dynamic_text = self.remember(
            "dynamic",
            lambda: _WordIndex(self.source, self.offsets(), self.ascii, _DYNAMIC_NAMES, True, outside),
        )
        exits = self.remember(
            "exits", lambda: _WordIndex(self.source, self.offsets(), self.ascii, _EXIT_NAMES, False, outside)
        )
        for stmt, nested in statements:
            if isinstance(stmt, _TRY) and stmt.handlers and stmt.body:
                last = stmt.handlers[-1]
                tries.append(
                    (
                        stmt.body[0].lineno,
                        stmt.body[-1].end_lineno or 0,
                        stmt.handlers[0].lineno,
                        last.end_lineno or 0,
                    )
                )
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                static = not nested and isinstance(stmt.value, (ast.Name, ast.Attribute))
                if not static:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    runtime += [(n, stmt.lineno) for t in targets for n in _target_names(t)]
            creates = dynamic_text.names_word(stmt)
            if creates and not isinstance(
                stmt, (*_COMPOUND, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                dynamic += self.dynamic_creation(stmt, dynamic_text)
            elif creates and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # a module function that writes globals() or adds tests to a class (called at import)
                dynamic += [
                    d for d in self.dynamic_creation(stmt, dynamic_text) if d[1] in ("globals", "setattr")
                ]
            if isinstance(stmt, (ast.Expr, ast.Raise, ast.Assign)):
                dynamic += self.early_exit(stmt, exits)
            if isinstance(stmt, ast.Delete):
                deletions += [(t.id, stmt.lineno) for t in stmt.targets if isinstance(t, ast.Name)]
            elif isinstance(stmt, ast.If) and _is_main_guard(stmt.test):
                guards.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith(
                self.tax.test_method_prefix
            ):
                functions.append((stmt.name, stmt.lineno))
            blocks += _conditional_blocks(stmt)
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                imports.append(self.import_statement(stmt, nested))
            elif isinstance(stmt, ast.ClassDef):
                classes.append(self.class_info(stmt, nested))
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = self.instantiation(stmt.value)
                if call is not None:
                    calls.append(call)
        classes = self.attribute_uses(classes)
        newline = "\r\n" if "\r\n" in self.source[:4096] else ("\r" if "\r" in self.source[:4096] else "\n")
        return FileModel(
            self.path,
            tuple(classes),
            tuple(calls),
            self.remember("noqa", self.noqa),
            None,
            encoding,
            newline,
            imports=tuple(imports),
            deletions=tuple(deletions),
            main_guards=tuple(guards),
            test_functions=tuple(functions),
            conditional_blocks=tuple(blocks),
            try_blocks=tuple(tries),
            runtime_names=tuple(runtime),
            dynamic=tuple(dynamic),
        )

    def outside_classes(self, body: list[ast.stmt]) -> list[tuple[int, int]]:
        """The spans of text (whole lines) of the module's statements that are not classes."""
        starts, ends = self.offsets()
        spans: list[tuple[int, int]] = []
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                continue
            first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
            start, end = starts[first - 1], ends[(stmt.end_lineno or stmt.lineno) - 1]
            if spans and spans[-1][1] >= start:  # statements sharing a line: one span
                spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
            else:
                spans.append((start, end))
        return spans

    def early_exit(self, stmt: ast.stmt, names: _WordIndex) -> list[tuple[Site, str]]:
        """A module-level statement that may end the module's import early: ``sys.exit()``,
        ``raise unittest.SkipTest``, ``pytest.skip(allow_module_level=True)``, ``importorskip``."""
        if isinstance(stmt, ast.Raise):
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if exc is not None and dotted_name(exc).rpartition(".")[2] in (
                "SkipTest",
                "Skipped",
                "SystemExit",
            ):
                return [(self.site(stmt), "exit")]
            return []
        for node in names.walk(stmt):
            if isinstance(node, ast.Call) and dotted_name(node.func) in _EXIT_CALLS:
                return [(self.site(node), "exit")]
        return []

    def dynamic_creation(self, stmt: ast.stmt, names: _WordIndex) -> list[tuple[Site, str]]:
        """Classes or tests *stmt* creates in a way only running it tells (``globals().update``...);
        *names*: where the functions that do so are named."""
        found = []
        for node in names.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and _is_call_to(t.value, _SCOPE_FUNCTIONS):
                        found.append((self.site(node), "globals"))
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "update"
                and _is_call_to(func.value, _SCOPE_FUNCTIONS)
            ):
                found.append((self.site(node), "globals"))
            elif isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3:
                found.append((self.site(node), "type"))
            elif isinstance(func, ast.Name) and func.id == "setattr" and node.args:
                target = dotted_name(node.args[0])
                found.append((self.site(node, target or self.segment(node)), "setattr"))
            elif isinstance(func, ast.Name) and func.id == "exec":
                found.append((self.site(node), "exec"))
        return found

    def import_statement(self, stmt: ast.Import | ast.ImportFrom, nested: bool) -> ImportStatement:
        module = None
        if isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
        names = tuple((a.name, a.asname) for a in stmt.names)
        return ImportStatement(self.site(stmt, ""), module, names, nested)

    def note_module_statement(self, stmt: ast.stmt, nested: bool = False) -> None:
        """Record enum aliases and string constants that device filters may name.

        A list or tuple constant changed later (``devices.append("xpu")``, ``+=``, ``extend``,
        ``remove``) is followed when the change is unconditional and static; otherwise the name
        becomes unresolvable, so a filter that uses it is reported, never silently wrong."""
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if alias.name == self.tax.enum_name:
                    self.enum_names.add(alias.asname or alias.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if stmt.value is None:
                return
            for t in targets:
                if not isinstance(t, ast.Name):
                    continue
                if dotted_name(stmt.value).rpartition(".")[2] in self.enum_names and (
                    dotted_name(stmt.value) in self.enum_names
                    or dotted_name(stmt.value).endswith("." + self.tax.enum_name)
                ):
                    self.enum_names.add(t.id)
                try:
                    value = self.literal(stmt.value)
                except RecursionError:  # a 10,000-term `a + b + ...` is legal Python
                    value = _UNKNOWN
                if t.id in self.constants and self.constants[t.id] != value:
                    self.reassigned.add(t.id)
                self.constants[t.id] = value
                self.mutations.pop(t.id, None)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            value = self.literal(stmt.value) if isinstance(stmt.op, ast.Add) else _UNKNOWN
            self.mutate(name, value if isinstance(value, tuple) else _UNKNOWN, "extend", nested, stmt.lineno)
        elif (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.attr in _MUTATORS
        ):
            call = stmt.value
            name, how = call.func.value.id, call.func.attr  # type: ignore[attr-defined]
            args = [self.literal(a) for a in call.args]
            value: object = _UNKNOWN
            if how in ("append", "remove") and len(args) == 1 and isinstance(args[0], str):
                value = (args[0],)
            elif how == "extend" and len(args) == 1 and isinstance(args[0], tuple):
                value = args[0]
            self.mutate(name, value, how if how != "append" else "extend", nested, stmt.lineno)

    def mutate(self, name: str, value: object, how: str, nested: bool, line: int) -> None:
        """Record ``name.extend(value)`` / ``name.remove(value)``; a use after it sees the change."""
        if name in self.constants:
            self.mutations.setdefault(name, []).append((line, how, _UNKNOWN if nested else value))

    def value_at(self, name: str) -> object:
        """The constant *name* as the statement at ``self.at_line`` sees it, mutations applied."""
        value = self.constants[name]
        for line, how, change in self.mutations.get(name, ()):
            if line > self.at_line:
                break
            if not isinstance(value, tuple) or not isinstance(change, tuple):
                return _UNKNOWN
            if how == "extend":
                value = value + change
            elif change[0] in value:
                i = value.index(change[0])
                value = value[:i] + value[i + 1 :]
            else:  # list.remove raises: the module would not import
                return _UNKNOWN
        return value

    def literal(self, node: ast.expr) -> object:
        """A str / bool / None / tuple of str value, or the sentinel ``_UNKNOWN``."""
        if (isinstance(node, ast.Constant) and isinstance(node.value, (str, bool))) or (
            isinstance(node, ast.Constant) and node.value is None
        ):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            out: list[str] = []
            for elt in node.elts:
                v = self.literal(elt)
                if isinstance(v, str):
                    out.append(v)
                elif isinstance(v, tuple):
                    out.extend(v)
                else:
                    return _UNKNOWN
            return tuple(out)
        if isinstance(node, ast.Name) and node.id in self.constants and node.id not in self.reassigned:
            return self.value_at(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.literal(node.left), self.literal(node.right)
            if isinstance(left, tuple) and isinstance(right, tuple):
                return left + right
        return _UNKNOWN

    # -- classes ---------------------------------------------------------------------------
    def classes_to_scan(self, statements: list[tuple[ast.stmt, bool]]) -> set[int]:
        """ids of the class nodes whose device uses someone reads: undeclared classes (the inference,
        HWC005) and, transitively, their bases in the file; declared classes whose classification
        forbids accelerator API calls (HWC204), runs on every device (HWC301) or on one accelerator
        (HWC302). Only classes of a generic runner's own device (CPU) are left out."""
        by_name: dict[str, list[ast.ClassDef]] = {}
        todo: list[ast.ClassDef] = []
        generic_devices = {
            r.device
            for r in self.tax.runners.values()
            for n in r.runs
            if self.tax.classifications.get(n) and self.tax.classifications[n].instantiation == "forbidden"
        }
        allowed = {
            n
            for n, c in self.tax.classifications.items()
            if c.availability_checks != "forbidden" and c.device is not None and c.device in generic_devices
        }
        for stmt, _ in statements:
            if not isinstance(stmt, ast.ClassDef):
                continue
            by_name.setdefault(stmt.name, []).append(stmt)
            declared = [d for d in (self.declaration(s) for s in stmt.body) if d is not None]
            injected = self.injected_declaration(stmt)
            if injected is not None:
                declared.insert(0, injected[0])
            if not declared or declared[-1].member not in allowed:
                todo.append(stmt)
        wanted: set[int] = set()
        while todo:
            node = todo.pop()
            if id(node) in wanted:
                continue
            wanted.add(id(node))
            for base in node.bases:
                if isinstance(base, ast.Name):
                    todo.extend(by_name.get(base.id, ()))
        return wanted

    def attribute_uses(self, classes: list[ClassInfo]) -> list[ClassInfo]:
        """Give each scanned class its uses per test, through its bases in the file."""
        if not self.scan_devices:
            return classes
        local = FileModel(self.path, tuple(classes))
        prefix = self.tax.test_method_prefix
        out = []
        outside: dict[int, list[DeviceUse]] = {}  # id of a class -> its uses outside its methods
        for cls in classes:
            chain = mro(local, cls)
            methods: dict[str, Method] = {}
            for c in chain:
                for m in c.methods:
                    methods.setdefault(m.name, m)
            closure = _Closure(methods)
            shared: list[DeviceUse] = []
            for c in chain:
                if id(c) not in outside:  # a base's are read for each class derived from it
                    in_methods = {(u.site.line, u.site.col) for m in c.methods for u in m.device_uses}
                    outside[id(c)] = [u for u in c.device_uses if (u.site.line, u.site.col) not in in_methods]
                shared += outside[id(c)]
            for name in _EVERY_TEST:
                shared += closure.uses(name)
            tests = tuple((n, closure.uses(n)) for n in methods if n.startswith(prefix))
            out.append(replace(cls, shared_uses=tuple(dict.fromkeys(shared)), test_uses=tests))
        return out

    def class_info(self, node: ast.ClassDef, nested: bool) -> ClassInfo:
        scan = id(node) in self.scan_classes and self.scan_devices
        injected = self.injected_declaration(node)
        if self.memo is None or injected is not None or id(node) in self.dirty:
            return self.new_class_info(node, nested, scan, injected)
        # what a class's methods call is read against the helpers of the classes before it
        key = ("class", id(node), scan, frozenset(self.method_helpers))
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = (self.new_class_info(node, nested, scan, None), set(self.method_helpers))
        info, self.method_helpers = found  # type: ignore[misc]
        self.method_helpers = set(self.method_helpers)
        return info

    def new_class_info(
        self, node: ast.ClassDef, nested: bool, scan: bool, injected: tuple[Declaration, Site] | None
    ) -> ClassInfo:
        prefix = self.tax.test_method_prefix
        declarations = []
        methods = []
        if injected is not None:
            declarations.append(injected[0])
        device_attribute: Site | None = None
        device_value: str | None = None
        assigned: list[str] = []
        conditional: list[str] = []
        for stmt, nested in _class_body_statements(node.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.append(self.method(stmt, prefix, scan))
                if nested and stmt.name.startswith(prefix):
                    conditional.append(stmt.name)
                continue
            decl = self.declaration(stmt)
            if decl is not None:
                declarations.append(replace(decl, conditional=True) if nested else decl)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, _CALLABLE_VALUES):
                # `test_x = helper` is collected; `test_ns = "..."` is not (pytest wants a callable)
                for name in (n for t in stmt.targets for n in _target_names(t)):
                    if name.startswith(prefix):
                        assigned.append(name)
                        if nested:
                            conditional.append(name)
            if (
                isinstance(stmt, ast.Assign)
                and not nested
                and stmt.value is not None
                and any(isinstance(t, ast.Name) and t.id in self.tax.device_params for t in stmt.targets)
            ):
                device_attribute = self.site(stmt)
                value = stmt.value
                device_value = (
                    value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
                )
        if scan:
            methods = self.link_helpers(node, methods)
        outside = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        uses = [u for m in methods for u in m.device_uses]
        if scan:
            uses += [
                replace(u, decorator=True) if u.site.line < node.lineno else u
                for u in self.device_uses(*node.decorator_list, *node.bases, *node.keywords, *outside)
            ]
        # methods nested in an if/try of the body are walked twice (as methods and as statements)
        # (dict, not set: the order of uses at one position must not depend on the hash seed)
        uses = sorted(dict.fromkeys(uses), key=lambda u: (u.site.line, u.site.col))
        first = node.body[0]
        value = first.value if isinstance(first, ast.Expr) else None
        doc = first if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
        return ClassInfo(
            name=node.name,
            site=self.header_site(node, f"class {node.name}"),
            end_line=node.end_lineno or node.lineno,
            bases=tuple(dotted_name(b) for b in node.bases),
            decorators=tuple(self.decorator(d) for d in node.decorator_list),
            declarations=tuple(declarations),
            methods=tuple(methods),
            availability_checks=tuple(u.site for u in uses if u.api),
            nested=nested,
            colon=self.header_colon(node),
            body=injected[1] if injected is not None and doc is None else self.site(first, ""),
            docstring=self.site(doc, "") if doc is not None else None,
            device_uses=tuple(u for u in uses if u.kind != NONE),
            device_attribute=device_attribute,
            device_value=device_value,
            assigned_tests=tuple(dict.fromkeys(assigned)),
            conditional_tests=tuple(dict.fromkeys(conditional)),
        )

    def link_helpers(self, node: ast.ClassDef, methods: list[Method]) -> list[Method]:
        """Record which methods call (through ``self``/``cls``) a method that leads to device uses,
        in this class or a class before it; a method that does joins the helpers."""
        defs = {
            id(m): d
            for m, d in zip(
                methods,
                (s for s, _ in _class_body_statements(node.body) if isinstance(s, _DEFS)),
                strict=True,
            )
        }
        helpers = self.method_helpers | {m.name for m in methods if m.device_uses}
        if not helpers:
            return methods
        called = {
            id(m): self.remember(("calls", id(defs[id(m)])), lambda m=m: self.self_calls(defs[id(m)]), False)
            for m in methods
        }
        changed = True
        while changed:
            changed = False
            for m in methods:
                if m.name not in helpers and called[id(m)] & helpers:
                    helpers.add(m.name)
                    changed = True
        self.method_helpers |= helpers
        return [
            replace(m, calls=tuple(sorted(called[id(m)] & helpers)))
            if called.get(id(m), set()) & helpers
            else m
            for m in methods
        ]

    def self_calls(self, node: ast.AST) -> set[str]:
        """Names called as ``self.name(`` or ``cls.name(`` in *node*'s lines."""
        starts, ends = self.offsets()
        start, end = starts[node.lineno - 1], ends[(node.end_lineno or node.lineno) - 1]  # type: ignore[attr-defined]
        text = self.source  # searched in place: a copy of every method's lines cost more than the search
        found: set[str] = set()
        for receiver, pattern in _SELF_CALLS:
            if text.find(receiver, start, end) >= 0:
                found.update(
                    m.group(1) for m in pattern.finditer(text, start, end) if not _after_word(text, m.start())
                )
        return found

    def device_uses(self, *nodes: ast.AST) -> tuple[DeviceUse, ...]:
        """The device uses under *nodes*; a walk only where their text names a device or a helper."""
        if not self.scan_devices or not nodes:
            return ()
        key = tuple(map(id, nodes)) if self.memo is not None else ()
        if key:
            found = self.memo.get(key)  # type: ignore[union-attr]
            if found is not None:
                return found  # type: ignore[return-value]
        # A def's lineno is its `def` line: its decorators start above it.
        first = min(d.lineno for n in nodes for d in (n, *getattr(n, "decorator_list", ())))  # type: ignore[attr-defined]
        last = max(getattr(n, "end_lineno", None) or n.lineno for n in nodes)  # type: ignore[attr-defined]
        found = tuple(_DeviceUses(self, *nodes).found) if self.hot(first, last) else ()
        if key:
            self.memo[key] = found  # type: ignore[index]
        return found

    def injected_declaration(self, node: ast.ClassDef) -> tuple[Declaration, Site] | None:
        """The declaration (and its statement's place) that starts *node*'s body in the text being
        modelled though not in the tree (see :meth:`Parsed.with_lines`), as if it were parsed."""
        if not self.injected:
            return None
        found = self.injected.get((node.lineno, self.col(node.lineno, node.col_offset)))
        if found is None:
            return None
        line, text = found
        statement = text.strip()
        indent = len(text) - len(text.lstrip())
        value_text = statement.partition("=")[2].strip()
        value = _expression(value_text)
        col = indent + statement.index(value_text, statement.index("="))
        site = Site(line, col, _one_line(value_text, 120), line, col + len(value_text))
        statement_site = Site(line, indent, "", line, indent + len(statement))
        return Declaration(site, self.enum_member(value)), statement_site

    def declaration(self, stmt: ast.stmt) -> Declaration | None:
        attr = self.tax.attribute
        if isinstance(stmt, ast.Assign):
            if not any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
                return None
            value: ast.expr | None = stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            if not (isinstance(stmt.target, ast.Name) and stmt.target.id == attr):
                return None
            value = stmt.value
        else:
            return None
        if value is None:  # `hw_classification: HardwareClassification` assigns nothing
            return Declaration(self.site(stmt), None)
        return Declaration(self.site(value), self.enum_member(value))

    def enum_member(self, node: ast.expr) -> str | None:
        """``MEMBER`` for ``<enum>.MEMBER`` where <enum> is the enum, an alias, or a qualified name."""
        if not isinstance(node, ast.Attribute):
            return None
        owner = dotted_name(node.value)
        if not owner:
            return None
        last = owner.rpartition(".")[2]
        if owner in self.enum_names or ("." in owner and last == self.tax.enum_name):
            return node.attr
        return None

    def method(self, node: ast.FunctionDef | ast.AsyncFunctionDef, prefix: str, scan: bool = True) -> Method:
        if self.memo is None:
            return self.new_method(node, prefix, scan)
        key = ("method", id(node), scan)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = self.new_method(node, prefix, scan)
        return found  # type: ignore[return-value]

    def new_method(self, node: ast.FunctionDef | ast.AsyncFunctionDef, prefix: str, scan: bool) -> Method:
        a = node.args
        args = [*a.posonlyargs, *a.args, *a.kwonlyargs]
        if a.vararg:
            args.append(a.vararg)
        if a.kwarg:
            args.append(a.kwarg)
        return Method(
            name=node.name,
            site=self.header_site(
                node, f"{'async ' if isinstance(node, ast.AsyncFunctionDef) else ''}def {node.name}"
            ),
            is_test=node.name.startswith(prefix),
            params=tuple(x.arg for x in args),
            param_sites=tuple(self.site(x, x.arg) for x in args),
            decorators=tuple(self.decorator(d) for d in node.decorator_list),
            device_uses=self.method_uses(node) if scan else (),
            end_line=node.end_lineno or node.lineno,
        )

    def method_uses(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[DeviceUse, ...]:
        """The device uses of a method, those of its decorators (above the `def` line) marked."""
        uses = self.device_uses(node)
        if not node.decorator_list or not uses:
            return uses
        return tuple(replace(u, decorator=True) if u.site.line < node.lineno else u for u in uses)

    def decorator(self, node: ast.expr) -> Decorator:
        target = node.func if isinstance(node, ast.Call) else node
        name = dotted_name(target).rpartition(".")[2]
        return Decorator(name, self.site(node))

    # -- instantiation calls ---------------------------------------------------------------
    def instantiation(self, call: ast.Call) -> Instantiation | None:
        func = call.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name not in self.functions:
            return None
        args: dict[str, ast.expr] = {}
        dynamic = False
        for i, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                dynamic = True
                break
            if i < len(self.tax.positional):
                args[self.tax.positional[i]] = arg
        for kw in call.keywords:
            if kw.arg is None:
                dynamic = True
            else:
                args[kw.arg] = kw.value
        self.at_line = call.lineno
        first_key = self.tax.positional[0] if self.tax.positional else ""
        first = args.get(first_key, call.args[0] if call.args else None)
        class_name = first.id if isinstance(first, ast.Name) else None
        opt_ins = []
        for kw in sorted(self.opt_in_keywords):
            if kw in args:
                v = self.literal(args[kw])
                opt_ins.append((kw, bool(v) if isinstance(v, bool) or v is None else None))
        only_for = self.device_filter(args.get("only_for"))
        except_for = self.device_filter(args.get("except_for"))
        self.at_line = 1 << 30
        return Instantiation(
            site=self.site(call, self.segment(call)),
            function=dotted_name(func) or name,
            class_name=class_name,
            only_for=only_for,
            except_for=except_for,
            opt_ins=tuple(opt_ins),
            dynamic=dynamic,
        )

    def device_filter(self, node: ast.expr | None) -> DeviceFilter | None:
        if node is None:
            return None
        value = self.literal(node)
        if value is None:  # only_for=None is the default: no filter
            return None
        if isinstance(value, str):
            # torch tests `device_type in only_for`: on a string that is a substring test, so
            # only_for="cpu,cuda" keeps both cpu and cuda (and "tpu" keeps nothing)
            known = (*self.tax.devices, *self.tax.backends())
            return DeviceFilter(self.site(node), (value, *(d for d in known if d in value and d != value)))
        if isinstance(value, tuple):
            return DeviceFilter(self.site(node), value)
        return DeviceFilter(self.site(node), None)

    # -- comments --------------------------------------------------------------------------
    def noqa(self) -> tuple[tuple[int, tuple[str, ...]], ...]:
        if "noqa" not in self.lowered:
            return ()
        out = []
        for i, line in enumerate(self.lines, 1):
            if "#" not in line:
                continue
            m = _NOQA.search(line)
            if m:
                codes = m.group("codes")
                out.append((i, tuple(c.upper() for c in re.split(r"[,\s]+", codes) if c) if codes else ()))
        return tuple(out)


def _module_statements(body: Iterable[ast.stmt], nested: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """Module-level statements, descending into compound statements but not into defs."""
    for stmt in body:
        yield stmt, nested
        if isinstance(stmt, _COMPOUND):
            for name in ("body", "orelse", "finalbody"):
                yield from _module_statements(getattr(stmt, name, ()), True)
            for handler in getattr(stmt, "handlers", ()):
                yield from _module_statements(handler.body, True)
        elif hasattr(ast, "Match") and isinstance(stmt, ast.Match):
            for case in stmt.cases:
                yield from _module_statements(case.body, True)


def _conditional_blocks(stmt: ast.stmt) -> list[tuple[int, int]]:
    """Line ranges of *stmt*'s bodies that may be skipped (a with body, a try body always run)."""
    bodies: list[list[ast.stmt]] = []
    if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While)):
        bodies = [stmt.body, stmt.orelse]
    elif isinstance(stmt, _TRY):
        bodies = [h.body for h in stmt.handlers] + [stmt.orelse]
    elif hasattr(ast, "Match") and isinstance(stmt, ast.Match):
        bodies = [case.body for case in stmt.cases]
    return [(b[0].lineno, b[-1].end_lineno or b[-1].lineno) for b in bodies if b]


_TRY = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_HEADER_FILLER = frozenset(" \t\f()[],\\\r\n")  # what may sit between a class's last base and its colon
_DECORATED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_MUTATORS = frozenset({"append", "extend", "remove", "insert", "pop", "clear"})
_SCOPE_FUNCTIONS = frozenset({"globals", "locals", "vars"})
_DYNAMIC_NAMES = (*_SCOPE_FUNCTIONS, "type", "setattr", "exec")  # what dynamic_creation looks for
_EXIT_NAMES = ("exit", "quit", "skip")  # in the text of every call in _EXIT_CALLS
_EXIT_CALLS = frozenset(
    {"sys.exit", "exit", "quit", "os._exit", "pytest.skip", "pytest.importorskip", "importorskip"}
)
_CALLABLE_VALUES = (ast.Name, ast.Attribute, ast.Lambda, ast.Call)


def _class_body_statements(body: list[ast.stmt], nested: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """A class body's statements, descending into if/try/with/for/while (not into defs)."""
    for stmt in body:
        yield stmt, nested
        if isinstance(stmt, _COMPOUND):
            for name in ("body", "orelse", "finalbody"):
                # a with body (and a try body) runs whenever the class body does
                inner = nested or not (isinstance(stmt, (ast.With, ast.AsyncWith, *_TRY)) and name == "body")
                yield from _class_body_statements(getattr(stmt, name, ()), inner)
            for handler in getattr(stmt, "handlers", ()):
                yield from _class_body_statements(handler.body, True)


def _is_call_to(node: ast.AST, names: frozenset[str]) -> bool:
    """``f()`` for a name f in *names*."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _target_names(target: ast.expr) -> list[str]:
    """Names an assignment target binds."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _target_names(elt)]
    return []


def _is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides) and any(
        isinstance(x, ast.Constant) and x.value == "__main__" for x in sides
    )


_UNKNOWN = object()

#: The device of a use that names accelerators without saying which (``requires_gpu``, ``HAS_GPU``).
ANY_ACCELERATOR = "accelerator"
# torch modules named after a library that exists for one device only (ROCm reports cuda too).
_TORCH_MODULE_DEVICES = {"cudnn": "cuda"}
# Collective backends that exist for one device only: `backend="nccl"`, `requires_nccl()`.
_BACKEND_DEVICES = {"nccl": "cuda", "xccl": "xpu"}
_LIBRARY_DEVICES = {**_TORCH_MODULE_DEVICES, **_BACKEND_DEVICES}
_ACCELERATOR_WORDS = frozenset({"gpu", "gpus", "multigpu", "accelerator", "accelerators"})
# Words of an identifier: snake_case parts and CamelCase humps, acronyms kept whole (skipIfNoCUDA).
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# An identifier is a use only when it starts with one of these words and names a device as a later
# word: TEST_CUDA, RUN_CUDA, requires_cuda, skipIfXpu, x.is_cuda (guards); onlyCUDA (a pin). Anything
# else that merely contains a device word (check_code_for_cuda_kernel_launches, XpuInterface,
# gpu_trace) is no use at all.
_GUARD_HEADS = frozenset(
    {"test", "tests", "run", "has", "have", "requires", "require", "skip", "is", "no", "with", "if", "unless"}
)
_PIN_HEADS = frozenset({"only"})
# Calls whose first argument is a device type, never a device with an index.
_DEVICE_TYPE_CALLS = frozenset({"autocast", "GradScaler", "device_module", "get_device_module"})
# Keyword arguments whose value is a device.
_DEVICE_KEYWORDS = frozenset({"device", "device_type"})
# Methods that run for every test of the class: their uses (and their helpers') are every test's.
_EVERY_TEST = ("setUp", "setUpClass", "tearDown", "tearDownClass", "asyncSetUp", "asyncTearDown")
# Queries that only ask about a device: guards wherever they appear (torch.cuda.is_available());
# device_count() is a guard in a condition and a hard use elsewhere (it sizes the work).
_QUERY_PREFIX = "is_"
_COUNT_QUERIES = frozenset({"device_count"})
# Modes of the walk: plain code, a condition (if/while/assert tests, comparisons, skip decorators'
# arguments) and code guarded by a device condition (the body of `if TEST_CUDA:`).
_PLAIN, _CONDITION, _GUARDED = 0, 1, 2


@dataclass(frozen=True)
class _Vocabulary:
    """What the device-use walk looks for under one taxonomy, computed once per taxonomy."""

    devices: tuple[str, ...]
    words: tuple[str, ...]  # lowercase words whose absence from a text proves it has no use
    # Devices whose uses no one reads: those of the runners that run the generic classification
    # (a test that moves a tensor to the CPU runs anywhere). They are no use, and their words
    # (``cpu``) do not make a node worth a visit; a condition that names them still guards.
    ignored: frozenset[str]
    identifier_words: tuple[str, ...]
    api_modules: frozenset[str]  # second components of torch.<module> accelerator API prefixes
    # dotted call name -> whether the taxonomy lists it as an accelerator API (asked of every call)
    api_calls: dict[str, bool] = field(default_factory=dict, compare=False)


_VOCABULARIES: dict[tuple[str, str], _Vocabulary] = {}
_API_MEMO_LIMIT = 100_000  # distinct dotted call names remembered per taxonomy and process


def _vocabulary(tax: Taxonomy) -> _Vocabulary:
    key = (tax.path, tax.digest)
    found = _VOCABULARIES.get(key)
    if found is not None:
        return found
    devices = tuple(tax.devices)
    api_tails = {p.lower() for p in tax.accelerator_apis}  # whole prefixes: "ipu" alone is in "manipulate"
    check_tails = {c.rpartition(".")[2].lower() for c in tax.availability_checks}
    ignored = tax.generic_runner_devices()
    words = dict.fromkeys(
        [
            *(d for d in devices if d not in ignored),
            *_ACCELERATOR_WORDS,
            *_LIBRARY_DEVICES,
            *sorted(api_tails),
            *sorted(check_tails),
        ]
    )
    api_modules = frozenset(
        p.split(".")[1] for p in tax.accelerator_apis if p.startswith("torch.") and p.count(".") == 1
    )
    vocab = _Vocabulary(
        devices,
        tuple(words),
        ignored,
        (*devices, *_ACCELERATOR_WORDS, *_LIBRARY_DEVICES),
        api_modules,
    )
    _VOCABULARIES[key] = vocab
    return vocab


def _strongest(uses: Iterable[DeviceUse]) -> tuple[tuple[str, str], ...]:
    """(device, kind) pairs of *uses* with evidence, the hard kind winning per device."""
    out: dict[str, str] = {}
    for u in uses:
        if u.kind == NONE:
            continue
        if out.get(u.device) != HARD:
            out[u.device] = u.kind
    return tuple(sorted(out.items()))


class _Closure:
    """The uses of a method and, transitively, of the methods it calls (cycles cut)."""

    def __init__(self, methods: dict[str, Method]):
        self.methods = methods
        self.memo: dict[str, tuple[DeviceUse, ...]] = {}

    def uses(self, name: str, seen: frozenset[str] = frozenset()) -> tuple[DeviceUse, ...]:
        if name in self.memo:
            return self.memo[name]
        m = self.methods.get(name)
        if m is None or name in seen:
            return ()
        found = list(m.device_uses)
        for callee in m.calls:
            found += self.uses(callee, seen | {name})
        self.memo[name] = tuple(dict.fromkeys(found))
        return self.memo[name]


def _offsets(lines: list[str]) -> tuple[list[int], list[int]]:
    """The offsets where each of *lines* starts and ends in their concatenation."""
    ends = list(itertools.accumulate(map(len, lines)))
    return [0, *ends[:-1]], ends


# Fields that never hold a node with text: names, flags, and the contexts and operators (`Load`,
# `Add`, `Eq`...), leaves never worth a visit.
_SCALAR_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "module", "level", "kind", "conversion", "simple", "is_async"}
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # node type -> the fields that may hold child nodes


def _children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of *node* that have text, in field order (``ast.iter_child_nodes``, less the
    leaves that have none, built as a list: the walk's inner loop)."""
    kind = type(node)
    names = _CHILD_FIELDS.get(kind)
    if names is None:
        names = () if kind is ast.Constant else tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)
        _CHILD_FIELDS[kind] = names
    out = []
    for name in names:
        value = getattr(node, name, None)
        if type(value) is list:
            out += [v for v in value if isinstance(v, ast.AST)]
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


class _WordIndex:
    """Where some words occur in a file's text, to prove that a node's text names none of them.

    The device walk asks this of every node it would visit: a node whose text names no device word
    (nor the name of a helper with device uses) holds no use, so neither it nor anything under it is
    visited; the search for classes created at run time skips the statements that name none of
    ``globals``, ``type``, ``setattr``... The occurrences are found once per file, with a
    ``str.find`` per word. Positions are exact in an ASCII file (ast's byte columns are offsets in
    the text); in any other file only statements are pruned, by their lines. A string literal
    assembled from pieces (``"cu" "da"``) names no word, and is no use."""

    def __init__(
        self,
        text: str,
        offsets: tuple[list[int], list[int]],
        ascii: bool,
        words: Iterable[str],
        whole: bool = False,
        spans: Sequence[tuple[int, int]] | None = None,
    ):
        """*offsets*: where each line of *text* (as the tokenizer splits them) starts and ends.
        *whole*: only occurrences that start a word count (``type`` in ``type(``, not in ``dtype``).
        *spans*: the (start, end) offsets of the only parts of *text* to search (default: all)."""
        self.text = text
        self.starts, self.ends = offsets
        self.exact = ascii
        self.whole = whole
        self.spans = [(0, len(text))] if spans is None else spans
        words = set(words)
        hits: list[int] = []
        for word in words:
            # a word holding another (`torch.cuda`, `gpus`) occurs only where the other one does
            if not any(other in word for other in words if other != word):
                hits += self.occurrences(word)
        hits.sort()
        # sorted start offsets of the occurrences (one offset may be there twice: a query asks
        # only whether a span holds one)
        self.hits = hits

    def occurrences(self, word: str) -> list[int]:
        text, find, found = self.text, self.text.find, []
        for start, end in self.spans:
            pos = find(word, start, end)
            while pos >= 0:
                if not (self.whole and _after_word(text, pos)):
                    found.append(pos)
                pos = find(word, pos + 1, end)
        return found

    def add(self, word: str) -> None:
        found = self.occurrences(word)
        if found:
            # two sorted runs: the sort merges them in one linear pass
            self.hits = sorted(self.hits + found)

    def walk(self, node: ast.AST) -> Iterator[ast.AST]:
        """The nodes of ``ast.walk(node)``, in its order, less the subtrees whose text names no word
        and the leaves that have no text."""
        todo = deque([node])
        while todo:
            node = todo.popleft()
            if self.names_word(node):
                todo.extend(_children(node))
                yield node

    def lines(self, first: int, last: int) -> bool:
        """Whether lines *first* to *last* (1-based) name a word."""
        hits = self.hits
        i = bisect.bisect_left(hits, self.starts[first - 1])
        return i < len(hits) and hits[i] < self.ends[last - 1]

    def names_word(self, node: ast.AST) -> bool:
        """Whether *node*'s text may name a word (True for a node without a position)."""
        line = getattr(node, "lineno", None)
        if line is None:
            return True
        if self.exact and type(node) not in _DECORATED:  # the common case first: an expression
            start = self.starts[line - 1] + node.col_offset  # type: ignore[attr-defined]
            end = self.starts[(node.end_lineno or line) - 1] + (node.end_col_offset or 0)  # type: ignore[attr-defined]
        else:
            decorators = getattr(node, "decorator_list", None)
            if decorators:  # a def's text starts with its decorators, above its `def` line
                start = self.starts[decorators[0].lineno - 1]
            elif self.exact:
                start = self.starts[line - 1] + node.col_offset  # type: ignore[attr-defined]
            elif isinstance(node, ast.stmt):
                start = self.starts[line - 1]
            else:
                return True
            end_line = node.end_lineno or line  # type: ignore[attr-defined]
            if self.exact:
                end = self.starts[end_line - 1] + (node.end_col_offset or 0)  # type: ignore[attr-defined]
            else:
                end = self.ends[end_line - 1]
        hits = self.hits
        i = bisect.bisect_left(hits, start)
        return i < len(hits) and hits[i] < end


#: ``self.name(`` / ``cls.name(``: read from the text, which costs far less than walking the tree (a
#: mention in a comment or a string at worst attributes a helper's uses to one test too many).
# (without a leading \\b, which the engine would test at every position: a match preceded by a word
# character, `myself.x(`, is dropped by the caller)
# (one pattern per receiver: a pattern that starts with a literal is searched for as a string, three
# times faster than an alternation tried at every position)
_SELF_CALLS = tuple((who, re.compile(rf"{who}\s*\.\s*([A-Za-z_]\w*)\s*\(")) for who in ("self", "cls"))


def _after_word(text: str, start: int) -> bool:
    """Whether *text* has a word character just before *start*."""
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")


class _DeviceUses:
    """Collects the :class:`DeviceUse` s under some nodes, in source order, each with its kind.

    A use names a taxonomy device: an attribute chain under ``torch.<device>`` or
    ``torch.backends.<device>`` (cuDNN counts as cuda), a ``.<device>()`` method call, a string literal
    ``"<device>"`` or ``"<device>:N"``, an identifier that starts with a guard or pin word and names
    the device (``TEST_CUDA``, ``requires_cuda``, ``onlyCUDA``, ``x.is_cuda``), or a call to a
    module-level function of the same file whose body has such a use. Identifiers that name
    accelerators without a device (``requires_gpu``) count as :data:`ANY_ACCELERATOR`. Calls that
    the taxonomy lists as accelerator APIs are recorded too (``api``), with kind *none* when they are
    no evidence (``torch.backends.cuda.matmul...``).
    """

    def __init__(self, builder: _Builder, *nodes: ast.AST):
        self.b = builder
        vocab = builder.vocabulary
        self.devices = vocab.devices
        self.ignored = vocab.ignored
        self.words = vocab.identifier_words
        self.api_modules = vocab.api_modules
        self.api_calls = vocab.api_calls
        self.found: list[DeviceUse] = []
        self.roles: dict[int, str] = {}  # literal node id -> its role, noted by the call around it
        stack: list[tuple[ast.AST, int]] = [(n, _PLAIN) for n in reversed(nodes)]
        names_word = builder.device_index().names_word
        while stack:  # iterative and pruning: ast.NodeVisitor costs a method lookup per node
            node, mode = stack.pop()
            if not names_word(node):
                continue  # its text names no device word: it holds no use
            children = self.visit(node, mode)
            if children is None:
                kids = _children(node)
                kids.reverse()
                stack.extend(zip(kids, repeat(mode)))
            else:
                stack.extend(reversed(children))
        self.found.sort(key=lambda u: (u.site.line, u.site.col))

    def add(
        self,
        device: str,
        node: ast.AST,
        kind: str,
        mode: int,
        api: bool = False,
        form: str = "",
        detail: str = "",
        target: Site | None = None,
    ) -> None:
        if device in self.ignored:
            return
        if kind == HARD and mode != _PLAIN:
            kind = GUARD  # asked about, or only run where the device is present
        self.found.append(DeviceUse(device, self.b.site(node), kind, api, form, detail, target))

    def visit(self, node: ast.AST, mode: int) -> list[tuple[ast.AST, int]] | None:
        """Record *node*'s use, if any; return the children still to visit (None: all of them)."""
        kind = type(node)
        if kind is ast.Attribute:
            return self.attribute(node, mode)  # type: ignore[arg-type]
        if kind is ast.Call:
            return self.call(node, mode)  # type: ignore[arg-type]
        if kind is ast.Constant:
            self.constant(node, mode)  # type: ignore[arg-type]
        elif kind is ast.Name and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
            # an assignment target defines a name (`_do_cuda_memory_leak_check = True`), it uses no device
            for device, use in self.identifier_devices(node.id):  # type: ignore[attr-defined]
                self.add(device, node, use, mode)
        elif kind is ast.Compare:
            return [(c, _CONDITION) for c in ast.iter_child_nodes(node)]
        elif kind in (ast.If, ast.While, ast.IfExp):
            test = node.test  # type: ignore[attr-defined]
            inner = _GUARDED if mode == _GUARDED or self.names_device(test) else mode
            rest = [(c, inner) for c in ast.iter_child_nodes(node) if c is not test]
            return [(test, _CONDITION), *rest]
        elif kind is ast.Assert:
            return [(c, _CONDITION) for c in ast.iter_child_nodes(node)]
        return None

    def names_device(self, node: ast.AST) -> bool:
        """Whether the text of *node* (a condition) names a device or a device word."""
        text = self.b.segment(node, 10_000).lower()
        return any(w in text for w in self.b.device_words) or any(w in text for w in self.ignored)

    def attribute(self, node: ast.Attribute, mode: int) -> list[tuple[ast.AST, int]] | None:
        if type(node.ctx) is not ast.Load:  # `self.cuda_ready = ...` names a field; its value is visited
            return None
        parts = dotted_name(node).split(".")
        if len(parts) >= 2 and parts[0] == "torch":
            found = self.torch_use(parts, call=False)
            if found is not None:
                site = self.b.site(node)
                self.add(found[0], node, found[1], mode, form=FORM_CHAIN, detail=site.text, target=site)
                return []  # the outermost chain is the use; its prefixes are not uses of their own
        for device, use in self.identifier_devices(node.attr):
            self.add(device, node, use, mode)
        return None

    def torch_use(self, parts: list[str], call: bool, mode: int = _PLAIN) -> tuple[str, str] | None:
        """(device, kind) of the chain ``torch.<module>...``, or None when it names no device."""
        backends = parts[1] == "backends" and len(parts) > 2
        module = parts[2] if backends else parts[1]
        device = _TORCH_MODULE_DEVICES.get(module, module)
        if device not in self.devices:
            if backends or (module not in self.api_modules and module not in _ACCELERATOR_WORDS):
                return None
            device = ANY_ACCELERATOR  # torch.accelerator, torch.hpu, torch.mtia...
        rest = parts[3:] if backends else parts[2:]
        leaf = rest[0] if rest else ""
        if leaf.startswith(_QUERY_PREFIX) or (leaf in _COUNT_QUERIES and mode != _PLAIN):
            return device, GUARD
        if backends or module in _TORCH_MODULE_DEVICES:
            # settings (torch.backends.cudnn.benchmark): no device needed, yet a sign of one
            return device, GUARD
        return device, HARD

    def call(self, node: ast.Call, mode: int) -> list[tuple[ast.AST, int]] | None:
        func = node.func
        args = [*node.args, *node.keywords]
        name = dotted_name(func)
        api = self.api_calls.get(name)
        if api is None:
            if len(self.api_calls) >= _API_MEMO_LIMIT:  # names come from the files: keep the memo bounded
                self.api_calls.clear()
            api = self.api_calls[name] = bool(name) and self.b.tax.is_accelerator_call(name)
        parts = name.split(".") if name else []
        if len(parts) >= 2 and parts[0] == "torch":
            found = self.torch_use(parts, call=True, mode=mode)
            if found is not None or api:
                device, kind = found if found is not None else (ANY_ACCELERATOR, NONE)
                form = FORM_CHAIN_KEYWORDS if node.keywords else FORM_CHAIN
                self.add(device, node, kind, mode, api, form, name, self.b.site(func, name))
                return [(a, mode) for a in args]
        elif api:
            self.add(ANY_ACCELERATOR, node, NONE, mode, api)
        for value in self.device_arguments(node, name):
            for device in self.named_device(value):
                # device=GPU_TYPE, torch.device(DEVICE_CUDA)
                self.add(device, value, HARD, mode, form=FORM_NAME, detail=dotted_name(value))
        if isinstance(func, ast.Attribute) and func.attr in self.devices:
            # tensor.cuda(), module.xpu(): the rewrite replaces `.cuda(...)`, from the end of the value
            value = func.value
            end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
            start = self.b.site(value)
            inner = ", ".join(self.b.segment(a, 10_000) for a in args)
            target = Site(start.end_line, start.end_col, f".{func.attr}({inner})", end_line, end_col)
            if not self.b.ascii:
                target = replace(target, end_col=self.b.col(end_line, end_col))
            self.add(func.attr, node, HARD, mode, form=FORM_METHOD, detail=inner, target=target)
            return [(func.value, mode), *((a, mode) for a in args)]  # not func.attr a second time
        self.note_roles(node, name)
        if isinstance(func, ast.Name):
            for device, kind in self.b.helper_devices.get(func.id, ()):  # a helper of this module
                self.add(device, node, kind, mode, form=FORM_HELPER, detail=func.id)
        last = name.rpartition(".")[2] if name else ""
        if last.lower().startswith("skip"):  # skipIf(not TEST_CUDA, ...), skipCUDAIf(...)
            return [(func, mode), *((a, _CONDITION) for a in args)]
        return None

    def note_roles(self, node: ast.Call, name: str) -> None:
        """Note what the string arguments of *node* stand for: a device or a device type."""
        last = name.rpartition(".")[2] if name else ""
        first = node.args[0] if node.args else None
        if isinstance(first, ast.Constant):
            if last == "to" and isinstance(node.func, ast.Attribute):
                self.roles[id(first)] = ROLE_DEVICE
            elif name in ("torch.device", "device"):
                self.roles[id(first)] = ROLE_DEVICE if len(node.args) == 1 else ROLE_TYPE
            elif last in _DEVICE_TYPE_CALLS:
                self.roles[id(first)] = ROLE_TYPE
        for kw in node.keywords:
            if isinstance(kw.value, ast.Constant) and kw.arg in ("device", "device_type"):
                self.roles[id(kw.value)] = ROLE_DEVICE if kw.arg == "device" else ROLE_TYPE

    @staticmethod
    def device_arguments(node: ast.Call, name: str) -> list[ast.expr]:
        """Arguments of *node* used as a device: ``device=``/``device_type=`` values, the first argument
        of ``torch.device(...)`` and of ``.to(...)``."""
        out = [kw.value for kw in node.keywords if kw.arg in _DEVICE_KEYWORDS]
        func = node.func
        if node.args and (name == "torch.device" or (type(func) is ast.Attribute and func.attr == "to")):
            out.append(node.args[0])
        return [v for v in out if type(v) in (ast.Name, ast.Attribute)]

    def named_device(self, node: ast.expr) -> list[str]:
        """The device a name used as a device spells, whatever its first word (GPU_TYPE, DEVICE_CUDA):
        a named device, or "accelerator" for a gpu word."""
        identifier = node.id if isinstance(node, ast.Name) else node.attr  # type: ignore[attr-defined]
        lowered = identifier.lower()
        if not any(w in lowered for w in self.words):
            return []
        words = {_LIBRARY_DEVICES.get(w.lower(), w.lower()) for w in _WORDS.findall(identifier)}
        found = [d for d in self.devices if d in words]
        if not found and words & _ACCELERATOR_WORDS:
            found = [ANY_ACCELERATOR]
        return found

    def constant(self, node: ast.Constant, mode: int) -> None:
        value = node.value
        if isinstance(value, str) and len(value) <= 24:
            head, _, index = value.partition(":")
            head = _BACKEND_DEVICES.get(head, head) if not index else head
            if head in self.devices and (not index or index.isdigit()):
                role = self.roles.get(id(node), ROLE_OTHER) if head == value.partition(":")[0] else ROLE_OTHER
                site = self.b.site(node)
                self.add(head, node, HARD, mode, form=FORM_LITERAL, detail=role, target=site)

    def identifier_devices(self, identifier: str) -> list[tuple[str, str]]:
        """(device, kind) a name spells out: TEST_CUDA, requires_cuda, skipIfNoXPU, x.is_cuda (guards),
        onlyCUDA (hard). A name that merely contains a device word is no use."""
        lowered = identifier.lower()
        if not any(w in lowered for w in self.words):
            return []
        words = [w.lower() for w in _WORDS.findall(identifier)]
        if not words:
            return []
        head = words[0]
        if head in _PIN_HEADS:
            kind = HARD
        elif head in _GUARD_HEADS:
            kind = GUARD
        else:
            return []
        rest = {_LIBRARY_DEVICES.get(w, w) for w in words[1:]}
        found = [d for d in self.devices if d in rest]
        if not found and rest & _ACCELERATOR_WORDS:
            found = [ANY_ACCELERATOR]
        return [(d, kind) for d in found]
