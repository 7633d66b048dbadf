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
import io
import re
import tokenize
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from .taxonomy import Taxonomy


@dataclass(frozen=True)
class Site:
    """A place in the file, with the source text found there."""

    line: int
    col: int
    text: str = ""
    end_line: int = 0
    end_col: int = 0


@dataclass(frozen=True)
class Declaration:
    """``hw_classification = <value>`` in a class body. ``member`` is None when not statically known."""

    site: Site
    member: str | None


@dataclass(frozen=True)
class Decorator:
    name: str  # last component of the decorator's (called) name: onlyCUDA, skipIf, dtypes
    site: Site


@dataclass(frozen=True)
class DeviceUse:
    """Code that names a device type: ``torch.cuda.synchronize()``, ``"cuda:0"``, ``.cuda()``,
    ``TEST_CUDA``. ``device`` is a device name from the taxonomy, or :data:`ANY_ACCELERATOR` for code
    that asks for an accelerator without naming one (``requires_gpu``)."""

    device: str
    site: Site


@dataclass(frozen=True)
class Method:
    name: str
    site: Site  # the `def` line, column of `def`/`async`
    is_test: bool
    params: tuple[str, ...]
    param_sites: tuple[Site, ...]
    decorators: tuple[Decorator, ...]
    # Device uses in the method, its decorators included.
    device_uses: tuple[DeviceUse, ...] = ()


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
    nested: bool  # defined inside an if/try/with/for/while block rather than at module level
    body_line: int  # line of the first statement of the body
    docstring_end_line: int  # last line of the leading docstring, 0 when there is none
    # Device uses anywhere in the class: decorators, bases, class-level statements, methods.
    device_uses: tuple[DeviceUse, ...] = ()

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
    # line ranges of blocks that may not run on import: if/else, for/while, except/else of a try
    conditional_blocks: tuple[tuple[int, int], ...] = ()
    _index: dict[str, list[ClassInfo]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for c in self.classes:
            self._index.setdefault(c.name, []).append(c)

    @property
    def test_classes(self) -> tuple[ClassInfo, ...]:
        return tuple(c for c in self.classes if c.is_test)

    def class_named(self, name: str, before_line: int | None = None) -> ClassInfo | None:
        """The class bound to *name*: the last definition (before *before_line*, when given)."""
        found = self._index.get(name, [])
        if before_line is not None:
            earlier = [c for c in found if c.site.line < before_line]
            found = earlier or found
        return found[-1] if found else None

    def instantiations_of(self, cls: ClassInfo) -> list[Instantiation]:
        return [
            i
            for i in self.instantiations
            if i.class_name == cls.name and self.class_named(cls.name, i.site.line) is cls
        ]

    def under_main_guard(self, line: int) -> bool:
        """True when *line* is inside an ``if __name__ == "__main__":`` block."""
        return any(first <= line <= last for first, last in self.main_guards)

    def is_conditional(self, line: int) -> bool:
        """True when *line* is inside a block that importing the module may skip."""
        return any(first <= line <= last for first, last in self.conditional_blocks)

    def noqa_codes(self, line: int) -> tuple[str, ...] | None:
        """None: no noqa on *line*; (): blanket noqa; otherwise the listed codes."""
        for ln, codes in self.noqa:
            if ln == line:
                return codes
        return None


class Resolver(Protocol):
    """Finds classes outside the file; a project-wide index implements this."""

    def resolve_base(self, model: FileModel, cls: ClassInfo, base: str) -> ClassInfo | None: ...


class LocalResolver:
    """Resolves a base only to a class of the same file, bound under that name when ``cls`` is defined."""

    def resolve_base(self, model: FileModel, cls: ClassInfo, base: str) -> ClassInfo | None:
        if not base or "." in base:
            return None
        found = model.class_named(base, cls.site.line)
        return found if found is not None and found is not cls else None


def mro(model: FileModel, cls: ClassInfo, resolver: Resolver | None = None) -> list[ClassInfo]:
    """The known part of *cls*'s method resolution order (C3), itself first.

    Bases that cannot be resolved are left out: they contribute nothing hwlint can see.
    """
    resolver = resolver or LocalResolver()
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


def build_model(source: str | bytes, path: str, taxonomy: Taxonomy) -> FileModel:
    """Parse *source* and reduce it to a :class:`FileModel`. Never raises for bad input."""
    encoding = "utf-8"
    if isinstance(source, bytes):
        try:
            source, encoding = decode_source(source)
        except UnicodeDecodeError as e:
            line = source.count(b"\n", 0, e.start) + 1
            return FileModel(path, error=ParseError(line, 0, f"cannot decode file: {_reason(e)}"))
        except (SyntaxError, LookupError) as e:
            return FileModel(path, error=ParseError(1, 0, f"cannot decode file: {_reason(e)}"))
    try:
        with warnings.catch_warnings():  # invalid escapes and the like are the file's business
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        line = e.lineno or 1
        return FileModel(
            path, error=ParseError(line, max((e.offset or 1) - 1, 0), _reason(e)), encoding=encoding
        )
    except (ValueError, RecursionError, MemoryError) as e:
        return FileModel(path, error=ParseError(1, 0, _reason(e)), encoding=encoding)
    try:
        return model_from_tree(tree, source, path, taxonomy, encoding)
    except RecursionError as e:
        return FileModel(path, error=ParseError(1, 0, _reason(e)), encoding=encoding)


def model_from_tree(
    tree: ast.Module, source: str, path: str, taxonomy: Taxonomy, encoding: str = "utf-8"
) -> FileModel:
    """Build the model from an already parsed tree (flake8 hands plugins one)."""
    return _Builder(source, path, taxonomy).build(tree, encoding)


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
    def __init__(self, source: str, path: str, taxonomy: Taxonomy):
        self.source = source
        self.path = path
        self.tax = taxonomy
        self.lines = split_lines(source)
        self.enum_names = {taxonomy.enum_name}
        self.constants: dict[str, object] = {}
        self.reassigned: set[str] = set()
        self.opt_in_keywords = {d.opt_in for d in taxonomy.devices.values() if d.opt_in}
        self.check_tails = {c.rpartition(".")[2] for c in taxonomy.availability_checks}
        self.scan_checks = any(t in source for t in self.check_tails)
        self.functions = set(taxonomy.instantiation_functions)
        # Module-level helper functions and the devices their bodies use: a test that calls
        # `_make_cuda_tensor()` uses cuda as surely as one that calls torch.cuda itself.
        self.helper_devices: dict[str, tuple[str, ...]] = {}
        # Words whose absence from a piece of source proves it has no device use; helper names join
        # them once the helpers are known.
        self.device_words = [*taxonomy.devices, *_ACCELERATOR_WORDS, *_TORCH_MODULE_DEVICES]
        lowered = source.lower()
        self.scan_devices = any(w in lowered for w in self.device_words)
        self.scan_classes: set[int] = set()
        self.ascii = source.isascii()  # then byte columns are character columns

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
        end_line = getattr(node, "end_lineno", None) or line
        end_col = getattr(node, "end_col_offset", None) or 0
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
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def slice(self, line: int, start: int, end: int | None) -> str:
        """Characters of *line* between ast byte columns *start* and *end*."""
        text = self.lines[line - 1]
        if text.isascii():
            return text[start:end]
        return text.encode("utf-8")[start:end].decode("utf-8", "replace")

    # -- module level ----------------------------------------------------------------------
    def build(self, tree: ast.Module, encoding: str) -> FileModel:
        statements = list(self.module_statements(tree.body, nested=False))
        for stmt, _ in statements:
            self.note_module_statement(stmt)
        # Device uses feed only the inference of undeclared test classes (and of their bases): on a
        # migrated file the scan, a walk of every method body, would be pure cost.
        self.scan_classes = self.classes_needing_inference(statements)
        self.scan_devices = self.scan_devices and bool(self.scan_classes)
        for stmt, _ in statements:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                devices = sorted({u.device for u in self.device_uses(stmt)})
                if devices:
                    self.helper_devices[stmt.name] = tuple(devices)
                    self.device_words.append(stmt.name.lower())
        classes = []
        calls = []
        imports = []
        deletions = []
        guards = []
        functions = []
        blocks: list[tuple[int, int]] = []
        for stmt, nested in statements:
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
        newline = "\r\n" if "\r\n" in self.source[:4096] else ("\r" if "\r" in self.source[:4096] else "\n")
        return FileModel(
            self.path,
            tuple(classes),
            tuple(calls),
            self.noqa(),
            None,
            encoding,
            newline,
            imports=tuple(imports),
            deletions=tuple(deletions),
            main_guards=tuple(guards),
            test_functions=tuple(functions),
            conditional_blocks=tuple(blocks),
        )

    def import_statement(self, stmt: ast.Import | ast.ImportFrom, nested: bool) -> ImportStatement:
        module = None
        if isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
        names = tuple((a.name, a.asname) for a in stmt.names)
        return ImportStatement(self.site(stmt, ""), module, names, nested)

    def module_statements(self, body: Iterable[ast.stmt], nested: bool) -> Iterator[tuple[ast.stmt, bool]]:
        """Module-level statements, descending into compound statements but not into defs."""
        for stmt in body:
            yield stmt, nested
            if isinstance(stmt, _COMPOUND):
                for name in ("body", "orelse", "finalbody"):
                    yield from self.module_statements(getattr(stmt, name, ()), True)
                for handler in getattr(stmt, "handlers", ()):
                    yield from self.module_statements(handler.body, True)
            elif hasattr(ast, "Match") and isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    yield from self.module_statements(case.body, True)

    def note_module_statement(self, stmt: ast.stmt) -> None:
        """Record enum aliases and string constants that device filters may name."""
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
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            self.reassigned.add(stmt.target.id)

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
            return self.constants[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.literal(node.left), self.literal(node.right)
            if isinstance(left, tuple) and isinstance(right, tuple):
                return left + right
        return _UNKNOWN

    # -- classes ---------------------------------------------------------------------------
    def classes_needing_inference(self, statements: list[tuple[ast.stmt, bool]]) -> set[int]:
        """ids of the class nodes whose device uses inference may read: undeclared test classes
        and, transitively, their bases in the file."""
        prefix = self.tax.test_method_prefix
        by_name: dict[str, list[ast.ClassDef]] = {}
        todo: list[ast.ClassDef] = []
        for stmt, _ in statements:
            if not isinstance(stmt, ast.ClassDef):
                continue
            by_name.setdefault(stmt.name, []).append(stmt)
            is_test = any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name.startswith(prefix)
                          for s in stmt.body)  # fmt: skip
            if is_test and not any(self.declaration(s) is not None for s in stmt.body):
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

    def class_info(self, node: ast.ClassDef, nested: bool) -> ClassInfo:
        prefix = self.tax.test_method_prefix
        declarations = []
        methods = []
        scan = id(node) in self.scan_classes
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.append(self.method(stmt, prefix, scan))
            else:
                decl = self.declaration(stmt)
                if decl is not None:
                    declarations.append(decl)
        checks: list[Site] = []
        if self.scan_checks:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            hits = [
                n
                for n in range(first, (node.end_lineno or node.lineno) + 1)
                if any(t in self.lines[n - 1] for t in self.check_tails)
            ]
            if hits:
                checks = self.availability_checks(node, hits)
        body = node.body
        doc_end = 0
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            doc_end = body[0].end_lineno or body[0].lineno
        return ClassInfo(
            name=node.name,
            site=self.header_site(node, f"class {node.name}"),
            end_line=node.end_lineno or node.lineno,
            bases=tuple(dotted_name(b) for b in node.bases),
            decorators=tuple(self.decorator(d) for d in node.decorator_list),
            declarations=tuple(declarations),
            methods=tuple(methods),
            availability_checks=tuple(checks),
            nested=nested,
            body_line=body[0].lineno if body else node.lineno,
            docstring_end_line=doc_end,
            device_uses=self.class_device_uses(node, methods) if scan else (),
        )

    def device_uses(self, *nodes: ast.AST) -> tuple[DeviceUse, ...]:
        """The device uses under *nodes*; a walk only where their text names a device or a helper."""
        if not self.scan_devices or not nodes:
            return ()
        # A def's lineno is its `def` line: its decorators start above it.
        first = min(d.lineno for n in nodes for d in (n, *getattr(n, "decorator_list", ())))  # type: ignore[attr-defined]
        last = max(getattr(n, "end_lineno", None) or n.lineno for n in nodes)  # type: ignore[attr-defined]
        text = "".join(self.lines[first - 1 : last]).lower()
        if not any(word in text for word in self.device_words):
            return ()
        return tuple(_DeviceUses(self, *nodes).found)

    def class_device_uses(self, node: ast.ClassDef, methods: list[Method]) -> tuple[DeviceUse, ...]:
        """The methods' uses (already collected) and those outside any method, in source order."""
        outside = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        uses = [u for m in methods for u in m.device_uses]
        uses += self.device_uses(*node.decorator_list, *node.bases, *node.keywords, *outside)
        return tuple(sorted(uses, key=lambda u: (u.site.line, u.site.col)))

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
            device_uses=self.device_uses(node) if scan else (),
        )

    def decorator(self, node: ast.expr) -> Decorator:
        target = node.func if isinstance(node, ast.Call) else node
        name = dotted_name(target).rpartition(".")[2]
        return Decorator(name, self.site(node))

    def availability_checks(self, node: ast.ClassDef, lines: list[int]) -> list[Site]:
        """The checks' calls in *node*; *lines* (sorted) are the lines naming a check at all."""
        found = []
        for sub in _walk_lines(node, lines):
            if isinstance(sub, ast.Call) and dotted_name(sub.func) in self.tax.availability_checks:
                found.append(self.site(sub))
        found.sort(key=lambda s: (s.line, s.col))
        return found

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
        first_key = self.tax.positional[0] if self.tax.positional else ""
        first = args.get(first_key, call.args[0] if call.args else None)
        class_name = first.id if isinstance(first, ast.Name) else None
        opt_ins = []
        for kw in sorted(self.opt_in_keywords):
            if kw in args:
                v = self.literal(args[kw])
                opt_ins.append((kw, bool(v) if isinstance(v, bool) or v is None else None))
        return Instantiation(
            site=self.site(call, self.segment(call)),
            function=dotted_name(func) or name,
            class_name=class_name,
            only_for=self.device_filter(args.get("only_for")),
            except_for=self.device_filter(args.get("except_for")),
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
        if "noqa" not in self.source.lower():
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


def _walk_lines(node: ast.AST, lines: list[int]) -> Iterator[ast.AST]:
    """Like ``ast.walk``, but only into the subtrees whose lines include one of *lines* (sorted):
    what a text search proved absent from a subtree is not looked for in its nodes."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            first = getattr(child, "lineno", None)
            if first is None:  # arguments, comprehensions, operators: no position of their own
                stack.append(child)
                continue
            decorators = getattr(child, "decorator_list", None)
            if decorators:  # a def's lineno is its `def` line; its decorators sit above it
                first = min(first, decorators[0].lineno)
            i = bisect.bisect_left(lines, first)
            if i < len(lines) and lines[i] <= (child.end_lineno or first):  # type: ignore[attr-defined]
                stack.append(child)


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
_ACCELERATOR_WORDS = frozenset({"gpu", "gpus", "multigpu", "accelerator", "accelerators"})
# Words of an identifier: snake_case parts and CamelCase humps, acronyms kept whole (skipIfNoCUDA).
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


class _DeviceUses:
    """Collects the :class:`DeviceUse` s under some nodes, in source order.

    A use names a taxonomy device: an attribute chain under ``torch.<device>`` or
    ``torch.backends.<device>`` (cuDNN counts as cuda), a ``.<device>()`` method call, a string literal
    ``"<device>"`` or ``"<device>:N"``, an identifier with the device as a word (``TEST_CUDA``,
    ``requires_cuda``, ``x.is_cuda``), or a call to a module-level function of the same file whose body
    has such a use. Identifiers that name accelerators without a device (``requires_gpu``) count as
    :data:`ANY_ACCELERATOR`.
    """

    def __init__(self, builder: _Builder, *nodes: ast.AST):
        self.b = builder
        self.devices = tuple(builder.tax.devices)
        self.words = (*self.devices, *_ACCELERATOR_WORDS)
        self.found: list[DeviceUse] = []
        stack = list(reversed(nodes))
        while stack:  # iterative and pruning: ast.NodeVisitor costs a method lookup per node
            node = stack.pop()
            children = self.visit(node)
            stack.extend(reversed(children if children is not None else list(ast.iter_child_nodes(node))))
        self.found.sort(key=lambda u: (u.site.line, u.site.col))

    def add(self, device: str, node: ast.AST) -> None:
        self.found.append(DeviceUse(device, self.b.site(node)))

    def visit(self, node: ast.AST) -> list[ast.AST] | None:
        """Record *node*'s use, if any; return the children still to visit (None: all of them)."""
        kind = type(node)
        if kind is ast.Attribute:
            return self.attribute(node)  # type: ignore[arg-type]
        if kind is ast.Call:
            return self.call(node)  # type: ignore[arg-type]
        if kind is ast.Constant:
            self.constant(node)  # type: ignore[arg-type]
        elif kind is ast.Name and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
            # an assignment target defines a name (`_do_cuda_memory_leak_check = True`), it uses no device
            for device in self.identifier_devices(node.id):  # type: ignore[attr-defined]
                self.add(device, node)
        return None

    def attribute(self, node: ast.Attribute) -> list[ast.AST] | None:
        if type(node.ctx) is not ast.Load:  # `self.cuda_ready = ...` names a field; its value is visited
            return None
        parts = dotted_name(node).split(".")
        if len(parts) >= 2 and parts[0] == "torch":
            device = self.torch_module_device(parts)
            if device is not None:
                self.add(device, node)
                return []  # the outermost chain is the use; its prefixes are not uses of their own
        for device in self.identifier_devices(node.attr):
            self.add(device, node)
        return None

    def torch_module_device(self, parts: list[str]) -> str | None:
        name = parts[2] if parts[1] == "backends" and len(parts) > 2 else parts[1]
        name = _TORCH_MODULE_DEVICES.get(name, name)
        return name if name in self.devices else None

    def call(self, node: ast.Call) -> list[ast.AST] | None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in self.devices:
            self.add(func.attr, node)  # tensor.cuda(), module.xpu()
            return [func.value, *node.args, *node.keywords]  # not func.attr a second time
        if isinstance(func, ast.Name):
            for device in self.b.helper_devices.get(func.id, ()):  # a helper of this module
                self.add(device, node)
        return None

    def constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, str) and len(value) <= 24:
            head, _, index = value.partition(":")
            if head in self.devices and (not index or index.isdigit()):
                self.add(head, node)

    def identifier_devices(self, identifier: str) -> list[str]:
        """Devices a name spells out as a word: TEST_CUDA, requires_cuda, skipIfNoXPU, x.is_cuda."""
        lowered = identifier.lower()
        if not any(w in lowered for w in self.words):
            return []
        words = {w.lower() for w in _WORDS.findall(identifier)}
        found = [d for d in self.devices if d in words]
        if not found and words & _ACCELERATOR_WORDS:
            found = [ANY_ACCELERATOR]
        return found
