"""Building the model of one file: CPython's tree reduced to the records of :mod:`hwlint.model.records`.

A file is parsed once, with CPython's own parser (so a file hwlint accepts is a file Python accepts),
and reduced to plain data: :class:`FileModel`. Every consumer (the rules, the fixer, the selector, the
report) reads this model, never the AST, so the model can be cached and shipped between processes.
The builder reads classes and methods, declarations and module-level bindings here, instantiation
calls and the constants they name in :mod:`hwlint.model.calls`, and device evidence in
:mod:`hwlint.model.devices`.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import io
import re
import tokenize
import typing
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from ..taxonomy import Taxonomy
from .bindings import (
    ASSIGN,
    attribute_writes,
    class_overrides,
    declaration_heads,
    enum_stand_in,
    statement_bindings,
)
from .calls import _CallScan
from .devices import _DeviceScan, _strongest, _vocabulary
from .noqa import noqa_directives
from .records import (
    HARD,
    NONE,
    ClassInfo,
    Declaration,
    Decorator,
    FileModel,
    ImportStatement,
    Method,
    Override,
    ParseError,
    Site,
)
from .syntax import (
    _COMPOUND,
    _TRY,
    _after_word,
    _class_body_statements,
    _conditional_blocks,
    _expression,
    _is_call_to,
    _is_main_guard,
    _module_statements,
    _offsets,
    _one_line,
    _target_names,
    _WordIndex,
    dotted_name,
    split_lines,
)


@dataclass(eq=False)
class Parse:
    """A file's text and CPython's tree of it, kept (``parse_file(keep=True)``) while the file is
    fixed: the fixer derives the model of the fixed text from it (:mod:`hwlint.fix.remodel`).
    *memo* holds what the costly steps of the build found, by the ids of their nodes."""

    source: str
    tree: ast.Module
    path: str
    taxonomy: Taxonomy
    encoding: str
    memo: dict[object, object]


@dataclass(frozen=True)
class _Overlay:
    """What a build on a kept :class:`Parse` sees beyond the tree (the fixer's re-model):
    *injected*: classes (line, col) whose body starts with a declaration the tree lacks, with the
    line it gets and its text; *text*: the file's text with those lines (it decides whether a device
    word occurs at all); *dirty*: ids of the classes holding a statement put in the tree since the
    memo was filled."""

    injected: Mapping[tuple[int, int], tuple[int, str]] = field(default_factory=dict)
    text: str | None = None
    dirty: frozenset[int] = frozenset()


# ---------------------------------------------------------------------------------------------
# Building the model


def decode_source(data: bytes) -> tuple[str, str]:
    """Decode file bytes as Python does (BOM, PEP 263 cookie). Returns (text, encoding).

    A UTF-8 file whose bytes are not all UTF-8 still decodes (each stray byte a lone surrogate,
    ``surrogateescape``, so that encoding the text gives the bytes back): CPython's ``compile()``,
    and so ``import`` and pytest, accept such bytes in a comment. Whether they are only there,
    :func:`parse_file` asks CPython. Raises SyntaxError (a bad cookie) or UnicodeDecodeError."""
    return _decode(data)[:2]


# tokenize's cookie_re and blank_re, on bytes: CPython reads the cookie from the raw line
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)
_BLANK = re.compile(rb"^[ \t\f]*(?:[#\r\n]|$)", re.ASCII)


def _raw_cookie(data: bytes) -> str | None:
    """The encoding a cookie names on the first or second line (the second only after a blank or
    comment line), read from the bytes as CPython does: the line need not be UTF-8."""
    for line in data.splitlines(keepends=True)[:2]:
        m = _COOKIE.match(line)
        if m:
            return m.group(1).decode("ascii")
        if not _BLANK.match(line):
            return None
    return None


def _decode(data: bytes) -> tuple[str, str, bool]:
    """(text, encoding, strict): *strict* is False when UTF-8 bytes did not all decode."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        # detect_encoding also refuses first lines that are not UTF-8, which compile() takes when
        # they are comments: only a cookie it cannot read stays an error
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            named = _raw_cookie(data)
            if named is None:
                return data.decode("utf-8", "surrogateescape"), "utf-8", False
            encoding = codecs.lookup(named).name  # LookupError: an unknown encoding
            if encoding != "utf-8":
                return data.decode(encoding), encoding, True
            return data.decode("utf-8", "surrogateescape"), "utf-8", False
        raise
    try:
        return data.decode(encoding), encoding, True
    except UnicodeDecodeError:
        if encoding not in ("utf-8", "utf-8-sig"):
            raise
        return data.decode(encoding, "surrogateescape"), encoding, False


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
) -> tuple[FileModel, Parse | None]:
    """:func:`build_model`, and with *keep* the parse behind the model (None when the file does not
    parse): the fixer models its fixed text from it (:mod:`hwlint.fix.remodel`)."""
    encoding = "utf-8"
    strict = True
    data = source
    if isinstance(source, bytes):
        try:
            source, encoding, strict = _decode(source)
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
            # CPython decides whether bytes that are not UTF-8 may stay (in a comment): parsed as bytes
            tree = ast.parse(source if strict else data, filename=path)
    except SyntaxError as e:
        if not strict and isinstance(data, bytes) and (e.msg or "").startswith("(unicode error)"):
            return _undecodable(data, encoding, path), None
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
    return model, (Parse(source, tree, path, taxonomy, encoding, memo) if memo is not None else None)


