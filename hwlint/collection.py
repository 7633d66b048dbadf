"""What pytest, unittest and torch's runtime collect from a module: one model every consumer asks.

HWC001 and HWC005, the inference, hwselect and the report ask the same questions here and get the
same answers:

* **a test** is a ``def test*`` in a class body, or a test name bound there to something callable
  (``test_x = helper``, a lambda, ``staticmethod(f)``, ``functools.partialmethod(f, 1)``, a name
  imported into the body): :attr:`hwlint.model.ClassInfo.is_test` says whether a class's own body
  defines one;
* **a class's tests** are its own and those it inherits from bases hwlint can see, less the tests of
  a base that is instantiated (``instantiate_device_type_tests`` deletes them from the generic class,
  so its subclasses lose them too): :func:`tests`;
* **tests added at run time**: ``setattr(TestFoo, "test_x", ...)`` at module level (or in a module
  function), the class passed to a module-level call such as ``copy_tests(Template, CpuTests)``, or
  a class decorator not known to leave the class alone (``@_expose_mixin_tests``):
  :func:`runtime_tests`;
* **a class pytest collects**: one with a base from outside the file (perhaps ``unittest.TestCase``)
  or one named ``Test*``; a class whose every base is known and plain (a mixin) is not:
  :func:`collectable`;
* **a class that collects tests**, declared or not: collectable, or instantiated, and holding tests
  or getting them at run time, or setting ``device`` for the tests a base outside the scanned files
  may hold (:func:`unseen_bases`); a class with no test anywhere it can have one from is not
  "collected", however it is named or whatever ``device`` it sets: :func:`collected_tests`;
* the ``device`` a test takes from instantiation: a parameter without a default that no
  ``@parametrize`` gives (:func:`device_parameters`);
* **the classification the runtime reads**: ``getattr`` after the module ran, which is the
  declaration in effect only when nothing later rebinds or deletes it, nothing writes the attribute
  from module code, the enum is the enum and no metaclass, ``__init_subclass__``, ``exec()`` or
  unknown class decorator may change it: :func:`declaration_doubts` lists what stands in the way;
* the names instantiation generates (``TestFoo`` + ``CUDA``) and their devices.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from .model import (
    OVERRIDE_INHERITED,
    OVERRIDE_SELF,
    OVERRIDE_SUBCLASSES,
    ClassInfo,
    Decorator,
    FileModel,
    Instantiation,
    LocalResolver,
    Method,
    Resolver,
    effective_declaration,
    mro,
    passed_params,
)
from .taxonomy import Taxonomy

#: Bases that say nothing about a class being a test class.
PLAIN_BASES = frozenset(
    {"", "object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol"}
)

#: Bases whose own setUp picks devices (FSDPTest sizes its world by torch.cuda.device_count()): a
#: class deriving from one has evidence hwlint cannot see, and cannot be instantiated per device.
DISTRIBUTED_BASES = frozenset(
    {
        "MultiProcessTestCase",
        "MultiProcContinuousTest",
        "MultiThreadedTestCase",
        "DistributedTestBase",
        "DTensorTestBase",
        "DTensorOpTestBase",
        "FSDPTest",
    }
)

#: Modules whose ``TestCase`` sets up in ``setUpClass`` (dynamo's enters config patches there and
#: leaves them in ``tearDownClass``; inductor's derives from it). A device base's ``setUpClass``
#: (``CUDATestBase``'s, ``XPUTestBase``'s...) calls no ``super()``: where instantiation calls it
#: alone (torch 2.6; 2.13 calls both), theirs never runs in a generated class.
SETUP_CLASS_MODULES = frozenset({"torch._dynamo.test_case", "torch._inductor.test_case"})

#: Module-level functions that take a class and add no test to it (they parametrize the tests it
#: has, or run the module): a class passed only to these gets no test at run time.
_NO_NEW_TESTS = frozenset({"instantiate_parametrized_tests", "run_tests", "main"})


def _resolver(model: FileModel, resolver: Resolver | None) -> Resolver:
    return resolver or model.resolver or LocalResolver()


def tests(model: FileModel, cls: ClassInfo, resolver: Resolver | None = None) -> tuple[str, ...]:
    """The tests *cls* has, its own and those inherited from bases hwlint can see (``def test_x``
    and ``test_x = helper`` alike), in definition order: the names of :func:`test_holders`."""
    return tuple(test_holders(model, cls, resolver))


def test_holders(model: FileModel, cls: ClassInfo, resolver: Resolver | None = None) -> dict[str, ClassInfo]:
    """Each test *cls* has, in definition order, with the class of its MRO whose body holds it
    (``getattr`` finds the first). The tests of an instantiated base are gone: instantiation
    deletes the generic class's own tests, and a class inheriting them, instantiated before or
    after that base, or not at all, looks them up when pytest collects it, after the module ran."""
    names: dict[str, ClassInfo] = {}
    for c in mro(model, cls, resolver):
        if c is not cls and any(not model.is_conditional(i.site.line) for i in model.instantiations_of(c)):
            continue
        for m in c.test_methods:
            names.setdefault(m.name, c)
        for t in c.assigned_tests:
            names.setdefault(t, c)
    return names


def runtime_tests(model: FileModel, cls: ClassInfo) -> str | None:
    """How module code may add tests to *cls* at run time, in words (None: it adds none hwlint
    knows of): ``setattr`` on the class, or the class passed to a module-level call."""
    line = next(added_by_setattr(model, cls), None)
    if line is not None:
        return f"`setattr({cls.name}, ...)` (line {line}) adds attributes to it at run time"
    for line, function in _passed(model, cls):
        if function.rpartition(".")[2] in _NO_NEW_TESTS:
            continue
        return f"it is passed to `{function}` (line {line}), which may add tests to it"
    for c in mro(model, cls):
        if c.dynamic_body is not None:
            line = c.dynamic_body.line
            return f"the body of {c.name} calls exec(), eval(), locals() or vars() (line {line})"
    if may_add_tests(model, cls):
        _, d = unknown_class_decorators(model, cls)[0]
        return f"its class decorator `@{dotted(d) or d.name}` (line {d.site.line}) may add tests to it"
    return None


def added_by_setattr(model: FileModel, cls: ClassInfo) -> Iterator[int]:
    """The lines of module code (outside a ``__main__`` block) that ``setattr`` on *cls*."""
    for d in model.dynamic:
        if d.kind == "setattr" and d.site.text == cls.name and not model.under_main_guard(d.site.line):
            yield d.site.line


def _passed(model: FileModel, cls: ClassInfo) -> Iterator[tuple[int, str]]:
    """(line, function) of each module-level call after *cls* that is given the class itself (a
    ``__main__`` block's calls do not run on import)."""
    for p in model.passed:
        if p.name == cls.name and p.line >= cls.site.line and not model.under_main_guard(p.line):
            yield p.line, p.function


def tests_run_elsewhere(model: FileModel, cls: ClassInfo) -> bool:
    """Whether *cls* is a template: a class pytest does not collect whose tests a module-level call
    takes elsewhere (inductor's ``copy_tests(CommonTemplate, CpuTests, "cpu")``), so they run in
    the classes that receive them."""
    return not collectable(model, cls) and next(_passed(model, cls), None) is not None


def collectable(model: FileModel, cls: ClassInfo, resolver: Resolver | None = None) -> bool:
    """Whether pytest collects *cls* at all.

    A class whose every base is known and none comes from outside the file cannot be a
    ``unittest.TestCase``: pytest then collects it only under its ``Test*`` naming rule (a mixin
    such as ``class _OpsMixin:`` holding test methods is never collected on its own)."""
    found = _resolver(model, resolver)
    for c in mro(model, cls, resolver):
        for base in c.bases:
            if base in PLAIN_BASES:
                continue
            if found.resolve_base(model, c, base) is None:
                return True  # a base from outside the file, perhaps TestCase
    return cls.name.startswith("Test")


def surely_testcase(model: FileModel, cls: ClassInfo, resolver: Resolver | None = None) -> bool:
    """Whether a base in *cls*'s known MRO is a ``...TestCase`` by name (not rebound at run time):
    pytest collects a unittest.TestCase whatever its name."""
    return any(
        base.rpartition(".")[2].endswith("TestCase")
        and not model.runtime_bound(base.partition(".")[0], before=c.site.line)
        for c in mro(model, cls, resolver)
        for base in c.bases
    )


def collected_tests(
    model: FileModel, cls: ClassInfo, resolver: Resolver | None = None
) -> tuple[str, ClassInfo | None] | None:
    """How *cls*, which defines no test of its own, still collects tests, in words, and the base
    that holds them (None when they come at run time or from outside the file); None when it
    collects none: it is neither collectable nor instantiated, or it has no test anywhere."""
    calls = model.instantiations_of(cls)
    if not calls and not collectable(model, cls, resolver):
        return None
    inherited = tests(model, cls, resolver)
    added = runtime_tests(model, cls)
    if not inherited and added is None:
        # the classes hwselect warns about (hidden_tests): pytest collects what such a base holds
        unknown = unseen_bases(model, cls, resolver)
        if not unknown:
            return None
        if cls.device_attribute is not None:
            device = cls.device_attribute.text
            return f"it sets `{device}` for the tests it may inherit from `{unknown[0]}`", None
        return f"it may inherit tests from `{unknown[0]}`, which is outside the scanned files", None
    holder = next((c for c in mro(model, cls, resolver)[1:] if c.is_test), None) if inherited else None
    if calls:
        return f"it is passed to `{calls[0].function}` (line {calls[0].site.line})", holder
    if holder is not None:
        return f"it inherits tests from `{holder.name}`", holder
    assert added is not None
    return added, None


def unseen_bases(model: FileModel, cls: ClassInfo, resolver: Resolver | None = None) -> list[str]:
    """The bases of *cls*'s MRO outside the scanned files that may hold tests pytest collects
    through *cls* (``OpsTestBase``, ``_DistTestBase``, a mixin beside a ``TestCase``), when *cls* is
    a ``Test*`` class with a base named like a test class; a ``...TestCase`` itself defines no test."""
    if not cls.name.startswith("Test"):
        return []
    found = _resolver(model, resolver)
    bases = [(c, b) for c in mro(model, cls, resolver) for b in c.bases if b not in PLAIN_BASES]
    if not any(b.endswith("TestCase") or "Test" in b for _, b in bases):
        return []
    # torch's distributed bases (FSDPTest...) set up processes and define no test
    return [
        b
        for c, b in bases
        if not b.endswith("TestCase")
        and b.rpartition(".")[2] not in DISTRIBUTED_BASES
        and found.resolve_base(model, c, b) is None
    ]


def hidden_tests(model: FileModel) -> list[str]:
    """``Test*``-named classes with no test hwlint can see but a base outside the scanned files that
    may hold some (:func:`unseen_bases`): pytest may collect them, hwselect never selects them."""
    out = []
    for cls in model.classes:
        if not cls.name.startswith("Test") or model.under_main_guard(cls.site.line) or tests(model, cls):
            continue
        unknown = unseen_bases(model, cls)
        if unknown:
            out.append(
                f"{cls.name} (line {cls.site.line}) has no test hwlint can see, but its base "
                f"{', '.join(unknown)} is outside the scanned files: if it holds tests, pytest collects "
                "them and hwselect does not select them"
            )
    return out


def hidden_bases(chain: list[ClassInfo]) -> list[str]:
    """Bases of the classes of *chain* (an MRO) from outside it that may hold device code or tests:
    the distributed ones, and any whose name does not say it is a TestCase (``AbstractTimeoutTest``,
    ``ShardedTensorTestBase``)."""
    known = {c.name for c in chain}
    out = []
    for c in chain:
        for base in c.bases:
            name = base.rpartition(".")[2]
            if not name or name in known or name in PLAIN_BASES:
                continue
            if name in DISTRIBUTED_BASES or not name.endswith("TestCase"):
                out.append(name)
    return out


def device_parameters(taxonomy: Taxonomy, method: Method, instantiated: bool = False) -> tuple[str, ...]:
    """The device parameters (``device``, ``devices``) instantiation passes *method*: those it takes
    without a default value and that no ``@parametrize("device", ...)`` gives it
    (``def test_exp(self, device="mps")`` takes a plain default, not the fixture). In a class a
    call *instantiated*, a parameter with a default counts too: torch's ``instantiate_test``
    passes ``device`` whenever the test's signature names it."""
    m = method
    return passed_params(taxonomy.device_params, m.params, m.defaulted, m.parametrized, instantiated)


# -- class decorators ----------------------------------------------------------------------------
# A class decorator runs at import and may do anything to the class: upstream's
# ``@_expose_mixin_tests`` copies a mixin's ``test_*`` methods onto it with ``setattr``; torch's
# ``@slowTest`` or ``@onlyCUDA`` return a function in its place (pytest then collects no class of that
# name); ``parameterized_class`` makes new classes. A decorator is *harmless* when it returns the class
# itself with the same name and the same tests (it may mark them skipped, expected to fail, or patch
# their configuration); each entry below was checked against torch's testing modules (2.13 and
# 2.14.1) or the standard library. Any other class decorator makes the class uncertain.

#: Decorators (the dotted name as written, call arguments aside) that return the class unchanged.
HARMLESS_NAMES = frozenset(
    {
        # unittest and pytest
        "skip",
        "skipIf",
        "skipUnless",
        "expectedFailure",
        "skipif",
        "xfail",
        # torch.testing._internal.common_utils
        "markDynamoStrictTest",
        "unMarkDynamoStrictTest",
        "instantiate_parametrized_tests",  # expands @parametrize tests in place; the class stays
        "serialTest",
        "requires_cuda",
        "requires_cuda_p2p_access",
        # torch.testing._internal.common_distributed
        "requires_nccl",
        "requires_nccl_version",
        "requires_gloo",
        "requires_mpi",
        "skip_if_win32",
        "skip_but_pass_in_sandcastle",
        "skip_but_pass_in_sandcastle_if",
        # torch.testing._internal.inductor_utils: functools.partial(unittest.skipIf, ...), written
        # `@requires_triton()`
        "requires_gpu",
        "requires_triton",
        "requires_helion",
        # torch.testing._internal.triton_utils: unittest.skipUnless(...)
        "requires_cuda_and_triton",
        "requires_xpu_and_triton",
        "requires_gpu_and_triton",
        # torch.testing._internal.common_device_type: records dtypes on the object, returns it
        "dtypes",
        # torch.testing._internal.common_utils: marks inherited tests expectedFailure on the class
        # (setattr of the names it is given), returns it
        "xfail_inherited_tests",
        # dataclasses
        "dataclass",
        "dataclasses.dataclass",
    }
)
#: Name patterns of torch's skip and expected-failure decorators (``skipIfRocm``,
#: ``skipIfTorchDynamo``, ``xfailIfS390X``, ``dtypesIfCUDA``): each handles a class by marking it.
HARMLESS_PATTERN = re.compile(
    r"^(?:skipIf|skipUnless|xfailIf|xpassIf|expectedFailureIf|dtypesIf)[A-Za-z0-9_]*$"
)
#: Dotted prefixes and suffixes: pytest's markers, configuration patches (``config.patch``,
#: ``torch._inductor.config.patch``, ``inductor_config.patch``) and ``unittest.mock.patch``, which on
#: a class patch each test method and return the class.
_HARMLESS_DOTTED = re.compile(
    r"^(?:pytest\.)?mark\.\w+$|(?:^|\.|_)config\.patch$|^(?:unittest\.)?(?:mock\.)?patch(?:\.object|\.dict|\.multiple)?$"
)
_UNITTEST = re.compile(r"^unittest\.(?:skip|skipIf|skipUnless|expectedFailure)$")


def dotted(decorator: Decorator) -> str:
    """The decorator's dotted name as written: ``unittest.skipIf`` for ``@unittest.skipIf(...)``."""
    text = decorator.site.text.lstrip("@").strip()
    m = re.match(r"[\w.]+", text)
    return m.group(0) if m else ""


def harmless(decorator: Decorator) -> bool:
    """True when *decorator*, applied to a test class, returns that class with its tests."""
    name = dotted(decorator)
    if not name:
        return False
    if name in HARMLESS_NAMES or _UNITTEST.match(name) or _HARMLESS_DOTTED.search(name):
        return True
    last = name.rpartition(".")[2]
    # torch's own helpers are imported under their name; a dotted spelling keeps the last part
    return (last in HARMLESS_NAMES and name.startswith(("torch.", "common_", "unittest."))) or bool(
        HARMLESS_PATTERN.match(last)
    )


def unknown_class_decorators(model: FileModel, cls: ClassInfo) -> list[tuple[ClassInfo, Decorator]]:
    """The class decorators on *cls* and its bases in the file that hwlint does not know to be
    harmless, with the class each decorates: a name hwlint knows counts only when it comes from a
    module hwlint trusts (``skipIfRocm`` imported from a helper of the checkout may be anything)."""
    return [
        (c, d)
        for c in mro(model, cls)
        for d in c.decorators
        if not harmless(d) or not trusted_module(origin(model, _head(d), d.site.line) or "")
    ]


def _head(decorator: Decorator) -> str:
    return dotted(decorator).partition(".")[0]


def trusted_module(module: str) -> bool:
    """Whether names imported from *module* are what their names say: torch's, pytest's and the
    standard library's (a pull request changes none of them); "" (not imported) counts as trusted.
    Any other module is code hwlint does not read: a helper of the checkout, perhaps."""
    top = module.partition(".")[0]
    if not module:
        return True
    return top in ("torch", "pytest", "_pytest") or top in sys.stdlib_module_names


def origin(model: FileModel, name: str, line: int) -> str | None:
    """The module the last import before *line* that binds *name* imports it from (None: no
    import binds it; a relative module keeps its dots)."""
    for imp in reversed(model.imports):
        if imp.site.line >= line:
            continue
        for imported, alias in imp.names:
            if imp.module is not None and imported != "*" and (alias or imported) == name:
                return imp.module
            if imp.module is None and (alias or imported.partition(".")[0]) == name:
                return imported
    return None


def test_module(module: str) -> bool:
    """Whether *module* (dotted, relative dots kept) names a test module by its file's name
    (``test_*``, ``*_test``): hwlint scans it, so a class imported from it is one it sees (pytest
    collects ``from quantization.core.test_quantized_op import TestQuantizedOps`` in the importer
    too, and so does hwselect)."""
    last = module.rpartition(".")[2]
    return last.startswith("test_") or last.endswith("_test")


#: Kinds of :class:`Unseen` records: a ``Test*`` name bound to a call's result, to a module's
#: attribute, imported by name, a star import, a write into ``globals()``.
UNSEEN_CALL, UNSEEN_ATTRIBUTE, UNSEEN_IMPORT, UNSEEN_STAR, UNSEEN_GLOBALS = (
    "call",
    "attribute",
    "import",
    "star",
    "globals",
)


@dataclass(frozen=True)
class Unseen:
    """Module code that binds, or may bind, a class pytest collects and hwlint does not see: *name*
    is the module-level name pytest collects it under ("" when code computes it), *what* says it in
    words (without the line)."""

    line: int
    kind: str
    name: str
    what: str


def unseen_classes(model: FileModel) -> list[Unseen]:
    """The module code of *model* by which pytest may collect a class no front end sees, in line
    order (``__main__`` blocks, which pytest never runs, left out):

    * a ``Test*`` name bound to what a call returns (``TestB = make_class()``, ``TestB =
      type(...)``, ``wrap_test_class(...)``), unless the called name comes from torch, pytest or the
      standard library (``TestExpect = Enum(...)``) or is a class of the file (an instance);
    * a ``Test*`` name bound to an attribute of a module other than those (``TestB = helpers.Hidden``);
    * a ``Test*`` name imported from such a module that is not a test module (``from helpers import
      TestHidden``; a class imported from a test module is one hwlint sees there, as pytest does);
    * a star import from such a module (it may bind any ``Test*`` class);
    * a write into ``globals()`` (``globals()["TestY"] = ...``, ``globals().update(...)``), at module
      level or in a module function.

    A name bound so whose last binding is a class of the file, or that is deleted, is seen: left out.
    Names ending ``TestCase`` are bases (``TestCase = NoTest``), not test classes."""
    out: list[Unseen] = []
    # a name deleted, or instantiated (which deletes it), is not collected under that name
    deleted = {d.name for d in model.deletions} | {i.class_name for i in model.instantiations if i.class_name}

    def shown(name: str, line: int) -> bool:
        if not name.startswith("Test") or name.endswith("TestCase") or name in deleted:
            return False
        later = model.class_named(name)
        return not model.under_main_guard(line) and (later is None or later.site.line < line)

    for b in model.bound_calls:
        head = b.callee.partition(".")[0]
        module = origin(model, head, b.line) if head else None
        if not shown(b.name, b.line) or (module is not None and trusted_module(module)):
            continue
        if module is None and head and model.class_named(b.callee, b.line) is not None:
            continue  # an instance of a class of the file
        what = f"`{b.name}` is bound to a value computed at run time"
        out.append(Unseen(b.line, UNSEEN_CALL, b.name, what))
    for a in model.attribute_bound:
        module = origin(model, a.root, a.line)
        if module is not None and not trusted_module(module) and shown(a.name, a.line):
            what = f"`{a.name}` is bound to a class of `{module}`, which hwlint does not read"
            out.append(Unseen(a.line, UNSEEN_ATTRIBUTE, a.name, what))
    for imp in model.imports:
        line, module = imp.site.line, imp.module
        if module is None or trusted_module(module) or test_module(module) or model.under_main_guard(line):
            continue
        for imported, alias in imp.names:
            if imported == "*":
                what = f"`from {module} import *` may bind any `Test*` class"
                out.append(Unseen(line, UNSEEN_STAR, "", what))
            elif shown(alias or imported, line) and not imported.endswith(_HELPER_SUFFIXES):
                what = f"`{alias or imported}` is imported from `{module}`, which hwlint does not read"
                out.append(Unseen(line, UNSEEN_IMPORT, alias or imported, what))
    for d in model.dynamic:
        if d.kind == "globals" and not model.under_main_guard(d.site.line):
            # `globals()["TestY"] = ...` names the class pytest collects; a computed key does not
            named = _GLOBALS_KEY.match(d.site.text)
            name = named.group(1) if named and shown(named.group(1), d.site.line) else ""
            what = (
                f"a write into `globals()` binds `{name}`"
                if name
                else "a write into `globals()` may bind any `Test*` class"
            )
            out.append(Unseen(d.site.line, UNSEEN_GLOBALS, name, what))
    return sorted(out, key=lambda u: u.line)


_GLOBALS_KEY = re.compile(r"""globals\(\s*\)\s*\[\s*(?:'|")(\w+)(?:'|")\s*\]\s*=""")

#: Names of helper classes rather than test classes (a base, a mixin, a template): imported, they
#: are bases of the file's own classes, whose tests hwlint sees.
_HELPER_SUFFIXES = ("TestCase", "Base", "Mixin", "Template")


def may_add_tests(model: FileModel, cls: ClassInfo) -> bool:
    """True when an unknown class decorator may give *cls* tests hwlint cannot see: it decorates
    *cls* or a base in the file, and *cls* is a test holder (``Test*``, or a ``...TestCase`` base)."""
    if not unknown_class_decorators(model, cls):
        return False
    if cls.name.startswith("Test"):
        return True
    return any(b.rpartition(".")[2].endswith("TestCase") for c in mro(model, cls) for b in c.bases)


#: How :func:`decorator_reason` begins (hwselect names such selected classes on stderr).
DECORATOR_REASON = "class decorator @"


def decorator_reason(c: ClassInfo, d: Decorator) -> str:
    """Why a class with the unknown decorator *d* (on *c*) is addressed through its file."""
    return (
        f"{DECORATOR_REASON}{dotted(d) or d.name} on {c.name} (line {d.site.line}) is not one hwlint "
        "knows to leave the class alone: tests it adds are not counted, and it may rename or replace "
        "the class"
    )


def generated_devices(taxonomy: Taxonomy, call: Instantiation) -> list[str]:
    """Device types *call* may generate classes for (filters applied where they can be resolved)."""
    out = []
    for name, dev in taxonomy.devices.items():
        aliases = taxonomy.device_aliases(name)
        only, excluded = call.only_for, call.except_for
        # An empty only_for is falsy, and the runtime then applies no filter at all.
        if only is not None and only.devices and not aliases & set(only.devices):
            continue
        if excluded is not None and excluded.devices is not None and aliases & set(excluded.devices):
            continue
        if dev.opt_in and call.opt_in(dev.opt_in) is False:
            continue
        out.append(name)
    return out


def generated_suffixes(taxonomy: Taxonomy, device: str) -> list[str]:
    """Class-name suffixes instantiation may use for *device* (PrivateUse1 also uses backend names)."""
    names = [device.upper()]
    if device == "privateuse1":
        names += [b.upper() for b in taxonomy.backends()]
    return names


# -- what getattr reads ----------------------------------------------------------------------------


def declaration_doubts(
    model: FileModel,
    cls: ClassInfo,
    attribute: str,
    resolver: Resolver | None = None,
    decorators: bool = True,
) -> list[str]:
    """Why the value ``getattr(cls, attribute)`` reads once the module ran may not be the declaration
    hwlint reads (empty: it is), each in words with its line. HWC006 reports them; hwselect warns and
    addresses such a class through its file.

    What counts: in the classes of *cls*'s MRO up to the one whose declaration is in effect, code
    in the body after the declaration that rebinds or deletes the name, and a last declaration under
    a condition; a metaclass or ``__init_subclass__`` anywhere in the known MRO; module code that
    writes or deletes the attribute of one of those classes (or of something that is not a name); a
    module-level rebinding, before the class, of the name the declaration reads the enum through;
    ``exec()`` at module level; a class decorator not known to leave the class alone (left out
    without *decorators*: hwselect words those its own way, :func:`decorator_reason`). A function
    of the file that returns the class it is given and writes no classification
    (``FileModel.keeps_class``) is no doubt: the runtime reads the declaration."""
    chain = mro(model, cls, resolver)
    found = effective_declaration(model, cls, resolver)
    holder = found[1] if found is not None else None
    out: list[str] = []
    reached = False
    for c in chain:
        for o in c.overrides:
            if (
                (o.scope == OVERRIDE_SELF and not reached)
                or o.scope == OVERRIDE_INHERITED
                or (o.scope == OVERRIDE_SUBCLASSES and c is not cls)
            ):
                where = "its body" if c is cls else f"the body of {c.name}"
                out.append(f"{o.what} (line {o.line}) in {where}")
        if c is holder:
            reached = True
            last = c.declarations[-1]
            if last.conditional:
                out.append(f"its declaration (line {last.site.line}) runs only under a condition")
            head = last.site.text.partition(".")[0].strip()
            for b in model.enum_bindings:
                if b.name != head or b.line >= c.site.line or model.under_main_guard(b.line):
                    continue
                if model.handler_shadowed(b.line, b.name, lambda n, x, y: _imported_in(model, n, x, y)):
                    continue  # the fallback of a try whose body imports the enum
                out.append(
                    f"`{b.name}`, which the declaration reads the enum through, is bound at line {b.line}"
                )
            module = origin(model, head, c.site.line)
            if module is not None and not trusted_module(module):
                out.append(f"`{head}`, which the declaration reads the enum through, comes from `{module}`")
    names = {c.name for c in chain}
    for w in model.attribute_writes:
        if model.under_main_guard(w.line):
            continue
        if w.target.rpartition(".")[2] in names:
            out.append(f"{w.what} (line {w.line}) writes it from module code")
        elif not w.target:
            out.append(f"{w.what} (line {w.line}) writes the attribute of an object hwlint cannot name")
        elif "." not in w.target and model.class_named(w.target) is None:
            # a variable, perhaps bound to this class (`for c in (TestA, TestB): c.... = None`)
            out.append(
                f"{w.what} (line {w.line}) writes the attribute of `{w.target}`, which may be this class"
            )
    for imp in model.imports:
        line = imp.site.line
        if imp.names[0][0] != "*" or trusted_module(imp.module or "") or model.under_main_guard(line):
            continue
        if line > cls.site.line:
            out.append(f"`from {imp.module} import *` (line {line}) may bind another class to `{cls.name}`")
        elif holder is not None:
            out.append(f"`from {imp.module} import *` (line {line}) may bind the names the declaration reads")
    outside = resolver or model.resolver
    if outside is not None:
        out += [f"{why} may change it" for why in outside.outside_doubts(model, chain)]
    out += [
        f"the module runs exec() (line {site.line}), which may rebind anything"
        for site in model.exec_calls
        if not model.under_main_guard(site.line)
    ]
    out += [
        f"{u.what} (line {u.line}) may change it by a route hwlint does not follow"
        for u in model.unmodelled
        if not model.under_main_guard(u.line)
    ]
    if decorators:
        out += [
            f"the class decorator `@{dotted(d) or d.name}` on {c.name} (line {d.site.line}) is not one "
            "hwlint knows to leave the class alone"
            for c, d in unknown_class_decorators(model, cls)
            if not model.keeps_class(c, d) and not copies_classification(model, d, attribute)
        ]
    return list(dict.fromkeys(out))


def copies_classification(model: FileModel, decorator: Decorator, attribute: str) -> bool:
    """Whether *decorator* is the ``parameterized`` package's ``parameterized_class`` with
    parameters that cannot set *attribute*: each class it makes is ``type(name, (cls,),
    {**cls.__dict__, **params})``, so the runtime reads the declaration on each, unless a parameter
    is named *attribute*. The parameters are a literal: attribute names (``("a", "b")``, a string),
    or dict displays with string keys, in lists, list comprehensions, ``+`` and ``x if c else y``.
    The classes it makes are named otherwise and the decorated one loses its tests (hwselect says
    so: :func:`decorator_reason`); only the classification is certain."""
    name = dotted(decorator)
    if name.rpartition(".")[2] != "parameterized_class":
        return False
    if origin(model, name.partition(".")[0], decorator.site.line) != "parameterized":
        return False
    try:
        call = ast.parse(decorator.site.text.lstrip("@").strip(), mode="eval").body
    except SyntaxError:
        return False
    if not isinstance(call, ast.Call) or not call.args or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    if any(k.arg in (None, "attrs") for k in call.keywords):
        return False
    first = call.args[0]
    names = first.elts if isinstance(first, (ast.Tuple, ast.List)) else [first]
    if all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in names):
        return len(call.args) > 1 and attribute not in {n.value for n in names}  # type: ignore[attr-defined]
    return _params_without(first, attribute)


