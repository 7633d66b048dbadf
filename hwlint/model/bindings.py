"""What else binds a classification: the code that may change the value ``getattr(cls, attribute)``
reads once the module ran, beyond the declaration itself.

The runtime's filter reads the attribute after the whole module ran. A declaration is the value it
reads only when nothing rebinds or deletes the name later in the class body (``del``, a ``for`` or
``with ... as`` target, ``except ... as``, ``import ... as``, a walrus, a ``def`` or nested class of
that name, a tuple target, ``global``), nothing writes the attribute from module code
(``TestB.hw_classification = None``, ``delattr``), the enum is the enum (not a name rebound to
something else) and nothing runs that could do any of this unseen (``exec()``, a metaclass,
``__init_subclass__``). This module finds that code in CPython's tree; the builder keeps it in the
model (:class:`~hwlint.model.records.Override`, ``FileModel.attribute_writes``...) and
:func:`hwlint.collection.declaration_doubts` says what it means for a class.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Callable, Iterator

from .records import OVERRIDE_INHERITED, OVERRIDE_SUBCLASSES, Override
from .syntax import DEFS, WordIndex, after_word, child_nodes, dotted_name, is_call_to, one_line

#: How :func:`statement_bindings` words a plain ``name = value`` (a declaration, when the name is
#: the attribute).
ASSIGN = "an assignment"

#: Metaclasses that leave a class's attributes as its body bound them.
_PLAIN_METACLASSES = frozenset({"type", "ABCMeta", "abc.ABCMeta"})

#: Calls in a class body that may bind any name in it (and so define tests, or the attribute).
_DYNAMIC_CALLS = frozenset({"exec", "eval", "locals", "vars"})


def _names_in_target(target: ast.expr) -> Iterator[ast.Name]:
    """The names an assignment (or for, with) target binds: a name, or the names of a tuple, list or
    starred target (``a, *b = ...``)."""
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, ast.Starred):
        yield from _names_in_target(target.value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _names_in_target(elt)


def _pattern_names(pattern: ast.AST) -> Iterator[str]:
    """Names a ``match`` pattern captures."""
    for node in ast.walk(pattern):
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            yield node.name
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest


def _expressions(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expression nodes a statement evaluates in its own scope: not the bodies of nested
    statements (walked on their own), nor lambdas and comprehensions (scopes of their own)."""
    stack: list[ast.AST] = []
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        values = value if isinstance(value, list) else [value]
        stack += [v for v in values if isinstance(v, ast.AST)]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def statement_bindings(stmt: ast.stmt) -> Iterator[tuple[str, ast.AST, str]]:
    """(name, node, how) for each name *stmt* itself binds or deletes in its scope, with the form in
    words; a plain ``name = value`` (and ``name: T = value``) is :data:`ASSIGN`."""
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            form = ASSIGN if isinstance(t, ast.Name) else "a tuple target"
            for n in _names_in_target(t):
                yield n.id, n, form
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
        yield stmt.target.id, stmt.target, ASSIGN
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        yield stmt.target.id, stmt.target, "an augmented assignment"
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        for n in _names_in_target(stmt.target):
            yield n.id, n, "a `for` target"
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                for n in _names_in_target(item.optional_vars):
                    yield n.id, n, "a `with ... as` target"
    elif isinstance(stmt, ast.Delete):
        for t in stmt.targets:
            for n in _names_in_target(t):
                yield n.id, n, "`del`"
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for a in stmt.names:
            if a.asname is not None or isinstance(stmt, ast.ImportFrom):
                yield (a.asname or a.name), stmt, "an import"
            else:
                yield a.name.partition(".")[0], stmt, "an import"
    elif isinstance(stmt, (*DEFS, ast.ClassDef)):
        yield stmt.name, stmt, "a `def`" if isinstance(stmt, DEFS) else "a nested class"
    elif isinstance(stmt, (ast.Global, ast.Nonlocal)):
        for name in stmt.names:
            yield name, stmt, "`global`"
    elif isinstance(stmt, ast.Try) or (hasattr(ast, "TryStar") and isinstance(stmt, ast.TryStar)):
        for h in stmt.handlers:
            if h.name:
                yield h.name, h, "`except ... as` (which deletes the name after the handler)"
    elif hasattr(ast, "Match") and isinstance(stmt, ast.Match):
        for case in stmt.cases:
            for name in _pattern_names(case.pattern):
                yield name, case.pattern, "a `match` capture"
    elif hasattr(ast, "TypeAlias") and isinstance(stmt, ast.TypeAlias) and isinstance(stmt.name, ast.Name):
        yield stmt.name.id, stmt.name, "a `type` alias"
    if not isinstance(stmt, (*DEFS, ast.ClassDef)):
        for node in _expressions(stmt):
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                yield node.target.id, node.target, "a walrus (`:=`)"


