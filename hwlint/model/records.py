"""The records of a file's model: plain data, slotted, cacheable and cheap to ship between processes.

Positions follow ``ast``: lines are 1-based; columns are 0-based and counted in characters.

Cross-file facts (a base class or an instantiation in another module) are not resolved here; they
reach the model through :class:`Resolver`, whose default knows only the file itself.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol


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


#: Scopes of an :class:`Override`: the class that holds it (its own body rebinds or deletes the
#: attribute), every class deriving from it (``__init_subclass__``), or both (a metaclass).
OVERRIDE_SELF, OVERRIDE_SUBCLASSES, OVERRIDE_INHERITED = "self", "subclasses", "inherited"


@dataclass(slots=True, unsafe_hash=True)
class Override:
    """Code in a class's header or body that may change the value ``getattr(cls, attribute)`` reads
    once the module ran, whatever the declaration says: a later ``del``, ``for``, ``import ... as``,
    ``def`` of the name, ``global``, ``exec()``, a metaclass, ``__init_subclass__``. *what* says it in
    words (the message names it); *scope* is one of :data:`OVERRIDE_SELF`... above."""

    line: int
    col: int
    what: str
    scope: str = OVERRIDE_SELF


@dataclass(slots=True, unsafe_hash=True)
class Decorator:
    name: str  # last component of the decorator's (called) name: onlyCUDA, skipIf, dtypes
    site: Site


class UseKind(StrEnum):
    """Kinds of device use (the values are what a cache holds)."""

    #: Code that fails without the device (``torch.cuda.synchronize()``, ``"cuda"`` used as a
    #: device, ``.cuda()``, ``@onlyCUDA``).
    HARD = "hard"
    #: Code that only asks or skips (``TEST_CUDA``, ``skipIfXpu``, ``torch.cuda.is_available()``,
    #: anything under ``if TEST_CUDA:``).
    GUARD = "guard"
    #: No evidence at all, recorded only for a call the taxonomy lists as an accelerator API.
    NONE = "none"


class UseForm(StrEnum):
    """The syntax of a device use, which decides how it can be rewritten (see :attr:`DeviceUse.form`;
    the values are what a cache holds)."""

    #: A string literal (``DeviceUse.detail`` tells its role: :data:`ROLE_DEVICE`...).
    LITERAL = "literal"
    #: ``torch.cuda.X`` as a call without keywords or a reference; ``detail`` is the dotted name.
    CHAIN = "chain"
    #: ``torch.cuda.X(...)`` with keyword arguments.
    CHAIN_KEYWORDS = "chain-keywords"
    #: ``x.cuda(...)``; ``detail`` is the text inside the parentheses.
    METHOD = "method"
    #: A call to a module-level function whose body uses the device.
    HELPER = "helper"
    #: A name used as a device: ``device=DEVICE_CUDA``, ``.to(CUDA_DEVICE)``.
    NAME = "name"
    #: An identifier that spells the device (``TEST_CUDA``, ``onlyCUDA``): nothing to rewrite.
    IDENTIFIER = ""


SCOPE_BODY, SCOPE_DEFAULT, SCOPE_NESTED = "", "default", "nested"
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
    kind: UseKind = UseKind.HARD
    api: bool = False
    #: The syntax of the use, which decides how it can be rewritten.
    form: UseForm = UseForm.IDENTIFIER
    detail: str = ""
    #: The text a rewrite replaces: the literal, the dotted name of a chain, or ``.cuda(...)``.
    target: Site | None = None
    #: The use sits in a decorator (``@largeTensorTest(device="cuda")``, ``@onlyCUDA``).
    decorator: bool = False
    #: Where in its method the use sits: :data:`SCOPE_BODY` (the method's own code),
    #: :data:`SCOPE_DEFAULT` (a default argument, evaluated when the class is created) or
    #: :data:`SCOPE_NESTED` (a nested function, lambda or class, where ``self`` may be another object).
    scope: str = ""
    #: The device feature the use serves (:func:`device_feature` of the call it is an argument
    #: of: ``torch.autocast("xpu")`` -> "autocast"), "" for none.
    feature: str = ""


#: Words in a call's name that make it one device's feature, and the feature they name: code that
#: tests autocast, streams or the memory allocator of a device tests that device, not every one.
_FEATURES = (
    (re.compile(r"autocast|(?:^|_|\.)amp(?:$|_|\.)|gradscaler", re.I), "autocast"),
    (re.compile(r"stream|event", re.I), "streams"),
    (re.compile(r"memory|allocat|empty_cache|mem_get_info", re.I), "memory"),
)


def device_feature(name: str) -> str:
    """The device feature a call named *name* (dotted) exercises, or ""."""
    for pattern, feature in _FEATURES:
        if pattern.search(name):
            return feature
    return ""


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
    # parameters with a default value, and those a ``@parametrize("device", ...)``-like decorator
    # gives: neither is the ``device`` instantiation passes
    defaulted: tuple[str, ...] = ()
    parametrized: tuple[str, ...] = ()
    # the device parameter names (``device``, ``devices``) a test's body reads or binds, for a test
    # that instantiation passes none of them (:func:`passed_params`): HWC202's fix reads it
    body_names: tuple[str, ...] = ()


def passed_params(
    device_params: tuple[str, ...],
    params: tuple[str, ...],
    defaulted: tuple[str, ...],
    parametrized: tuple[str, ...],
    instantiated: bool = False,
) -> tuple[str, ...]:
    """The device parameters (``device``, ``devices``) instantiation passes a method with these
    *params*: those it takes without a default value and that no ``@parametrize("device", ...)``
    gives it; *instantiated* (the class is), a parameter with a default counts too."""
    return tuple(
        p
        for p in device_params
        if p in params and (instantiated or p not in defaulted) and p not in parametrized
    )


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
    # The names the body's statements other than defs read (``test_half = dtype(test_binomial)``
    # reads ``test_binomial``): a method they name cannot leave the class
    body_reads: tuple[str, ...] = ()
    # Where the file names the class outside its ``class`` line (its own methods included), for a
    # class with a hard device use (one a conversion may instantiate, which deletes the name)
    mentions: tuple[Site, ...] = ()
    # Code in the class that may change what getattr reads after the body ran (see Override), and
    # the first call in its body to exec(), eval(), locals() or vars(), which may also define tests
    overrides: tuple[Override, ...] = ()
    dynamic_body: Site | None = None
    # The names (dotted, as written) whose values the body binds at class level, called or not
    # (``stamp = Stamp()``, ``mark = helpers.MARK``): an object whose type has ``__set_name__``
    # runs code on the class when the body ends (the cross-file phase looks them up in helpers)
    values: tuple[str, ...] = ()

    @property
    def is_test(self) -> bool:
        """Whether the class's own body defines a test: a ``def test*`` or a test bound otherwise
        (:attr:`assigned_tests`). What its bases hold, and whether pytest collects it at all, is
        :mod:`hwlint.collection`'s answer."""
        return bool(self.assigned_tests) or any(m.is_test for m in self.methods)

    @property
    def declaration(self) -> Declaration | None:
        """The declaration in effect: the last assignment in the body wins, as at run time."""
        return self.declarations[-1] if self.declarations else None

    @property
    def test_methods(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.is_test)