def _params_without(node: ast.expr, attribute: str) -> bool:
    """Whether *node* is a literal of dict displays none of which can set *attribute*."""
    if isinstance(node, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]  # None: `**x`
        return all(isinstance(k, str) and k != attribute for k in keys)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_params_without(e, attribute) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return _params_without(node.elt, attribute)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _params_without(node.left, attribute) and _params_without(node.right, attribute)
    if isinstance(node, ast.IfExp):
        return _params_without(node.body, attribute) and _params_without(node.orelse, attribute)
    return False


def _imported_in(model: FileModel, name: str, first: int, last: int) -> bool:
    """Whether an import between lines *first* and *last* binds *name*."""
    return any(
        first <= i.site.line <= last and any((a or n.partition(".")[0]) == name for n, a in i.names)
        for i in model.imports
    )


# -- a test's identity across devices and revisions --------------------------------------------
# A runner's node id names the device twice: the generated class (``TestFooCUDA``) and the test
# (``test_add_cuda_float32``: instantiation appends the device, then the dtype). The identity that
# survives a change of runner or of revision drops both: ``path::TestFoo::test_add``, keeping what
# ``@parametrize`` puts before the device (``test_p_x_1``). A class not generated keeps its names
# whole: a GENERIC class's ``test_to_cuda`` is that test's own name.