def _body_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement a class body runs in its own scope, in source order, compound ones entered."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (*DEFS, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list):
                yield from _body_statements(inner)
        for h in getattr(stmt, "handlers", ()):
            yield from _body_statements(h.body)
        for case in getattr(stmt, "cases", ()):
            yield from _body_statements(case.body)


Position = Callable[[ast.AST], tuple[int, int]]


def class_overrides(
    node: ast.ClassDef,
    attribute: str,
    last_declaration: tuple[int, int] | None,
    heads: dict[str, tuple[int, int]],
    position: Position,
    body: bool = True,
) -> tuple[tuple[Override, ...], ast.Call | None]:
    """The :class:`Override` records of the class *node*, and the first call in its body to
    ``exec``/``eval``/``locals``/``vars`` (None: none). *body* False: its header's only (the
    caller knows from the text that the body binds none of these names, :func:`may_rebind`).

    *last_declaration*: where the declaration in effect sits ((line, col) of its value; None: the
    body declares nothing, so any binding of *attribute* is what getattr reads). *heads*: the names
    the body's declarations read the enum through, each with the position of the last declaration
    that does (a rebinding of such a name before it changes the value read). *position*: (line,
    character column) of a node."""
    out: list[Override] = []
    dynamic: ast.Call | None = None
    for k in node.keywords:
        if k.arg == "metaclass" and dotted_name(k.value) not in _PLAIN_METACLASSES:
            line, col = position(k)
            out.append(
                Override(line, col, f"its metaclass `{dotted_name(k.value) or '...'}`", OVERRIDE_INHERITED)
            )
    for stmt in _body_statements(node.body) if body else ():
        if isinstance(stmt, DEFS) and stmt.name == "__init_subclass__":
            line, col = position(stmt)
            out.append(Override(line, col, "`__init_subclass__`", OVERRIDE_SUBCLASSES))
        for name, where, how in statement_bindings(stmt):
            at = position(where)
            if name == attribute and how != ASSIGN:
                if how == "`global`" or last_declaration is None or at > last_declaration:
                    out.append(Override(at[0], at[1], f"{how} of `{attribute}`"))
            elif name in heads and at < heads[name] and not enum_stand_in(stmt):
                out.append(Override(at[0], at[1], f"{how} of `{name}`, the enum the declaration reads"))
        if isinstance(stmt, (*DEFS, ast.ClassDef)):
            continue
        for expr in _expressions(stmt):
            if (
                isinstance(expr, ast.Call)
                and isinstance(expr.func, ast.Name)
                and expr.func.id in _DYNAMIC_CALLS
            ):
                line, col = position(expr)
                dynamic = dynamic or expr
                out.append(Override(line, col, f"`{expr.func.id}()`, which may bind any name in the body"))
    return tuple(dict.fromkeys(out)), dynamic


#: What follows a called name: blanks and line continuations, then its parenthesis.
_CALL_OPENS = re.compile(r"[\s\\]*\(")