@dataclass(frozen=True)
class DeviceFilter:
    """An ``only_for`` / ``except_for`` argument. ``devices`` is None when it cannot be resolved;
    *spelled* False: the call may pass it through ``**kwargs`` (or ``*args``) hwlint cannot read."""

    site: Site
    devices: tuple[str, ...] | None
    spelled: bool = True
    keyword: bool = True  # passed as `only_for=...` (False: by position, or inside `**{...}`)
    unresolved: str = ""  # why `devices` is None, where hwlint can say ("`DEVICES` is imported from m")


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

    def binding_module(self, module: str) -> str | None:
        """The local name under which this ``import`` statement binds *module*, if it does."""
        if self.module is not None:
            return None
        for imported, alias in self.names:
            if imported == module:
                return alias or module
        return None

    def binding(self, name: str) -> str | None:
        """The local name under which this statement binds *name* (a from-import), if it does."""
        for imported, alias in self.names:
            if imported == name:
                return alias or name
        return None


# The module-level facts of a file (FileModel's fields below): a few per file, frozen. A field named
# ``line``, ``end_line``, ``first``, ``last`` or ``rebound_line`` is a line number
# (:mod:`hwlint.fix.remodel` moves it when a fix inserts lines).


@dataclass(frozen=True, slots=True)
class Suppression:
    """A noqa directive: the codes it lists, () for a blanket one; line 0 is the file-level one."""

    line: int
    codes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Span:
    """Lines *first* to *last*, both included."""

    first: int
    last: int


@dataclass(frozen=True, slots=True)
class TryBlock:
    """A try statement with handlers: its body's lines and its handlers' lines."""

    body: Span
    handlers: Span


@dataclass(frozen=True, slots=True)
class NameAt:
    """A name at a line: a ``del Name``, a test function, a binding."""

    name: str
    line: int