def all_suffixes(taxonomy: Taxonomy, backends: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Every class-name suffix instantiation may use (``CPU``, ``CUDA``, a backend's), longest first."""
    names = {s for d in taxonomy.devices for s in generated_suffixes(taxonomy, d)}
    names.update(b.upper() for b in backends)
    return tuple(sorted(names, key=lambda s: (-len(s), s)))


def neutral_class(name: str, suffixes: tuple[str, ...]) -> tuple[str, str | None]:
    """(*name* without its generated device suffix, the suffix) — (*name*, None) when it has none."""
    for s in suffixes:
        if name.endswith(s) and len(name) > len(s):
            return name[: -len(s)], s
    return name, None


def neutral_test(name: str, suffixes: tuple[str, ...]) -> str:
    """A generated test's name without the device and the dtype after it:
    ``test_add_x_1_cuda_float32`` -> ``test_add_x_1``. *suffixes*: the device spellings its class
    may carry (a ``...PRIVATEUSE1`` class's tests carry the backend's name). The last ``_<device>``
    is the device's: a parameter value before it may spell a device too."""
    cut = max((name.rfind(f"_{s.lower()}") for s in suffixes), default=-1)
    return name[:cut] if cut > 0 else name


def test_key(path: str, cls: str, test: str) -> str:
    """The identity's one spelling: ``path::Class::test`` (neutral names), what expectations match."""
    return f"{path}::{cls}::{test}"


def key_of_nodeid(nodeid: str, suffixes: tuple[str, ...]) -> str | None:
    """The identity of a pytest node id ``path::Class::test[...]`` (None: not a test in a class).
    A class named with a device suffix is taken as generated: its tests lose that device."""
    parts = nodeid.split("::")
    if len(parts) != 3 or not parts[2]:
        return None
    path, cls, test = parts
    test = test.partition("[")[0]  # pytest's own parametrize id; torch's are part of the name
    neutral, suffix = neutral_class(cls, suffixes)
    if suffix is None:
        return test_key(path, cls, test)
    spellings = (suffix, *suffixes) if suffix == "PRIVATEUSE1" else (suffix,)
    stripped = neutral_test(test, spellings)
    if stripped == test:
        return test_key(path, cls, test)  # a hand-written TestFooCPU whose tests carry no device
    return test_key(path, neutral, stripped)