def _dynamic_text(text: str) -> bool:
    """Whether *text* may hold a dynamic call (a word of :data:`_DYNAMIC_CALLS` then ``(``) or an
    ``__init_subclass__``. Each word is found with ``str.find`` and its neighbours tested in place:
    one pattern of the alternatives, tried at every position of every class body (``model.eval()``
    gets that far), cost 4% of a check on PyTorch's test/. The pattern it replaced missed a name
    and its parenthesis split by a backslash line continuation."""
    if "__init_subclass__" in text:
        return True
    for word in _DYNAMIC_CALLS:
        pos = text.find(word)
        while pos >= 0:
            if not after_word(text, pos) and _CALL_OPENS.match(text, pos + len(word)):
                return True
            pos = text.find(word, pos + 1)
    return False


def may_rebind(text: str, attribute: str, declarations: int, heads: dict[str, int]) -> bool:
    """Whether the class body *text* may hold what :func:`class_overrides` looks for: a dynamic
    call or ``__init_subclass__``, or a mention of *attribute* (or of an enum name in *heads*,
    with how many declarations read it) beyond the *declarations* that name it. A cheap scan of
    the text that lets nearly every class skip the walk of its body (it cost 8% of a check)."""
    if text.count(attribute) > declarations:
        return True
    if _dynamic_text(text):
        return True
    return any(text.count(head) > n for head, n in heads.items())