def _undecodable(data: bytes, encoding: str, path: str) -> FileModel:
    """HWC901 for a file CPython refuses to decode: where its first stray byte is."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        error = ParseError(line, 0, f"cannot decode file: {_reason(e)}")
        return FileModel(path, error=error, encoding=encoding)
    return FileModel(path, error=ParseError(1, 0, "cannot decode file"), encoding=encoding)


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


# File-level exemptions, each a comment on a line of its own (written here without their hash, or
# ruff would read them). flake8's own pattern (NOQA_FILE, matched at the start of a line): flake8
# skips such a file whole, "flake8: noqa: E501" included, so hwlint check does the same, or the two
# front ends would disagree. And hwlint's, in ruff's syntax: "hwlint: noqa" (every code) or
# "hwlint: noqa: HWC001, HWC2" (those); anything else after "noqa" exempts nothing.
_FLAKE8_FILE_NOQA = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
_HWLINT_FILE_NOQA = re.compile(
    r"\s*#\s*hwlint\s*:\s*noqa(?:\s*:\s*(?P<codes>[A-Z]+[0-9]*(?:\s*,\s*[A-Z]+[0-9]*)*))?\s*(?:#.*)?$",
    re.IGNORECASE,
)


_NO_OVERLAY = _Overlay()


class _Builder(_CallScan, _DeviceScan):
    """Builds one :class:`FileModel` from a tree: module-level statements, classes, methods and
    declarations here; instantiation calls and constants (:class:`~hwlint.model.calls._CallScan`);
    device evidence (:class:`~hwlint.model.devices._DeviceScan`)."""

    def __init__(
        self,
        source: str,
        path: str,
        taxonomy: Taxonomy,
        memo: dict[object, object] | None = None,
        overlay: _Overlay | None = None,
        devices: bool = True,
    ):
        """*memo*: what the costly steps found (device uses, classes, methods, word indexes), by the
        ids of their nodes and what else they depend on, kept across builds on one tree.
        *overlay*: what a re-model of a fixed text sees beyond the tree (:class:`_Overlay`).
        Without *devices*, no class is scanned for device uses (see :func:`build_model`)."""
        self.source = source
        self.memo = memo
        overlay = overlay or _NO_OVERLAY
        self.injected = overlay.injected
        self.dirty = overlay.dirty
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
        self.text = overlay.text
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
                return len(text.encode("utf-8", "surrogateescape")[:col].decode("utf-8", "replace"))
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
        return text.encode("utf-8", "surrogateescape")[start:end].decode("utf-8", "replace")

    def offsets(self) -> tuple[list[int], list[int]]:
        """Where each line starts and ends in the source."""
        if self._offsets is None:
            self._offsets = self.remember("offsets", lambda: _offsets(self.lines))
        return self._offsets

    # -- module level ----------------------------------------------------------------------
    def build(self, tree: ast.Module, encoding: str) -> FileModel:
        self.tree = tree  # for the file-level noqa, which must not be read inside a string
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
        passed: list[tuple[str, int, str]] = []
        writes: list[tuple[str, int, str]] = []
        execs: list[Site] = []
        # code that writes a class's attribute names it, or setattr/delattr (most files do neither)
        may_write = any(w in self.source for w in (self.tax.attribute, "setattr", "delattr"))
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
            if may_write:
                writes += attribute_writes(stmt, self.tax.attribute, self.literal)
            if creates and isinstance(stmt, ast.Expr) and _is_call_to(stmt.value, frozenset({"exec"})):
                execs.append(self.site(stmt.value))
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
                else:
                    passed += _passed_names(stmt.value)
        classes = self.attribute_uses(classes)
        newline = "\r\n" if "\r\n" in self.source[:4096] else ("\r" if "\r" in self.source[:4096] else "\n")
        return FileModel(
            self.path,
            tuple(classes),
            tuple(calls),
            self.remember("noqa", lambda: self.noqa(tree)),
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
            passed=tuple(passed),
            attribute_writes=tuple(writes),
            enum_bindings=self.enum_bindings(statements, classes),
            exec_calls=tuple(execs),
        )

    def enum_bindings(
        self, statements: list[tuple[ast.stmt, bool]], classes: list[ClassInfo]
    ) -> tuple[tuple[str, int], ...]:
        """Module-level bindings of the names declarations read the enum through, other than an
        import, an alias of the enum (``HC = HardwareClassification``) or a stand-in enum
        (:func:`~hwlint.model.bindings.enum_stand_in`)."""
        heads = {
            d.site.text.partition(".")[0].strip()
            for c in classes
            for d in c.declarations
            if d.member is not None
        }
        if not heads:
            return ()
        out = []
        for stmt, _ in statements:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)) or enum_stand_in(stmt):
                continue
            for name, _, how in statement_bindings(stmt):
                if name not in heads:
                    continue
                if how == ASSIGN and self.enum_member(ast.Attribute(stmt.value, "X")) is not None:  # type: ignore[attr-defined]
                    continue  # an alias of the enum
                out.append((name, stmt.lineno))
        return tuple(out)

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
            else:
                # `test_x = helper` (a lambda, `staticmethod(f)`, `partialmethod(f, 1)`) and a test
                # imported into the body are collected; `test_ns = "..."` is not (pytest wants a callable)
                for name in _bound_tests(stmt, prefix):
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
        overrides, dynamic_body = self.overrides(node, declarations)
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
            mentions=self.mentions(node) if any(u.kind == HARD for u in uses) else (),
            overrides=overrides,
            dynamic_body=dynamic_body,
        )

    def position(self, node: ast.AST) -> tuple[int, int]:
        """(line, character column) of *node*."""
        line = node.lineno  # type: ignore[attr-defined]
        return line, self.col(line, node.col_offset)  # type: ignore[attr-defined]

    def overrides(
        self, node: ast.ClassDef, declarations: list[Declaration]
    ) -> tuple[tuple[Override, ...], Site | None]:
        """What in *node* may change the value getattr reads (:mod:`hwlint.model.bindings`)."""
        last = declarations[-1].site if declarations else None
        heads = declaration_heads(
            [(d.site.text, (d.site.line, d.site.col)) for d in declarations if d.member is not None]
        )
        overrides, dynamic = class_overrides(
            node, self.tax.attribute, (last.line, last.col) if last else None, heads, self.position
        )
        return overrides, (self.site(dynamic) if dynamic is not None else None)

    def mentions(self, node: ast.ClassDef, limit: int = 3) -> tuple[Site, ...]:
        """Up to *limit* places where the text names the class *node* as a word, but its own
        ``class`` line (a mention in a comment or a string counts too: a conversion is refused
        rather than risked)."""
        name, text, out = node.name, self.source, []
        starts, _ = self.offsets()
        pos = text.find(name)
        while pos >= 0 and len(out) < limit:
            end = pos + len(name)
            if not _after_word(text, pos) and not (
                end < len(text) and (text[end].isalnum() or text[end] == "_")
            ):
                line = bisect.bisect_right(starts, pos)
                if line != node.lineno:
                    out.append(Site(line, pos - starts[line - 1], name, line, end - starts[line - 1]))
            pos = text.find(name, end)
        return tuple(out)

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
            defaulted=_defaulted(a),
            parametrized=_parametrized(node.decorator_list),
        )

    def decorator(self, node: ast.expr) -> Decorator:
        target = node.func if isinstance(node, ast.Call) else node
        name = dotted_name(target).rpartition(".")[2]
        return Decorator(name, self.site(node))

    # -- comments --------------------------------------------------------------------------
    def noqa(self, tree: ast.Module) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """The noqa directives, read from comment tokens (:mod:`hwlint.model.noqa`)."""
        if "noqa" not in self.lowered:
            return ()
        out = list(noqa_directives(self.lines, tree))
        exempt = self.file_exemption()
        if exempt is not None:
            out.insert(0, (0, exempt))  # line 0: the whole file (FileModel.file_noqa)
        return tuple(out)

    def file_exemption(self) -> tuple[str, ...] | None:
        """The file-level noqa: None, () for every code, or the codes exempted (see
        :data:`_FLAKE8_FILE_NOQA`). Only a comment counts: a line inside a string is text."""
        if "flake8" not in self.lowered and "hwlint" not in self.lowered:
            return None
        found: list[tuple[int, tuple[str, ...]]] = []
        for i, line in enumerate(self.lines, 1):
            if "noqa" not in line.lower():
                continue
            if _FLAKE8_FILE_NOQA.match(line):
                found.append((i, ()))
                continue
            m = _HWLINT_FILE_NOQA.match(line.rstrip("\r\n"))
            if m:
                codes = m.group("codes")
                found.append((i, tuple(c.strip().upper() for c in codes.split(",")) if codes else ()))
        if not found:
            return None
        strings = _string_spans(getattr(self, "tree", None))
        found = [(i, codes) for i, codes in found if not any(a < i <= b for a, b in strings)]
        if not found:
            return None
        if any(not codes for _, codes in found):
            return ()
        return tuple(sorted({c for _, codes in found for c in codes}))


def _string_spans(tree: ast.AST | None) -> list[tuple[int, int]]:
    """(first, last) lines of every string literal that spans lines: a line after its first is text."""
    if tree is None:
        return []
    return [
        (node.lineno, node.end_lineno)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Constant, ast.JoinedStr))
        and (isinstance(node, ast.JoinedStr) or isinstance(node.value, (str, bytes)))
        and (node.end_lineno or node.lineno) > node.lineno
    ]


_HEADER_FILLER = frozenset(" \t\f()[],\\\r\n")  # what may sit between a class's last base and its colon
_SCOPE_FUNCTIONS = frozenset({"globals", "locals", "vars"})
_DYNAMIC_NAMES = (*_SCOPE_FUNCTIONS, "type", "setattr", "exec")  # what dynamic_creation looks for
_EXIT_NAMES = ("exit", "quit", "skip")  # in the text of every call in _EXIT_CALLS
_EXIT_CALLS = frozenset(
    {"sys.exit", "exit", "quit", "os._exit", "pytest.skip", "pytest.importorskip", "importorskip"}
)
_CALLABLE_VALUES = (ast.Name, ast.Attribute, ast.Lambda, ast.Call)


def _passed_names(call: ast.Call) -> list[tuple[str, int, str]]:
    """(name, line, function) for each plain name *call* takes as an argument: a module-level call
    such as ``copy_tests(CommonTemplate, CpuTests, "cpu")`` may add tests to the classes it is given."""
    function = dotted_name(call.func)
    values = [*call.args, *(kw.value for kw in call.keywords)]
    return [(v.id, call.lineno, function) for v in values if isinstance(v, ast.Name)]


def _bound_tests(stmt: ast.stmt, prefix: str) -> list[str]:
    """Test names a class-body statement other than a ``def`` binds to something pytest may call: an
    assignment of a name, attribute, lambda or call (``test_x = helper``, ``staticmethod(f)``), or
    an import (``from helpers import test_shared``)."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, _CALLABLE_VALUES):
        names = [n for t in stmt.targets for n in _target_names(t)]
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        names = [(a.asname or a.name).partition(".")[0] for a in stmt.names]
    else:
        return []
    return [n for n in names if n.startswith(prefix)]


#: Decorators whose first argument names the parameters they give a test (torch's and pytest's).
_PARAMETRIZE = frozenset({"parametrize", "parametrize_test"})


def _defaulted(a: ast.arguments) -> tuple[str, ...]:
    """The parameters of *a* that have a default value."""
    positional = [*a.posonlyargs, *a.args]
    names = [x.arg for x in positional[len(positional) - len(a.defaults) :]] if a.defaults else []
    names += [x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    return tuple(names)


def _parametrized(decorators: list[ast.expr]) -> tuple[str, ...]:
    """Parameters ``@parametrize("device, dtype", ...)`` (``parametrize_test``, ``pytest.mark.
    parametrize``) gives the decorated test."""
    out: list[str] = []
    for d in decorators:
        if not (
            isinstance(d, ast.Call) and d.args and dotted_name(d.func).rpartition(".")[2] in _PARAMETRIZE
        ):
            continue
        first = d.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            out += [n.strip() for n in first.value.split(",") if n.strip()]
        elif isinstance(first, (ast.Tuple, ast.List)):
            out += [e.value for e in first.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return tuple(out)
