"""The classes and methods of a file as the model records them: declarations, methods and their
parameters, decorators, the tests a class body binds, and where the class's header ends.

A mixin of the builder (:class:`hwlint.model.build.Builder`), as :mod:`hwlint.model.calls` and
:mod:`hwlint.model.devices` are: it reads the builder's text, positions and memo.
"""

from __future__ import annotations

import ast
import bisect
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from .bindings import class_overrides, declaration_heads, may_rebind
from .records import ClassInfo, Declaration, Decorator, Method, Override, Site, UseKind, passed_params
from .syntax import (
    COMPOUND,
    WordIndex,
    after_word,
    child_nodes,
    class_body_statements,
    dotted_name,
    one_line,
    parametrize_names,
    parse_expression,
    target_names,
)


class ClassScan:
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
        """The :class:`ClassInfo` of *node*, built from one walk of its body (declarations,
        methods, tests it binds or defines conditionally, the device attribute) and of its device
        uses. It fills every field of the record at once: a walk per field would read the body
        several times, and :meth:`class_info` memoizes this whole result per class."""
        prefix = self.tax.test_method_prefix
        declarations = []
        methods = []
        if injected is not None:
            declarations.append(injected[0])
        device_attribute: Site | None = None
        device_value: str | None = None
        assigned: list[str] = []
        conditional: list[str] = []
        values: list[str] = []
        read: list[str] = []
        for stmt, nested in class_body_statements(node.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.append(self.method(stmt, prefix, scan))
                if nested and stmt.name.startswith(prefix):
                    conditional.append(stmt.name)
                continue
            decl = self.declaration(stmt)
            if decl is not None:
                declarations.append(replace(decl, conditional=True) if nested else decl)
            else:
                if not isinstance(stmt, COMPOUND):  # what a compound holds comes as its own statements
                    read += (
                        n.id
                        for n in ast.walk(stmt)
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                    )
                if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                    # a declaration's value is read as one (HWC003 when it is not the enum's)
                    value = stmt.value.func if isinstance(stmt.value, ast.Call) else stmt.value
                    if isinstance(value, (ast.Name, ast.Attribute)) and dotted_name(value):
                        values.append(dotted_name(value))
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
            device_uses=tuple(u for u in uses if u.kind != UseKind.NONE),
            device_attribute=device_attribute,
            device_value=device_value,
            assigned_tests=tuple(dict.fromkeys(assigned)),
            conditional_tests=tuple(dict.fromkeys(conditional)),
            body_reads=tuple(dict.fromkeys(read)),
            mentions=self.mentions(node) if any(u.kind == UseKind.HARD for u in uses) else (),
            overrides=overrides,
            dynamic_body=dynamic_body,
            values=tuple(dict.fromkeys(values)),
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
        starts, _ = self.offsets()
        end = node.end_lineno or node.lineno
        text = self.source[starts[node.lineno - 1] : starts[end] if end < len(starts) else len(self.source)]
        reads = Counter(d.site.text.partition(".")[0].strip() for d in declarations if d.member is not None)
        body = may_rebind(text, self.tax.attribute, len(declarations), dict(reads))
        overrides, dynamic = class_overrides(
            node, self.tax.attribute, (last.line, last.col) if last else None, heads, self.position, body
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
            if not after_word(text, pos) and not (
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
        value = parse_expression(value_text)
        col = indent + statement.index(value_text, statement.index("="))
        site = Site(line, col, one_line(value_text, 120), line, col + len(value_text))
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
        params = tuple(x.arg for x in args)
        defaulted = _defaulted(a)
        parametrized = _parametrized(node.decorator_list)
        is_test = node.name.startswith(prefix)
        # HWC202's fix reads body_names, of a test instantiation passes no device parameter
        passed = passed_params(self.tax.device_params, params, defaulted, parametrized)
        return Method(
            name=node.name,
            site=self.header_site(
                node, f"{'async ' if isinstance(node, ast.AsyncFunctionDef) else ''}def {node.name}"
            ),
            is_test=is_test,
            params=params,
            param_sites=tuple(self.site(x, x.arg) for x in args),
            decorators=tuple(self.decorator(d) for d in node.decorator_list),
            device_uses=self.method_uses(node) if scan else (),
            end_line=node.end_lineno or node.lineno,
            defaulted=defaulted,
            parametrized=parametrized,
            body_names=self.body_names(node) if is_test and not passed else (),
        )

    def body_names(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
        """The device parameter names whose value, were *node* to take one, some code of its body
        could read (:func:`reads_unbound`): a read before the body binds the name, a read in a
        nested function or class that does not bind it, ``global`` or ``nonlocal``. A body that
        binds the name first (``device = self.device_type``), reads it only as a loop's or a nested
        function's own (``for device, dtype in ...``, ``def run(device)``) or names it only as a
        keyword (``device=...``) reads no parameter. Neither a body whose text names none where a name
        may stand (``self.device`` is an attribute) nor a subtree whose text names none is walked."""
        wanted = self.tax.device_params
        starts, ends = self.offsets()
        start, end = starts[node.body[0].lineno - 1], ends[(node.end_lineno or node.lineno) - 1]
        if self.param_hits is None:  # once per file
            self.param_hits = {w: _unqualified(self.source, w) for w in wanted}
        left = []
        for w in wanted:
            hits = self.param_hits[w]
            i = bisect.bisect_left(hits, start)
            if i < len(hits) and hits[i] < end:
                left.append(w)
        if not left:
            return ()
        if self.param_index is None:
            self.param_index = WordIndex(self.source, (starts, ends), self.ascii, wanted, whole=True)
        names_word = self.param_index.names_word
        found = []
        for w in left:
            for stmt in node.body:
                if not names_word(stmt):
                    continue  # neither reads nor binds it
                if reads_unbound(stmt, w, names_word):
                    found.append(w)
                    break
                if _binds(stmt, w):
                    break
        return tuple(found)

    def decorator(self, node: ast.expr) -> Decorator:
        target = node.func if isinstance(node, ast.Call) else node
        name = dotted_name(target).rpartition(".")[2]
        if name in _EXPANDING or name.startswith("dtypes"):
            # kept whole: the items its arguments expand a test into are counted from this text
            return Decorator(name, self.site(node, self.segment(node, 1 << 20, 1 << 20)))
        if name.lower().startswith("skip"):
            # its condition read whole: which devices it skips the test without (model/skips.py)
            return Decorator(name, self.site(node, self.segment(node, 1000, 20)))
        if name == "parameterized_class":
            # kept whole, comments aside: whether its parameters may set the classification is read
            # from this text
            return Decorator(name, self.site(node, ast.unparse(node)))
        return Decorator(name, self.site(node))


#: Decorators whose arguments expand a test into items (``@dtypes...`` too): their text is kept whole.
_EXPANDING = frozenset({"parametrize", "parametrize_test", "ops", "modules", "optims"})
_HEADER_FILLER = frozenset(" \t\f()[],\\\r\n")  # what may sit between a class's last base and its colon


_CALLABLE_VALUES = (ast.Name, ast.Attribute, ast.Lambda, ast.Call)


def _bound_tests(stmt: ast.stmt, prefix: str) -> list[str]:
    """Test names a class-body statement other than a ``def`` binds to something pytest may call: an
    assignment of a name, attribute, lambda or call (``test_x = helper``, ``staticmethod(f)``), or
    an import (``from helpers import test_shared``)."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, _CALLABLE_VALUES):
        names = [n for t in stmt.targets for n in target_names(t)]
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        names = [(a.asname or a.name).partition(".")[0] for a in stmt.names]
    else:
        return []
    return [n for n in names if n.startswith(prefix)]


def _defaulted(a: ast.arguments) -> tuple[str, ...]:
    """The parameters of *a* that have a default value."""
    positional = [*a.posonlyargs, *a.args]
    names = [x.arg for x in positional[len(positional) - len(a.defaults) :]] if a.defaults else []
    names += [x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    return tuple(names)


def _parametrized(decorators: list[ast.expr]) -> tuple[str, ...]:
    """Parameters ``@parametrize("device, dtype", ...)`` (``parametrize_test``, ``pytest.mark.
    parametrize``) or hypothesis's ``@given(device=...)`` gives the decorated test."""
    out: list[str] = []
    for d in decorators:
        if isinstance(d, ast.Call) and dotted_name(d.func).rpartition(".")[2] == "given":
            out += [kw.arg for kw in d.keywords if kw.arg]  # hypothesis draws these: @given(device=...)
            continue
        if isinstance(d, ast.Call):
            out += parametrize_names(d, dotted_name(d.func).rpartition(".")[2])
    return tuple(out)


def _targets_bind(target: ast.expr, name: str) -> bool:
    """Whether the assignment target *target* binds *name* (``device``, ``(device, dtype)``)."""
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _binds(stmt: ast.stmt, name: str) -> bool:
    """Whether *stmt*, run in order, leaves *name* bound whatever happens (an assignment to it)."""
    if isinstance(stmt, ast.Assign):
        return any(_targets_bind(t, name) for t in stmt.targets)
    return isinstance(stmt, ast.AnnAssign) and stmt.value is not None and _targets_bind(stmt.target, name)


def reads_unbound(node: ast.AST, name: str, names_word: Callable[[ast.AST], bool] | None = None) -> bool:
    """Whether code in *node* may read *name* as the enclosing function left it: a load or ``del``
    of it, ``global``/``nonlocal`` naming it, in this scope or in a nested function, lambda or class
    that does not bind it as a parameter; a loop, a comprehension or a nested function that binds it
    reads its own (only what the enclosing scope evaluates for them is looked at: the loop's
    iterable, the first iterable, decorators and defaults). *names_word*: whether a node's text
    may name *name* (a subtree whose text does not is not walked)."""
    todo: list[ast.AST] = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            if n.id == name and not isinstance(n.ctx, ast.Store):
                return True
            continue
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            if name in n.names:
                return True
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = n.args
            own = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
            outer = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
            if not isinstance(n, ast.Lambda):
                outer += n.decorator_list
            todo += outer
            if not any(x.arg == name for x in own):
                todo += n.body if isinstance(n.body, list) else [n.body]
            continue
        comprehension = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        if isinstance(n, comprehension) and any(_targets_bind(g.target, name) for g in n.generators):
            todo.append(n.generators[0].iter)
            continue
        if isinstance(n, (ast.For, ast.AsyncFor)) and _targets_bind(n.target, name):
            todo += [n.iter, *n.orelse]
            continue
        if names_word is None:
            todo.extend(ast.iter_child_nodes(n))
        else:
            todo += [child for child in child_nodes(n) if names_word(child)]
    return False


def _unqualified(text: str, word: str) -> list[int]:
    """Where *text* holds *word* as a whole word that no dot comes just before: where a name may be
    (``self.device`` is an attribute)."""
    found = []
    pos = text.find(word)
    while pos >= 0:
        before = text[pos - 1] if pos else " "
        after = text[pos + len(word) : pos + len(word) + 1]
        if not (before.isalnum() or before in "_." or after.isalnum() or after == "_"):
            found.append(pos)
        pos = text.find(word, pos + 1)
    return found