def _static_string(node: ast.expr, resolve: Callable[[ast.expr], object]) -> str | None:
    """The string *node* always evaluates to (a literal, literals joined by ``+`` or in an f-string
    without fields, a module constant *resolve* knows), else None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _static_string(node.left, resolve), _static_string(node.right, resolve)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [_static_string(v, resolve) for v in node.values]
        return "".join(p for p in parts if p is not None) if None not in parts else None
    if isinstance(node, ast.Name):
        value = resolve(node)
        return value if isinstance(value, str) else None
    return None


def attribute_writes(
    stmt: ast.stmt, attribute: str, resolve: Callable[[ast.expr], object]
) -> Iterator[tuple[str, int, str]]:
    """(target, line, code in words) for each write or deletion of ``X.<attribute>`` in the module
    statement *stmt* (a module-level function's body included: it may run at import). The target is
    the dotted name of X ("" when it is not a name). ``setattr``/``delattr`` count when their name
    argument is *attribute* statically (:func:`_static_string`; *resolve* reads module constants):
    a name computed at run time (``setattr(cls, f"{name}_cuda", fn)``, upstream's way to add tests)
    is hwselect's warning about setattr, not a doubt about the classification."""
    nodes = ast.walk(stmt) if isinstance(stmt, DEFS) else _expressions_and_targets(stmt)
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                for a in _attribute_targets(t):
                    if a.attr == attribute:
                        verb = "del " if isinstance(node, ast.Delete) else ""
                        yield (
                            dotted_name(a.value),
                            node.lineno,
                            f"`{verb}{dotted_name(a) or '....' + attribute}`",
                        )
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("setattr", "delattr")
        ):
            if len(node.args) < 2:
                continue
            if _static_string(node.args[1], resolve) != attribute:
                continue
            target = dotted_name(node.args[0])
            yield target, node.lineno, f"`{node.func.id}({target or '...'}, ...)`"


# -- code hwlint does not model -------------------------------------------------------------------
# Beyond the routes above, Python has many ways to reach a class, a class body's namespace or a
# module's names: a frame's ``f_locals``, ``type.__setattr__``, ``builtins.setattr``, ``setattr``
# handed to ``map`` or bound to another name, ``eval(compile(...))``, ``__import__("builtins").exec``,
# ``sys.modules[__name__].TestB = ...``, ``TestB.__bases__ = ...``, a descriptor's ``__set_name__``.
# hwlint does not follow any of them; it finds them, and the classes of a file that holds one are
# uncertain. A route is recognised by the machinery it uses (whatever names it computes) or by the
# attribute's name written where no modelled route reads it.

#: Words whose absence from a module statement's text proves it uses none of that machinery.
MODULE_WORDS = (
    "eval",
    "exec",
    "compile",
    "__import__",
    "builtins",
    "_getframe",
    "currentframe",
    "f_locals",
    "f_globals",
    "modules",
    "__bases__",
    "__class__",
    "__setattr__",
    "__delattr__",
    "__set_name__",
    "setattr",
    "delattr",
)
#: The same for a class (methods included): words common in test code (``model.eval()``,
#: ``torch.compile``, ``setattr(self, ...)``) are left to the routes :func:`class_overrides` reads.
CLASS_WORDS = (
    "__import__",
    "builtins",
    "_getframe",
    "currentframe",
    "f_locals",
    "f_globals",
    "sys.modules",
    "__bases__",
    "__setattr__",
    "__delattr__",
    "__set_name__",
)
_CODE_BUILTINS = frozenset({"eval", "exec", "compile", "__import__"})


#: Words of routes that count only where the code runs at import (``eval()``, ``sys._getframe()``).
_IMPORT_ONLY_WORDS = frozenset({"eval", "exec", "compile", "_getframe", "currentframe", "__class__"})


def route_words(attribute: str) -> tuple[str, ...]:
    """Words the text of every route of :func:`unmodelled_routes` in a function body holds: the
    machinery's names, the attribute (written, or named in a string) and a backslash (a string
    whose escapes spell it)."""
    words = (*MODULE_WORDS, *CLASS_WORDS, attribute, "\\")
    return tuple(w for w in words if w not in _IMPORT_ONLY_WORDS)


_WRITERS = frozenset({"setattr", "delattr"})
_BUILTINS_MODULES = frozenset({"builtins", "__builtins__"})
_FRAME_NAMESPACES = frozenset({"f_locals", "f_globals"})


def unmodelled_routes(
    stmt: ast.stmt,
    attribute: str,
    module_level: bool,
    words: WordIndex | None = None,
) -> Iterator[tuple[int, str]]:
    """(line, the code in words) for each route in *stmt* (a module statement, a module function
    or a class, bodies included) by which code hwlint does not model may change a class's
    attribute, a class body's names or a module's names. *module_level*: *stmt* runs at import (a
    call of ``eval``, ``exec`` or ``compile`` there is a route; in a function body, where tests
    and their helpers call them, it is not). *words*: where :func:`route_words` occur in the
    file's text; a subtree of a function body whose text names none of them holds no route and is
    not walked (code that runs at import is walked whole: class bodies, decorators, headers)."""
    word = re.compile(rf"(?<![\w]){re.escape(attribute)}(?![\w])")
    # One walk in ast.walk's order: what a node's parent says of it (a docstring, a read's name, the
    # function a call calls, code inside a def or lambda) is known before the node is visited.
    docstrings: set[int] = set()  # strings that name the attribute without writing it
    called: set[int] = set()
    todo: deque[tuple[ast.AST, bool]] = deque([(stmt, False)])
    while todo:
        node, in_function = todo.popleft()
        children = child_nodes(node)
        inner = in_function or isinstance(node, (*DEFS, ast.Lambda))
        if inner and words is not None:
            children = [child for child in children if words.names_word(child)]
        if children:
            todo.extend([(child, inner) for child in children])
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            docstrings.add(id(body[0].value))
        if isinstance(node, ast.Call):
            called.add(id(node.func))
            if dotted_name(node.func) in ("getattr", "hasattr") and len(node.args) >= 2:
                docstrings.add(id(node.args[1]))  # a read names the attribute: no route
        elif isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in called:
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in _WRITERS and isinstance(node.ctx, ast.Load):
                yield node.lineno, f"`{dotted_name(node) or name}` used as a value, not called"
                continue
        runs_at_import = not in_function and (module_level or node is not stmt)
        found = _route(node, attribute, word, docstrings, runs_at_import)
        if found is not None:
            yield node.lineno, found  # type: ignore[attr-defined]


def _route(
    node: ast.AST, attribute: str, word: re.Pattern[str], docstrings: set[int], runs_at_import: bool
) -> str | None:
    """The route *node* itself is, in words (None: none); see :func:`unmodelled_routes`. In a
    function body only the routes test code has no other use for count (``builtins.exec`` in a
    test, ``sys.modules["m"] = fake``, ``super().__setattr__(name, value)`` are test code)."""
    if isinstance(node, ast.Call):
        return _call_route(node, runs_at_import)
    if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return _write_route(node, attribute, runs_at_import)
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
        if word.search(node.value):
            return f"the string {one_line(node.value, 40)!r}, which names `{attribute}`"
        return None
    if isinstance(node, DEFS) and node.name == "__set_name__":
        return "a descriptor's `__set_name__`, which runs on each class whose body holds one"
    return None


def _call_route(node: ast.Call, runs_at_import: bool) -> str | None:
    func = node.func
    name = dotted_name(func)
    if isinstance(func, ast.Name):
        if func.id == "__import__" and node.args and _is_string(node.args[0], "builtins"):
            return '`__import__("builtins")`'
        if func.id in _CODE_BUILTINS and func.id != "__import__" and runs_at_import:
            return f"`{func.id}()`"
        if func.id in _WRITERS and node.args and _module_object(node.args[0]):
            return f"`{func.id}(sys.modules[...], ...)`"
        return None
    if not isinstance(func, ast.Attribute):
        return None
    owner, attr = func.value, func.attr
    code = attr in _CODE_BUILTINS
    if (code or attr in _WRITERS) and isinstance(owner, ast.Name) and owner.id in _BUILTINS_MODULES:
        return f"`{name}()`" if attr in _WRITERS or runs_at_import else None
    if (code or attr in _WRITERS) and is_call_to(owner, frozenset({"__import__"})):
        return f"`__import__(...).{attr}()`"
    if attr in ("__setattr__", "__delattr__") and len(node.args) == (3 if attr == "__setattr__" else 2):
        # the unbound form names its object: `type.__setattr__(TestB, name, value)`
        first = dotted_name(node.args[0])
        # in a function, `object.__setattr__(obj, ...)` sets an instance's attribute (a frozen
        # dataclass's); `type.__setattr__` is the form that reaches a class
        targets_class = runs_at_import or dotted_name(owner) == "type"
        if targets_class and first not in ("self", "cls") and not is_call_to(owner, frozenset({"super"})):
            return f"`{name or '...' + attr}({first or '...'}, ...)`"
    if attr in ("_getframe", "currentframe") and runs_at_import:
        return f"`{name}()`"
    if attr == "update" and _frame_namespace(owner):
        return "an update of a frame's `f_locals` / `f_globals`"
    return None


def _write_route(node: ast.Subscript | ast.Attribute, attribute: str, runs_at_import: bool) -> str | None:
    if isinstance(node, ast.Subscript):
        if _frame_namespace(node.value):
            return "a write into a frame's `f_locals` / `f_globals`"
        if dotted_name(node.value) == "sys.modules" and (runs_at_import or _is_name(node.slice, "__name__")):
            return "a write into `sys.modules`"
        return None
    if node.attr == "__bases__" or (node.attr == "__class__" and runs_at_import):
        return f"`{dotted_name(node) or '....' + node.attr} = ...`"
    if _module_object(node.value):
        return "a write into a module object from `sys.modules`"
    if node.attr == attribute and not runs_at_import and not _is_name(node.value, "self"):
        return f"`{dotted_name(node) or '....' + attribute} = ...` in a function"
    return None


def _is_string(node: ast.expr, value: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == value


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _frame_namespace(node: ast.expr) -> bool:
    """Whether *node* is a frame's ``f_locals`` / ``f_globals`` (``sys._getframe().f_locals``)."""
    return isinstance(node, ast.Attribute) and node.attr in _FRAME_NAMESPACES


def _module_object(node: ast.expr) -> bool:
    """Whether *node* is ``sys.modules[...]`` (or ``sys.modules.get(...)``, ``sys.modules`` itself)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    elif isinstance(node, ast.Call):
        node = node.func.value if isinstance(node.func, ast.Attribute) else node.func
    return dotted_name(node) in ("sys.modules", "modules")


def _attribute_targets(target: ast.expr) -> Iterator[ast.Attribute]:
    if isinstance(target, ast.Attribute):
        yield target
    elif isinstance(target, ast.Starred):
        yield from _attribute_targets(target.value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _attribute_targets(elt)


def _expressions_and_targets(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The statement itself and what it evaluates (module statements: nested bodies are visited as
    statements of their own by the builder; class bodies are not module code)."""
    if isinstance(stmt, ast.ClassDef):
        return
    yield stmt
    yield from _expressions(stmt)


def enum_stand_in(stmt: ast.stmt) -> bool:
    """Whether *stmt* defines an enum of its own from constants: ``class HardwareClassification(
    enum.Enum)`` whose body only assigns constants, or ``enum.Enum("HardwareClassification", "GENERIC
    ...")``. Such an enum's members are no member of torch's enum, so the runtime's filter refuses them
    loudly (TypeError); where torch has no such enum, a stand-in like this is the enum. Anything else
    bound to the enum's name (a class whose attributes are torch's members, another object) may hand
    the runtime a member other than the one the declaration names, in silence."""
    if isinstance(stmt, ast.ClassDef):
        if not stmt.bases or not all(dotted_name(b).rpartition(".")[2] in _ENUM_BASES for b in stmt.bases):
            return False
        for item in stmt.body:
            if isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant):
                continue  # the docstring
            if not (
                isinstance(item, ast.Assign)
                and all(isinstance(t, ast.Name) for t in item.targets)
                and isinstance(item.value, ast.Constant)
            ):
                return False
        return True
    value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
    return (
        isinstance(value, ast.Call)
        and dotted_name(value.func).rpartition(".")[2] in _ENUM_BASES
        and all(isinstance(a, ast.Constant) for a in value.args)
        and not value.keywords
    )


#: Enum bases whose subclasses' members are new objects (a stand-in, never torch's members).
_ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum"})


def declaration_heads(declarations: list[tuple[str, tuple[int, int]]]) -> dict[str, tuple[int, int]]:
    """For the (value text, position) of each declaration, the first name of its value
    (``HardwareClassification`` in ``HardwareClassification.GENERIC``) with the position of the
    last declaration that reads it."""
    heads: dict[str, tuple[int, int]] = {}
    for text, at in declarations:
        head = text.partition(".")[0].strip()
        if head.isidentifier():
            heads[head] = max(heads.get(head, at), at)
    return heads


__all__ = [
    "ASSIGN",
    "attribute_writes",
    "class_overrides",
    "declaration_heads",
    "enum_stand_in",
    "may_rebind",
    "route_words",
    "statement_bindings",
    "unmodelled_routes",
]


#: Calls a class decorator may hand the class it is given without changing what getattr reads of
#: it: they read it (setattr is checked apart, by the name it writes).
_READING_CALLS = frozenset({"getattr", "hasattr", "isinstance", "issubclass", "dir", "vars", "type", "id"})
#: Calls that run code hwlint cannot see with the function's own names in reach.
_SCOPE_CALLS = frozenset({"exec", "eval", "locals", "globals"})
#: Attributes of a class a decorator may set without changing the classification or the tests.
_NAMING = frozenset({"__name__", "__qualname__", "__doc__", "__module__"})


def returns_its_class(fn: ast.stmt, attribute: str, resolve: Callable[[ast.expr], object]) -> bool:
    """Whether the module function *fn*, used as a class decorator (``@fn`` on a class), returns the
    class it is given with *attribute* as the class body left it (upstream's ``@_expose_mixin_tests``,
    which copies a mixin's ``test_*`` methods onto the class with ``setattr``).

    That is: a plain ``def`` with no decorator and one parameter *p* without a default (any other
    has one); its body ends in ``return p``, every ``return`` of its own returns *p*, nothing rebinds
    *p*, nothing yields and nothing calls ``exec``, ``eval``, ``locals`` or ``globals``; *p* is only
    returned, read (``p.x``, ``getattr(p, ...)``, ``isinstance``...), given a naming attribute
    (``p.__doc__ = ...``) or another attribute, or the object of a ``setattr`` whose name cannot be
    *attribute*: a constant other than it, or a name tested by an enclosing
    ``if name.startswith("prefix")`` with a prefix *attribute* does not start with. A method of *p*
    is never called (it may write anything), and :func:`attribute_writes` finds no write of
    *attribute* in the body."""
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list:
        return False
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    if not positional or args.vararg is not None or len(args.defaults) < len(positional) - 1:
        return False
    if any(d is None for d in args.kw_defaults):
        return False
    param = positional[0].arg
    last = fn.body[-1]
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name) and last.value.id == param):
        return False
    if next(attribute_writes(fn, attribute, resolve), None) is not None:
        return False
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node in ast.walk(fn):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SCOPE_CALLS:
            return False
        if (
            isinstance(node, ast.Return)
            and _own_scope(node, fn, parents)
            and not (isinstance(node.value, ast.Name) and node.value.id == param)
        ):
            return False
        if (
            isinstance(node, ast.Name)
            and node.id == param
            and not _reads_only(node, attribute, parents, resolve)
        ):
            return False
    return True