@dataclass(frozen=True, slots=True)
class RuntimeName:
    """A module-level name bound to a value known only at run time (``TestCase = NoTest`` under an
    if, ``skip = functools.partial(skipIf, True)``, ``Base = object`` in an except). *device*: the
    one without which the binding runs and makes the name a class with no tests (``TestCase =
    NoTest`` under ``if not TEST_CUDA:``: a class on that base exists only with the device), else
    ""."""

    name: str
    line: int
    device: str


@dataclass(frozen=True, slots=True)
class DynamicCode:
    """Module-level code that creates classes or tests hwlint cannot see, or may end the import:
    *kind* is one of globals, type, setattr, exec, exit, loop (an instantiation whose class is not
    a plain name)."""

    site: Site
    kind: str


@dataclass(frozen=True, slots=True)
class PassedName:
    """A plain name passed to a module-level call that is not an instantiation:
    ``copy_tests(Template, CpuTests, "cpu")`` adds tests to CpuTests at run time."""

    name: str
    line: int
    function: str
    #: the name is the call's only argument (``make_propagate_real_tensors_cls(FakeTensorTest)``):
    #: what the call does, it does to that class alone
    alone: bool = False


@dataclass(frozen=True, slots=True)
class AttributeWrite:
    """Module code (a statement or a module-level function) that writes or deletes the attribute of
    a class: ``TestB.hw_classification = None``, ``delattr(TestB, "hw_classification")``. *target*:
    the dotted name written to, "" when not a name; *what*: the code in words."""

    target: str
    line: int
    what: str


@dataclass(frozen=True, slots=True)
class BoundCall:
    """A module-level ``Test*`` name bound to what a call returns (``TestB = make_class()``):
    *callee*, the called name as written, "" when not a name."""

    name: str
    line: int
    callee: str


@dataclass(frozen=True, slots=True)
class ClassKeeper:
    """A module function a class decorator of the file names that returns the class it is given
    with its classification as its body left it (:func:`~hwlint.model.bindings.returns_its_class`):
    the line of its ``def`` and of the next binding of the name (0: none)."""

    name: str
    line: int
    rebound_line: int


@dataclass(frozen=True, slots=True)
class UnmodelledRoute:
    """Code hwlint does not model that may change any class's attribute, a class body's names or
    the module's names (:func:`hwlint.model.bindings.unmodelled_routes`), in words."""

    line: int
    what: str


