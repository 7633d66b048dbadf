"""Building the model of one file: CPython's tree reduced to the records of :mod:`hwlint.model.records`.

A file is parsed once, with CPython's own parser (so a file hwlint accepts is a file Python accepts),
and reduced to plain data: :class:`FileModel`. Every consumer (the rules, the fixer, the selector, the
report) reads this model, never the AST, so the model can be cached and shipped between processes.
The builder reads the module-level statements here (imports, bindings, guards, what may create
classes or end the import early), classes and methods in :mod:`hwlint.model.classes`, instantiation
calls and the constants they name in :mod:`hwlint.model.calls`, and device evidence in
:mod:`hwlint.model.devices`; :mod:`hwlint.model.source` decodes the bytes first.
"""

from __future__ import annotations

import ast
import typing
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..taxonomy import Taxonomy
from .bindings import (
    ASSIGN,
    CLASS_WORDS,
    MODULE_WORDS,
    attribute_writes,
    enum_stand_in,
    returns_its_class,
    route_words,
    statement_bindings,
    unmodelled_routes,
)
from .calls import CallScan
from .classes import ClassScan
from .devices import DeviceScan, strongest, vocabulary_of
from .noqa import file_exemption, noqa_directives, rows_saying
from .records import (
    AttributeBinding,
    AttributeWrite,
    BoundCall,
    ClassInfo,
    ClassKeeper,
    DynamicCode,
    FileModel,
    ImportStatement,
    InnerClass,
    NameAt,
    ParseError,
    PassedName,
    RuntimeName,
    Site,
    Span,
    Suppression,
    TryBlock,
    UnmodelledRoute,
)
from .source import decode_strict
from .syntax import (
    COMPOUND,
    TRY,
    WordIndex,
    defer_free,
    dotted_name,
    is_call_to,
    is_main_guard,
    line_offsets,
    module_statements,
    one_line,
    skippable_blocks,
    split_lines,
    target_names,
    word_roots,
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
class Overlay:
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


# CPython's parser needs some 350 to 900 bytes per "syntax unit" below: 3 per line (every line end
# its tokenizer accepts: \n, \r\n and a lone \r) and per `;` (each a statement), 1 per operator or
# punctuation mark and 1 per word (a name, a keyword, a number): 4 MB of `1\n` took 3.3 GB,
# 10 MB of `1\r` 7.8 GB, one 8 MB line of `a<a<a...` 3.4 GB. This cap keeps one file near 1 GB;
# PyTorch's largest test file has about 160,000 units, a generated file of 50,000 test classes
# 1.7 million (580 MB). Past an estimate, each worker's memory is capped too (the engine's).
MAX_PARSE_COST = 2_000_000
_MARKS = b",([{=.:<>+-*/%&|^~@!"


def _cost_tables() -> tuple[bytes, bytes]:
    """Two byte maps: each mark to ``p`` and ``;`` to ``s`` (all else to a space); each word byte
    (ASCII letters, digits, ``_`` and every byte of a non-ASCII character) to 1 (all else to 0)."""
    kinds = bytearray(b" " * 256)
    for b in _MARKS:
        kinds[b] = ord("p")
    kinds[ord(";")] = ord("s")
    words = bytes(int(b >= 0x80 or chr(b).isalnum() or b == ord("_")) for b in range(256))
    return bytes(kinds), words


_KINDS, _WORD_BYTES = _cost_tables()


def parse_cost(source: str | bytes) -> int:
    """A cheap, linear estimate of what parsing *source* costs (a few scans in C, no tokenizing)."""
    data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogateescape")
    lines = data.count(b"\n")
    if b"\r" in data:  # a lone \r ends a line too (10 MB of `1\r` once passed as one line)
        lines += data.count(b"\r") - data.count(b"\r\n")
    kinds = data.translate(_KINDS)
    # words: the bytes that start a run of word bytes, counted as the bits of one integer whose
    # bytes are 0 or 1 (a bit set whose left neighbour byte is not)
    w = int.from_bytes(data.translate(_WORD_BYTES), "big")
    words = (w ^ (w & (w >> 8))).bit_count()
    return 3 * lines + 3 * kinds.count(b"s") + kinds.count(b"p") + words


def build_model(source: str | bytes, path: str, taxonomy: Taxonomy, devices: bool = True) -> FileModel:
    """Parse *source* and reduce it to a :class:`FileModel`. Never raises for bad input.

    Without *devices* the model holds no device evidence (no :class:`DeviceUse`, no helper calls,
    no ``test_uses``): the selector reads none, and the scan that finds it costs more than the rest
    of the model together."""
    try:
        return parse_file(source, path, taxonomy, devices=devices)[0]
    except RecursionError:  # a bug of hwlint's, not the file's (check reports it as HWC900)
        reason = "hwlint's model of the file exceeded the recursion limit (an internal error)"
        return FileModel(path, error=ParseError(1, 0, reason))


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
            source, encoding, strict = decode_strict(source)
        except UnicodeDecodeError as e:
            line = source.count(b"\n", 0, e.start) + 1
            return FileModel(path, error=ParseError(line, 0, f"cannot decode file: {_reason(e)}")), None
        except (SyntaxError, LookupError) as e:
            return FileModel(path, error=ParseError(1, 0, f"cannot decode file: {_reason(e)}")), None
    # a character costs at most 3 units: most files are too small to need counting
    units = parse_cost(data if isinstance(data, bytes) else source) if 3 * len(source) > MAX_PARSE_COST else 0
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
    # the builder walks iteratively: a RecursionError from it is hwlint's bug, not the file's
    # nesting (which CPython's parser measured above), and propagates (HWC900)
    model = Builder(source, path, taxonomy, memo, devices=devices).build(tree, encoding)
    defer_free(tree)
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
    return Builder(source, path, taxonomy).build(tree, encoding)


def _reason(e: BaseException) -> str:
    if isinstance(e, SyntaxError):
        return f"SyntaxError: {e.msg}"
    if isinstance(e, RecursionError):
        return "the file is nested too deeply to parse (recursion limit)"
    if isinstance(e, MemoryError):
        return "the file is nested too deeply or too large to parse (the parser ran out of memory)"
    if isinstance(e, UnicodeDecodeError):
        return f"not valid {e.encoding} (byte {e.object[e.start]:#04x} at offset {e.start})"
    return f"{type(e).__name__}: {e}"


_NO_OVERLAY = Overlay()


class Builder(ClassScan, CallScan, DeviceScan):
    """Builds one :class:`FileModel` from a tree: module-level statements here; classes, methods and
    declarations (:class:`~hwlint.model.classes.ClassScan`); instantiation calls and constants
    (:class:`~hwlint.model.calls.CallScan`); device evidence (:class:`~hwlint.model.devices.DeviceScan`)."""

    def __init__(
        self,
        source: str,
        path: str,
        taxonomy: Taxonomy,
        memo: dict[object, object] | None = None,
        overlay: Overlay | None = None,
        devices: bool = True,
    ):
        """*memo*: what the costly steps found (device uses, classes, methods, word indexes), by the
        ids of their nodes and what else they depend on, kept across builds on one tree.
        *overlay*: what a re-model of a fixed text sees beyond the tree (:class:`Overlay`).
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
        self.mutable: set[str] = set()  # constants holding a list, set or dict (changed in place)
        # constant name -> (line, "extend" | "remove", value, under an if) changes after its assignment
        self.mutations: dict[str, list[tuple[int, str, object, bool]]] = {}
        # constant name -> what happens to it, in order: (line, "bind" | "extend" | "remove", value,
        # under an if); a filter reads the value at its call's line from it (:meth:`value_at`)
        self.history: dict[str, list[tuple[int, str, object, bool]]] = {}
        # id of a statement directly under a module-level `if TEST_XPU:` -> the device the test asks for
        self.guarded: dict[int, str] = {}
        # (name, line) of a binding whose value is not computed -> the expression, for the reason
        self.opaque: dict[tuple[str, int], ast.expr] = {}
        self.imported: dict[str, str] = {}  # a name a module-level `from m import name` binds -> m
        self.at_line = 1 << 30  # line of the statement whose literals are read (changes after it are unknown)
        self.opt_in_keywords = {d.opt_in for d in taxonomy.devices.values() if d.opt_in}
        self.functions = set(taxonomy.instantiation_functions)
        self.vocabulary = vocabulary_of(taxonomy)
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
        self._device_index: WordIndex | None = None  # built on first use
        # where the device parameters' and the mutable constants' names occur, built on first use
        self.param_hits: dict[str, list[int]] | None = None
        self.param_index: WordIndex | None = None
        self.mutable_index: WordIndex | None = None
        self.indexed_mutable: set[str] = set()
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

    def segment(self, node: ast.AST, limit: int = 120, lines: int = 8) -> str:
        """The node's source text on one line, shortened to *limit* characters and *lines* lines."""
        l1, c1 = node.lineno, node.col_offset  # type: ignore[attr-defined]
        l2, c2 = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if l2 is None or c2 is None or not 0 < l1 <= l2 <= len(self.lines):
            return ""
        if l1 == l2:
            text = self.slice(l1, c1, c2)
        else:
            parts = [self.slice(l1, c1, None)]
            for ln in range(l1 + 1, min(l2, l1 + lines)):
                parts.append(self.lines[ln - 1])
            parts.append("..." if l2 - l1 >= lines else self.slice(l2, 0, c2))
            text = "".join(parts)
        return one_line(text, limit)

    def slice(self, line: int, start: int, end: int | None) -> str:
        """Characters of *line* between ast byte columns *start* and *end*."""
        text = self.lines[line - 1]
        if text.isascii():
            return text[start:end]
        return text.encode("utf-8", "surrogateescape")[start:end].decode("utf-8", "replace")

    def offsets(self) -> tuple[list[int], list[int]]:
        """Where each line starts and ends in the source."""
        if self._offsets is None:
            self._offsets = self.remember("offsets", lambda: line_offsets(self.lines))
        return self._offsets

    # -- module level ----------------------------------------------------------------------
    def build(self, tree: ast.Module, encoding: str) -> FileModel:
        """The :class:`FileModel` of *tree*: the module's statements walked in order, first for what
        later ones refer to (enum aliases and constants, the devices of helper functions), then once
        more filling every list of the model together. One walk, not one per list: the statements of a
        generated file number in the tens of thousands, and the order is the meaning (a filter's constant
        is read as it stands at the call that names it)."""
        self.tree = tree  # for the file-level noqa, which must not be read inside a string
        statements = list(module_statements(tree.body, nested=False))
        for stmt, nested in statements:
            self.note_module_statement(stmt, nested)
        for name in self.device_lists():
            self.device_words.append(name.lower())  # `@parametrize("device", devices)` is a use
        # Device uses feed the inference of undeclared classes (and of their bases) and the API
        # checks of classes whose classification forbids them: on a migrated file most classes need
        # neither, and the scan, a walk of every method body, would be pure cost.
        self.scan_classes = self.classes_to_scan(statements) if self.devices else set()
        self.scan_devices = bool(self.scan_classes) and self.names_device_word()
        for stmt, _ in statements:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kinds = strongest(self.device_uses(stmt))
                if kinds:
                    self.helper_devices[stmt.name] = kinds
                    self.device_words.append(stmt.name.lower())
                    self.note_word(stmt.name.lower())
        classes = []
        calls = []
        imports = []
        deletions: list[NameAt] = []
        guards: list[Span] = []
        functions: list[NameAt] = []
        blocks: list[Span] = []
        tries: list[TryBlock] = []
        runtime: list[RuntimeName] = []
        without: list[tuple[int, int, str]] = []  # branches run whenever a device is absent
        dynamic: list[DynamicCode] = []
        passed: list[PassedName] = []
        writes: list[AttributeWrite] = []
        execs: list[Site] = []
        inner: list[InnerClass] = []
        by_attribute: list[AttributeBinding] = []
        by_call: list[BoundCall] = []
        # The statements that may create classes name one of these functions in their text, and
        # those that may end the import one of those: found once (a search per statement is
        # quadratic) in the text of the module's statements other than its classes, whose bodies
        # neither search reads (they are most of a test file's text).
        outside = self.remember("outside", lambda: self.outside_classes(tree.body))
        dynamic_text = self.remember(
            "dynamic",
            lambda: WordIndex(self.source, self.offsets(), self.ascii, _DYNAMIC_NAMES, True, outside),
        )
        exits = self.remember(
            "exits", lambda: WordIndex(self.source, self.offsets(), self.ascii, _EXIT_NAMES, False, outside)
        )
        # code that writes a class's attribute names it, or setattr/delattr: only the statements whose
        # text does are walked (a module function's whole body otherwise)
        written = (self.tax.attribute, "setattr", "delattr")
        writes_text = (
            self.remember(
                "writes", lambda: WordIndex(self.source, self.offsets(), self.ascii, written, False, outside)
            )
            if any(w in self.source for w in written)
            else None
        )
        for stmt, nested in statements:
            if isinstance(stmt, ast.If) and self.scan_devices:
                without += self.without_device(stmt)
            if isinstance(stmt, TRY) and stmt.handlers and stmt.body:
                last = stmt.handlers[-1]
                body = Span(stmt.body[0].lineno, stmt.body[-1].end_lineno or 0)
                tries.append(TryBlock(body, Span(stmt.handlers[0].lineno, last.end_lineno or 0)))
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                static = not nested and isinstance(stmt.value, (ast.Name, ast.Attribute))
                if static and isinstance(stmt.value, ast.Attribute):
                    root = stmt.value
                    while isinstance(root, ast.Attribute):
                        root = root.value
                    if isinstance(root, ast.Name):
                        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                        by_attribute += [
                            AttributeBinding(n, stmt.lineno, root.id)
                            for t in targets
                            for n in target_names(t)
                        ]
                if not static:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    if isinstance(stmt.value, ast.Call):
                        callee = dotted_name(stmt.value.func)
                        by_call += [
                            BoundCall(n, stmt.lineno, callee)
                            for t in targets
                            for n in target_names(t)
                            if n.startswith("Test")
                        ]
                    device = ""
                    if without and _holds_no_tests(stmt.value):
                        device = next((d for first, last, d in without if first <= stmt.lineno <= last), "")
                    runtime += [RuntimeName(n, stmt.lineno, device) for t in targets for n in target_names(t)]
            creates = dynamic_text.names_word(stmt)
            if creates and not isinstance(
                stmt, (*COMPOUND, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                dynamic += self.dynamic_creation(stmt, dynamic_text)
            elif creates and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # a module function that writes globals() or adds tests to a class (called at import)
                dynamic += [
                    d for d in self.dynamic_creation(stmt, dynamic_text) if d.kind in ("globals", "setattr")
                ]
            if isinstance(stmt, (ast.Expr, ast.Raise, ast.Assign)):
                dynamic += self.early_exit(stmt, exits)
            if writes_text is not None and writes_text.names_word(stmt):
                writes += [
                    AttributeWrite(*w) for w in attribute_writes(stmt, self.tax.attribute, self.literal)
                ]
            if creates and isinstance(stmt, ast.Expr) and is_call_to(stmt.value, frozenset({"exec"})):
                execs.append(self.site(stmt.value))
            if isinstance(stmt, ast.Delete):
                deletions += [NameAt(t.id, stmt.lineno) for t in stmt.targets if isinstance(t, ast.Name)]
            elif isinstance(stmt, ast.If) and is_main_guard(stmt.test):
                guards.append(Span(stmt.lineno, stmt.end_lineno or stmt.lineno))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith(
                self.tax.test_method_prefix
            ):
                functions.append(NameAt(stmt.name, stmt.lineno))
            blocks += [Span(*b) for b in skippable_blocks(stmt)]
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                imports.append(self.import_statement(stmt, nested))
                if isinstance(stmt, ast.ImportFrom):  # pytest collects an imported test function too
                    prefix = self.tax.test_method_prefix + "_"
                    bound = (a.asname or a.name for a in stmt.names)
                    functions += [NameAt(n, stmt.lineno) for n in bound if n.startswith(prefix)]
            elif isinstance(stmt, ast.ClassDef):
                classes.append(self.class_info(stmt, nested))
                inner += inner_test_classes(stmt, stmt.name, self.tax, self.header_site)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = self.instantiation(stmt.value)
                if call is not None:
                    calls.append(call)
                else:
                    passed += _passed_names(stmt.value)
        classes = self.attribute_uses(classes)
        keepers = self.class_keepers(statements, classes)
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
            class_keepers=keepers,
            unmodelled=self.unmodelled(tree.body, classes),
            inner_classes=tuple(inner),
            attribute_bound=tuple(by_attribute),
            bound_calls=tuple(by_call),
        )

    def class_keepers(
        self, statements: list[tuple[ast.stmt, bool]], classes: list[ClassInfo]
    ) -> tuple[ClassKeeper, ...]:
        """The module functions (defined unconditionally) that a class decorator of the file names
        as a plain name and that return the class they are given with its classification
        (:func:`~hwlint.model.bindings.returns_its_class`), each with the line of its ``def`` and
        of the next binding of the name (0: none): the name is bound to it in between."""
        names = {d.name for c in classes for d in c.decorators if d.site.text == d.name}
        if not names:
            return ()
        out = []
        for i, (stmt, nested) in enumerate(statements):
            if nested or not isinstance(stmt, ast.FunctionDef) or stmt.name not in names:
                continue
            if not returns_its_class(stmt, self.tax.attribute, self.literal):
                continue
            later = (
                s.lineno
                for s, _ in statements[i + 1 :]
                if any(n == stmt.name for n, _, _ in statement_bindings(s))
            )
            out.append(ClassKeeper(stmt.name, stmt.lineno, next(later, 0)))
        return tuple(out)

    def unmodelled(self, body: list[ast.stmt], classes: list[ClassInfo]) -> tuple[UnmodelledRoute, ...]:
        """The routes of :func:`~hwlint.model.bindings.unmodelled_routes` in the module's top-level
        statements; only those whose text names a word of the machinery, or the attribute more often
        than a class's declarations do, are walked."""
        attribute, source = self.tax.attribute, self.source
        starts, ends = self.offsets()
        declared = {c.site.line: len(c.declarations) for c in classes}
        module_words = word_roots(frozenset((attribute, *MODULE_WORDS)))  # `setattr` finds `__setattr__`
        walked: list[ast.stmt] = []
        spans: list[tuple[int, int]] = []
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # the module's docstring, or another string that does nothing
            first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
            # searched in place: a slice of each statement's text would copy the file once more
            start, end = starts[first - 1], ends[(stmt.end_lineno or stmt.lineno) - 1]
            if isinstance(stmt, ast.ClassDef):
                walk = source.count(attribute, start, end) > declared.get(stmt.lineno, 0) or any(
                    source.find(w, start, end) >= 0 for w in CLASS_WORDS
                )
            else:
                walk = any(source.find(w, start, end) >= 0 for w in module_words)
            if walk:
                walked.append(stmt)
                spans.append((start, end))
        if not walked:
            return ()
        offsets = (starts, ends)
        words = WordIndex(source, offsets, self.ascii, route_words(attribute), spans=spans, share=False)
        out = [
            UnmodelledRoute(*r) for stmt in walked for r in unmodelled_routes(stmt, attribute, True, words)
        ]
        return tuple(dict.fromkeys(out))

    def enum_bindings(
        self, statements: list[tuple[ast.stmt, bool]], classes: list[ClassInfo]
    ) -> tuple[NameAt, ...]:
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
                out.append(NameAt(name, stmt.lineno))
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

    def early_exit(self, stmt: ast.stmt, names: WordIndex) -> list[DynamicCode]:
        """A module-level statement that may end the module's import early: ``sys.exit()``,
        ``raise unittest.SkipTest``, ``pytest.skip(allow_module_level=True)``, ``importorskip``."""
        if isinstance(stmt, ast.Raise):
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if exc is not None and dotted_name(exc).rpartition(".")[2] in (
                "SkipTest",
                "Skipped",
                "SystemExit",
            ):
                return [DynamicCode(self.site(stmt), "exit")]
            return []
        for node in names.walk(stmt):
            if isinstance(node, ast.Call) and dotted_name(node.func) in _EXIT_CALLS:
                return [DynamicCode(self.site(node), "exit")]
        return []

    def dynamic_creation(self, stmt: ast.stmt, names: WordIndex) -> list[DynamicCode]:
        """Classes or tests *stmt* creates in a way only running it tells (``globals().update``...);
        *names*: where the functions that do so are named."""
        found = []
        for node in names.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and is_call_to(t.value, _SCOPE_FUNCTIONS):
                        found.append(DynamicCode(self.site(node), "globals"))
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "update"
                and is_call_to(func.value, _SCOPE_FUNCTIONS)
            ):
                found.append(DynamicCode(self.site(node), "globals"))
            elif isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3:
                found.append(DynamicCode(self.site(node), "type"))
            elif isinstance(func, ast.Name) and func.id == "setattr" and node.args:
                target = dotted_name(node.args[0])
                found.append(DynamicCode(self.site(node, target or self.segment(node)), "setattr"))
            elif isinstance(func, ast.Name) and func.id == "exec":
                found.append(DynamicCode(self.site(node), "exec"))
        return found

    def import_statement(self, stmt: ast.Import | ast.ImportFrom, nested: bool) -> ImportStatement:
        module = None
        if isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
        names = tuple((a.name, a.asname) for a in stmt.names)
        return ImportStatement(self.site(stmt, ""), module, names, nested)

    # -- comments --------------------------------------------------------------------------
    def noqa(self, tree: ast.Module) -> tuple[Suppression, ...]:
        """The noqa directives, read from comment tokens (:mod:`hwlint.model.noqa`)."""
        if "noqa" not in self.lowered:
            return ()
        # in an ASCII file the lowered text has the text's offsets: the lines saying noqa are found in it
        rows = rows_saying("noqa", self.lowered, self.offsets()[0]) if self.ascii else None
        out = [Suppression(line, codes) for line, codes in noqa_directives(self.lines, tree, rows)]
        exempt = file_exemption(self.lines, self.lowered, tree, rows)
        if exempt is not None:
            out.insert(0, Suppression(0, exempt))  # line 0: the whole file (FileModel.file_noqa)
        return tuple(out)


_SCOPE_FUNCTIONS = frozenset({"globals", "locals", "vars"})
_DYNAMIC_NAMES = (*_SCOPE_FUNCTIONS, "type", "setattr", "exec")  # what dynamic_creation looks for
_EXIT_NAMES = ("exit", "quit", "skip")  # in the text of every call in _EXIT_CALLS
_EXIT_CALLS = frozenset(
    {"sys.exit", "exit", "quit", "os._exit", "pytest.skip", "pytest.importorskip", "importorskip"}
)


def inner_test_classes(
    node: ast.ClassDef, dotted: str, tax: Taxonomy, header_site: Callable[[ast.AST, str], Site]
) -> list[InnerClass]:
    """The classes pytest collects inside *node* (named *dotted*): none unless *node* is a plain
    ``Test*`` class (no base but ``object``, no keyword), which pytest collects as a class of its own
    and whose body it walks; there a class defining a test is collected when it has a base (a
    ``TestCase`` collects whatever its name) or is named ``Test*``, and a plain ``Test*`` class is
    walked in turn."""
    if not node.name.startswith("Test") or node.keywords:
        return []
    if not all(ast.unparse(b) in ("object", "builtins.object") for b in node.bases):
        return []
    out = []
    for stmt in node.body:
        if not isinstance(stmt, ast.ClassDef):
            continue
        name = f"{dotted}.{stmt.name}"
        own = stmt.body
        tests = any(
            isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.name.startswith(tax.test_method_prefix)
            for s in own
        )
        if tests and (stmt.bases or stmt.name.startswith("Test")):
            declares = any(tax.attribute in target_names(t) for s in own for t in _targets(s))
            bases = tuple(ast.unparse(b) for b in stmt.bases)
            out.append(InnerClass(name, header_site(stmt, f"class {stmt.name}"), declares, bases))
        out += inner_test_classes(stmt, name, tax, header_site)
    return out


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return [stmt.target]
    return []


def _holds_no_tests(value: ast.expr) -> bool:
    """Whether *value* is a base that gives a class no tests: torch's ``NoTest``, or ``object``."""
    return isinstance(value, (ast.Name, ast.Attribute)) and dotted_name(value).rpartition(".")[2] in (
        "NoTest",
        "object",
    )


def _passed_names(call: ast.Call) -> list[PassedName]:
    """A :class:`PassedName` for each plain name *call* takes as an argument: a module-level call
    such as ``copy_tests(CommonTemplate, CpuTests, "cpu")`` may add tests to the classes it is given."""
    function = dotted_name(call.func)
    values = [*call.args, *(kw.value for kw in call.keywords)]
    alone = len(values) == 1 and not any(isinstance(a, ast.Starred) for a in call.args)
    return [PassedName(v.id, call.lineno, function, alone) for v in values if isinstance(v, ast.Name)]