def _own_scope(node: ast.AST, fn: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether *node* belongs to *fn*'s own scope (not to a def, lambda or class nested in it)."""
    up = parents.get(node)
    while up is not None and up is not fn:
        if isinstance(up, (*DEFS, ast.Lambda, ast.ClassDef)):
            return False
        up = parents.get(up)
    return True


def _reads_only(
    node: ast.Name,
    attribute: str,
    parents: dict[ast.AST, ast.AST],
    resolve: Callable[[ast.expr], object],
) -> bool:
    """Whether this use of the decorator's parameter (see :func:`returns_its_class`) leaves the
    class it names as it was, *attribute* included."""
    if not isinstance(node.ctx, ast.Load):
        return False  # rebound or deleted: what is returned may be another object
    up = parents.get(node)
    if isinstance(up, ast.Return):
        return True
    if isinstance(up, ast.Attribute):
        if isinstance(up.ctx, ast.Load):
            call = parents.get(up)
            return not (isinstance(call, ast.Call) and call.func is up)  # a method may write anything
        name = up.attr
        return name != attribute and (not name.startswith("__") or name in _NAMING)
    if not (isinstance(up, ast.Call) and node in up.args and isinstance(up.func, ast.Name)):
        return False
    function = up.func.id
    if function in _READING_CALLS:
        outer = parents.get(up)
        return not (isinstance(outer, ast.Call) and outer.func is up)  # getattr(cls, "setup")()
    if function != "setattr" or up.args[0] is not node or len(up.args) != 3:
        return False
    written = _static_string(up.args[1], resolve)
    if written is not None:
        return written != attribute and (not written.startswith("__") or written in _NAMING)
    return isinstance(up.args[1], ast.Name) and _ruled_out(up, up.args[1].id, attribute, parents)


def _ruled_out(node: ast.AST, name: str, attribute: str, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether *node* runs only under an ``if name.startswith("prefix")`` (alone or in an ``and``)
    whose prefix *attribute* does not start with, and whose body does not rebind the name: then the
    name is never *attribute*."""
    child, up = node, parents.get(node)
    while up is not None and not isinstance(up, (*DEFS, ast.Lambda)):
        if isinstance(up, ast.If) and child in up.body:
            if any(
                isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                for stmt in up.body
                for n in ast.walk(stmt)
            ):
                return False
            test = up.test
            tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
            for t in tests:
                if (
                    isinstance(t, ast.Call)
                    and isinstance(t.func, ast.Attribute)
                    and t.func.attr == "startswith"
                    and isinstance(t.func.value, ast.Name)
                    and t.func.value.id == name
                    and len(t.args) == 1
                    and isinstance(t.args[0], ast.Constant)
                    and isinstance(t.args[0].value, str)
                    and t.args[0].value
                    and not attribute.startswith(t.args[0].value)
                ):
                    return True
        child, up = up, parents.get(up)
    return False