@dataclass(frozen=True, slots=True)
class InnerClass:
    """A class pytest collects inside a plain ``Test*`` class (``class TestOuter: class
    TestInner(TestCase)``), which no front end places: its dotted name, its ``class`` line, whether
    its own body declares the attribute, its bases' source text."""

    name: str
    site: Site
    declares: bool
    bases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AttributeBinding:
    """A module-level ``Test* = module.Name`` binding (pytest collects the class it names); *root*:
    the first name of the value."""

    name: str
    line: int
    root: str


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
    # suppression comments, by line
    noqa: tuple[Suppression, ...] = ()
    error: ParseError | None = None
    encoding: str = "utf-8"
    newline: str = "\n"
    imports: tuple[ImportStatement, ...] = ()
    # `del Name` statements at module level (also nested in if/try/...)
    deletions: tuple[NameAt, ...] = ()
    # `if __name__ == "__main__":` bodies, which pytest never runs
    main_guards: tuple[Span, ...] = ()
    # module-level test functions (pytest collects them; the runtime filter drops them)
    test_functions: tuple[NameAt, ...] = ()
    # blocks that may not run on import: if/else, for/while, except/else of a try, match cases
    conditional_blocks: tuple[Span, ...] = ()
    # try statements with handlers. When nothing raises (the common path) a name the body binds
    # keeps the body's value.
    try_blocks: tuple[TryBlock, ...] = ()
    runtime_names: tuple[RuntimeName, ...] = ()
    dynamic: tuple[DynamicCode, ...] = ()
    passed: tuple[PassedName, ...] = ()
    attribute_writes: tuple[AttributeWrite, ...] = ()
    # Module-level bindings of a name some declaration reads the enum through, other than imports,
    # aliases of the enum and stand-ins (an Enum of constants, whose members the runtime refuses
    # loudly): ``HardwareClassification = Members`` where ``Members.GENERIC`` is torch's CUDA.
    enum_bindings: tuple[NameAt, ...] = ()
    # Module-level ``exec()`` calls: they may rebind any name or attribute
    exec_calls: tuple[Site, ...] = ()
    class_keepers: tuple[ClassKeeper, ...] = ()
    unmodelled: tuple[UnmodelledRoute, ...] = ()
    inner_classes: tuple[InnerClass, ...] = ()
    attribute_bound: tuple[AttributeBinding, ...] = ()
    # Module-level ``Test*`` names bound to what a call returns (``TestB = make_class()``,
    # ``TestB = type("TestB", ...)``): pytest collects the class it may be.
    bound_calls: tuple[BoundCall, ...] = ()
    # Resolves names beyond the file (the project model sets it); None: this file only
    resolver: Resolver | None = field(default=None, compare=False, repr=False)
    # Indexes built once, so that every query below is a lookup or a bisection: a file with tens
    # of thousands of classes and calls must not cost their product.
    _index: dict[str, list[ClassInfo]] = field(default_factory=dict, compare=False, repr=False)
    _lines: dict[str, list[int] | None] = field(default_factory=dict, compare=False, repr=False)
    _calls: dict[str, list[Instantiation]] = field(default_factory=dict, compare=False, repr=False)
    _noqa: dict[int, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)
    _spans: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict, compare=False, repr=False)
    # The linearizations :func:`mro` made, per resolver: id of the resolver -> (the resolver, id of
    # a class -> (the class, its order)). The objects are held, so no id is reused while they live.
    _mros: dict[int, tuple[object, dict[int, tuple[ClassInfo, ...]]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __getstate__(self) -> dict:
        # the linearizations are keyed by ids, which mean nothing in another process
        return {**self.__dict__, "_mros": {}}

    def __post_init__(self) -> None:
        # dataclasses.replace() hands the old indexes in: start from empty ones, or every copy
        # (a model given a resolver) would list each class and call once more
        for name in ("_index", "_lines", "_calls", "_noqa", "_spans", "_mros"):
            object.__setattr__(self, name, {})
        for c in self.classes:
            self._index.setdefault(c.name, []).append(c)
        for name, found in self._index.items():
            lines = [c.site.line for c in found]
            self._lines[name] = lines if all(a <= b for a, b in itertools.pairwise(lines)) else None
        for i in self.instantiations:
            if i.class_name is not None:
                self._calls.setdefault(i.class_name, []).append(i)
        for d in reversed(self.noqa):  # the first comment on a line wins
            self._noqa[d.line] = d.codes
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
        return any(
            t.handlers.first <= line <= t.handlers.last and bound_in(name, t.body.first, t.body.last)
            for t in self.try_blocks
        )

    def runtime_bound(self, name: str, before: int = 1 << 30, after: int = 0) -> int:
        """The first line between *after* and *before* where *name* is bound to a run-time value
        at module level, else 0."""
        for r in self.runtime_names:
            if r.name == name and after < r.line < before:
                return r.line
        return 0

    def missing_without(self, name: str, before: int) -> tuple[int, str] | None:
        """(line, device) of the first module-level binding above *before* that makes *name* a
        class with no tests when that device is absent, else None."""
        for r in self.runtime_names:
            if r.device and r.name == name and r.line < before:
                return r.line, r.device
        return None

    def noqa_codes(self, line: int) -> tuple[str, ...] | None:
        """None: no noqa on *line*; (): blanket noqa; otherwise the listed codes."""
        return self._noqa.get(line) if line > 0 else None

    @property
    def file_noqa(self) -> tuple[str, ...] | None:
        """The file-level exemption (``# hwlint: noqa[: CODES]``): None, ()
        for every code, or the code prefixes exempted. Kept in ``noqa`` as line 0."""
        return self._noqa.get(0)

    def keeps_class(self, cls: ClassInfo, decorator: Decorator) -> bool:
        """Whether *decorator*, on the class *cls* of this file, is a plain name bound to a function
        of the file that returns the class with its classification (:attr:`class_keepers`)."""
        if decorator.site.text != decorator.name or not any(c is cls for c in self._index.get(cls.name, ())):
            return False
        line = decorator.site.line
        return any(
            k.name == decorator.name and k.line < line and (not k.rebound_line or line < k.rebound_line)
            for k in self.class_keepers
        )

    def exempts(self, code: str) -> bool:
        """Whether the file-level exemption covers *code*."""
        exempt = self._noqa.get(0)
        return exempt is not None and (not exempt or any(code.startswith(c) for c in exempt))


def _disjoint(spans: Iterable[Span]) -> tuple[list[int], list[int]]:
    """Spans merged into sorted disjoint ones, as (starts, ends) for bisection."""
    starts: list[int] = []
    ends: list[int] = []
    for first, last in sorted((s.first, s.last) for s in spans):
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

    def outside_doubts(self, model: FileModel, chain: Sequence[ClassInfo]) -> list[str]:
        """Why code of a module outside the scanned files (a helper of the checkout) may change
        what ``getattr`` reads on the classes of *chain* (an MRO), in words."""
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

    def outside_doubts(self, model: FileModel, chain: Sequence[ClassInfo]) -> list[str]:
        return []  # nor any other module


def mro(model: FileModel, cls: ClassInfo, resolver: Resolver | None = None) -> list[ClassInfo]:
    """The known part of *cls*'s method resolution order (C3), itself first.

    Bases that cannot be resolved are left out: they contribute nothing hwlint can see. Iterative,
    with classes compared by identity and each linearization kept for the model's later queries: a
    file controls the depth of its hierarchy, and a chain of 1,500 classes each deriving from the
    one before must neither exhaust the recursion limit nor cost more than the orders it holds.
    """
    resolver = resolver or model.resolver
    memo = _mro_memo(model, resolver)
    found = memo.get(id(cls))
    if found is None:
        found = _linearize(model, cls, resolver or _LOCAL, memo)
    return list(found)


_LOCAL = LocalResolver()


def _mro_memo(model: FileModel, resolver: Resolver | None) -> dict[int, tuple[ClassInfo, ...]]:
    entry = model._mros.get(id(resolver))
    if entry is None:
        entry = model._mros[id(resolver)] = (resolver, {})
    return entry[1]


def _linearize(
    model: FileModel, cls: ClassInfo, resolver: Resolver, memo: dict[int, tuple[ClassInfo, ...]]
) -> tuple[ClassInfo, ...]:
    """C3 of *cls*, its bases' first (a walk in post-order); a base met again on its own path (a
    cycle only a broken file can have) counts as having no bases."""
    path: set[int] = set()  # the classes being linearized, from *cls* to the top of the walk
    walk: list[tuple[ClassInfo, list[ClassInfo] | None]] = [(cls, None)]
    while walk:
        c, bases = walk[-1]
        if id(c) in memo:
            walk.pop()
            continue
        if bases is None:
            if id(c) in path:  # a cycle: its own ancestor
                walk.pop()
                continue
            bases = [b for b in (resolver.resolve_base(model, c, n) for n in c.bases) if b is not None]
            walk[-1] = (c, bases)
            path.add(id(c))
            walk.extend((b, None) for b in reversed(bases) if id(b) not in memo and id(b) not in path)
            continue
        walk.pop()
        path.discard(id(c))
        # a class's entry holds the class itself too, so that its id is not reused while it lives
        memo[id(c)] = _merge(c, [memo.get(id(b)) or (b,) for b in bases], bases)
    return memo[id(cls)]


def _merge(
    cls: ClassInfo, orders: list[tuple[ClassInfo, ...]], bases: list[ClassInfo]
) -> tuple[ClassInfo, ...]:
    """C3's merge of the bases' *orders* and the list of *bases*, after *cls*: linear in their
    lengths (an inconsistent hierarchy, which Python would refuse, falls back to depth-first order)."""
    if len(bases) == 1:
        return (cls, *orders[0])
    seqs = [s for s in (*orders, tuple(bases)) if s]
    tails: dict[int, int] = {}
    for s in seqs:
        for x in s[1:]:
            tails[id(x)] = tails.get(id(x), 0) + 1
    pos = [0] * len(seqs)
    done: set[int] = set()
    out = [cls]
    live = list(range(len(seqs)))
    while live:
        for i in live:
            head = seqs[i][pos[i]]
            if not tails.get(id(head)):
                break
        else:
            head = seqs[live[0]][pos[live[0]]]
        out.append(head)
        done.add(id(head))
        for i in live:
            s = seqs[i]
            while pos[i] < len(s) and id(s[pos[i]]) in done:
                pos[i] += 1
                if pos[i] < len(s):
                    tails[id(s[pos[i]])] -= 1  # from the tail to the head
        live = [i for i in live if pos[i] < len(seqs[i])]
    return tuple(out)


def effective_declaration(
    model: FileModel, cls: ClassInfo, resolver: Resolver | None = None
) -> tuple[Declaration, ClassInfo] | None:
    """The declaration ``getattr(cls, attribute)`` would find, and the class that holds it."""
    for c in mro(model, cls, resolver):
        if c.declaration is not None:
            return c.declaration, c
    return None


#: The device of a use that names accelerators without saying which (``requires_gpu``, ``HAS_GPU``).
ANY_ACCELERATOR = "accelerator"
