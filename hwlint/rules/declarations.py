"""HWC0xx: every test class declares a classification the taxonomy knows, in a form tools can read."""

from __future__ import annotations

from collections.abc import Iterator

from ..collection import collected_tests, declaration_doubts, unseen_classes
from ..context import Context
from ..edits import Applicability, Fix
from ..edits.imports import bound_name
from ..infer import Inference, infer_collected, inference
from ..model import ClassInfo, Site
from .base import Hit, rule
from .split import Split, copy_edits, described, device_plan, subclass_edits


@rule(
    "HWC001",
    "missing-hw-classification",
    "Test class `{cls}` does not declare `{attribute}`{inherited}.",
    manual="declare the classification its tests need",
)
def missing_hw_classification(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a test class (a class whose own body defines a `test*` method) that does not declare
    `hw_classification` in its own body, a class pytest collects inside a plain `Test*` class
    (`class TestOuter:` holding `class TestInner(TestCase):`) included. With `inherit: true` in the
    taxonomy, a classification inherited from a base class is accepted, as the runtime's `getattr`
    does: a base in the same file, or one `hwlint check` finds in another scanned test module the
    file imports.

    ## Why is this bad?
    A run filtered by `--hw-classification` silently drops every unclassified class: its tests run
    on no runner at all, and nobody notices.

    ## Example
    ```python
    class TestAdd(TestCase):
        def test_add(self): ...
    ```

    ## Use instead
    ```python
    class TestAdd(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_add(self): ...
    ```
    """
    tax = ctx.taxonomy
    for cls in ctx.model.test_classes:
        if cls.declaration is not None:
            continue
        if tax.inherit and ctx.effective(cls) is not None:
            continue
        found = ctx.effective(cls)
        note = ""
        if found is not None:
            note = f" (it inherits one from `{found[1].name}`)"
        fix = declaration_fix(ctx, cls, inference(ctx, cls))
        yield cls.site, {"cls": cls.name, "attribute": tax.attribute, "inherited": note, "fix": fix}
    for inner in ctx.model.inner_classes:
        # with inheritance on, a base other than TestCase may declare it: hwselect warns instead
        plain = all(b.rpartition(".")[2] in ("TestCase", "object") for b in inner.bases)
        if inner.declares or (tax.inherit and not plain) or ctx.model.under_main_guard(inner.site.line):
            continue
        yield inner.site, {"cls": inner.name, "attribute": tax.attribute, "inherited": "", "fix": None}


@rule(
    "HWC002",
    "unknown-hw-classification",
    "Test class `{cls}` declares `{member}`, which is not a classification in the taxonomy ({known}).",
    manual="declare a classification the taxonomy knows",
)
def unknown_hw_classification(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a declaration whose enum member is not one of the taxonomy's classifications.

    ## Why is this bad?
    No runner executes an unknown classification, so the class's tests never run. At run time an
    unknown member of `HardwareClassification` is an `AttributeError` when the module is imported.

    ## Example
    ```python
    class TestMatmul(TestCase):
        hw_classification = HardwareClassification.GPU
    ```

    ## Use instead
    ```python
    class TestMatmul(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR
    ```
    """
    known = ", ".join(ctx.taxonomy.classifications)
    for cls in ctx.model.classes:
        decl = cls.declaration
        if decl is not None and decl.member is not None and decl.member not in ctx.taxonomy.classifications:
            yield decl.site, {"cls": cls.name, "member": decl.site.text, "known": known}


@rule(
    "HWC003",
    "unresolvable-hw-classification",
    "Test class `{cls}` sets `{attribute}` to `{value}`, which is not a static `{enum}.MEMBER`.",
    manual="write the value as `HardwareClassification.MEMBER`",
)
def unresolvable_hw_classification(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a declaration whose value is not written as `HardwareClassification.MEMBER` (or through an
    alias or a qualified name of the enum): a string, a call, another variable, or no value at all.

    ## Why is this bad?
    Tools that route tests to runners (hwselect, the upstream linter, reviewers) read the declaration
    without running the code. A value they cannot read is a class they cannot place.

    ## Example
    ```python
    class TestConv(TestCase):
        hw_classification = "generic"
    ```

    ## Use instead
    ```python
    class TestConv(TestCase):
        hw_classification = HardwareClassification.GENERIC
    ```
    """
    for cls in ctx.model.classes:
        decl = cls.declaration
        if decl is not None and decl.member is None:
            yield (
                decl.site,
                {
                    "cls": cls.name,
                    "attribute": ctx.taxonomy.attribute,
                    "value": decl.site.text,
                    "enum": ctx.taxonomy.enum_name,
                },
            )


@rule(
    "HWC004",
    "mixed-device-test-class",
    "Test class `{cls}` mixes {mixed}.",
    severity="warning",
    manual="split the class: its tests need different classifications",
)
def mixed_device_test_class(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags an undeclared test class whose tests point to two classifications at once: some tests
    take `device` and some do not, some hard-use `torch.cuda` and the rest no device, some are pinned
    by `@onlyCUDA` and the rest run everywhere, or a guarded class calls an API GENERIC forbids. No
    classification fits the whole class; the message names the outliers and how to split the class.
    Where the inference still has an answer (an instantiated class: ACCELERATOR; a minority of tests
    on a device: GENERIC) it is an unsafe fix, and this warning says what the fix leaves to do.

    ## Why is this bad?
    Whichever classification the class gets, part of its tests run on the wrong runners: CUDA code in
    a GENERIC class runs on a CPU-only runner (and is skipped or fails there), and device-independent
    tests in a CUDA class never run on CPU.

    ## Example
    ```python
    class TestMemory(TestCase):
        def test_sizes(self): ...

        def test_cuda_cache(self):
            torch.cuda.empty_cache()
    ```

    ## Use instead
    ```python
    class TestMemory(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_sizes(self): ...


    class TestMemoryCudaCache(TestCase):
        hw_classification = HardwareClassification.CUDA

        def test_cuda_cache(self):
            torch.cuda.empty_cache()
    ```
    """
    for cls in ctx.model.test_classes:
        if cls.declaration is not None:
            continue
        found = inference(ctx, cls)
        if found.mixed:
            yield cls.site, {"cls": cls.name, "mixed": found.mixed}


def declaration_fix(ctx: Context, cls: ClassInfo, inferred: Inference) -> Fix:
    """HWC001's and HWC005's fix: the inferred classification declared first in the class's body
    (the enum imported when the file lacks it), and the tests bound to one device moved to classes
    of their own (:mod:`hwlint.rules.split`); no fix, with the inference's reason, when it has no
    answer."""
    if inferred.classification is None:
        return Fix(Applicability.NONE, reason=inferred.describe())
    member = inferred.classification
    tax = ctx.taxonomy
    enum = bound_name(ctx.model, tax.enum_module, tax.enum_name) or tax.enum_name
    declare = f"Declare `{tax.attribute} = {enum}.{member}` in `{cls.name}`"
    applicability = Applicability.SAFE if inferred.safe else Applicability.UNSAFE
    if inferred.split is not None:
        moved, device, name, classification = inferred.split
        splits = (Split(moved, device, name, classification),)
        return ctx.fix(
            applicability,
            f"{declare}, and {described(splits)}",
            inferred.reason,
            lambda b: [*b.declare(cls, member), *subclass_edits(ctx, b, cls, splits, True)],
        )
    generic = tax.generic_classification()
    if generic is not None and member == generic.name:
        plan = device_plan(ctx, cls, generic, dict(inferred.bound))
        if plan.whole is not None:
            declare = f"Declare `{tax.attribute} = {enum}.{plan.whole}` in `{cls.name}`"
            reason = (
                f"{inferred.reason}; every test needs the device, or code every test may reach calls its API"
            )
            return ctx.fix(Applicability.UNSAFE, declare, reason, lambda b: b.declare(cls, plan.whole))
        if plan.splits:
            return ctx.fix(
                Applicability.UNSAFE,
                f"{declare}, and {described(plan.splits)}",
                f"{inferred.reason}; the tests that run only with one device move to a class for it",
                lambda b: [
                    *b.declare(cls, member),
                    *copy_edits(ctx, b, cls, plan.splits, True, plan.dropped),
                ],
            )
        if inferred.bound:
            reason = f"{inferred.reason}; its tests for one device stay: {plan.why}"
            return ctx.fix(applicability, declare, reason, lambda b: b.declare(cls, member))
    return ctx.fix(applicability, declare, inferred.reason, lambda b: b.declare(cls, member))


def collected_inference(ctx: Context, cls: ClassInfo) -> Inference | None:
    """HWC005's inferred fix for *cls* (None when it collects no test), computed once per class."""
    key = ("collected", id(cls))
    if key not in ctx.inferred:
        found = collected_tests(ctx.model, cls, ctx.resolver)
        ctx.inferred[key] = None if found is None else infer_collected(ctx, cls, found[1])
    return ctx.inferred[key]


@rule(
    "HWC005",
    "unclassified-collected-class",
    "Class `{cls}` collects tests ({how}) but has no `{attribute}`.",
    manual="declare the classification of the tests the class collects",
)
def unclassified_collected_class(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a class that defines no test of its own, yet collects tests, and has no
    `hw_classification` (declared or inherited): it inherits tests from a base or mixin in the file
    or in another scanned test module (`class HashStoreTest(TestCase, StoreTestBase)`), or module
    code adds tests to it at run time (`setattr(TestFoo, "test_x", ...)`, `copy_tests(Template,
    CpuTests, "cpu")`); an instantiated class counts when it has tests. A `Test*` class whose base
    outside the scanned files is named like a test class (a mixin in a helper module) may inherit
    tests hwlint cannot see: it counts too (hwselect warns about the same classes). A class with no
    test anywhere collects none, whatever it is named or whatever `device` it sets. HWC001 covers the classes
    whose own body defines a test; this rule covers the rest.

    ## Why is this bad?
    pytest and unittest collect the inherited tests, and a run filtered by `--hw-classification`
    drops every one of them in silence: the class looks covered and runs nowhere.

    ## Example
    ```python
    class StoreTestBase:
        def test_set_get(self): ...


    class HashStoreTest(TestCase, StoreTestBase):
        def setUp(self): ...
    ```

    ## Use instead
    ```python
    class HashStoreTest(TestCase, StoreTestBase):
        hw_classification = HardwareClassification.GENERIC

        def setUp(self): ...
    ```
    """
    for cls in ctx.model.classes:
        if cls.is_test or cls.declarations or ctx.effective(cls) is not None:
            continue
        found = collected_tests(ctx.model, cls, ctx.resolver)
        if found is None:
            continue
        how, _ = found
        inferred = collected_inference(ctx, cls)
        assert inferred is not None
        fix = declaration_fix(ctx, cls, inferred)
        yield cls.site, {"cls": cls.name, "how": how, "attribute": ctx.taxonomy.attribute, "fix": fix}


@rule(
    "HWC006",
    "uncertain-hw-classification",
    "Test class `{cls}` declares `{attribute}`, but {why}: the runtime may read another value.",
    manual=(
        "the runtime may read another classification than the one declared: remove what rebinds it,"
        " or declare it where nothing does"
    ),
)
def uncertain_hw_classification(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a test class whose classification (declared or inherited) may not be the value the
    runtime's `getattr` reads once the module ran: later in the body, the name is deleted or
    rebound (`del`, a `for`, `with ... as` or `except ... as` target, `import ... as`, a walrus, a
    `def` or nested class of that name, a tuple target, `global`), or the body calls `exec()`,
    `eval()`, `locals()` or `vars()`; the last declaration runs only under a condition (`if
    False:`); module code writes or deletes the attribute (`TestB.hw_classification = None`, `del
    TestB.hw_classification`, `setattr`, `delattr`); the enum's name is bound in the file to
    something other than the enum, an alias of it or a stand-in enum of constants; the class or a
    base has a metaclass (other than `type` or `ABCMeta`) or `__init_subclass__`, or a class
    decorator hwlint does not know to leave the class alone; or the module runs `exec()`; or the
    file holds code hwlint does not follow that can rewrite a class, a class body's names or the
    module's names (a frame's `f_locals`, `type.__setattr__`, `builtins.setattr`, `setattr` used as
    a value, `eval`/`compile` at import, `__import__("builtins")`, a write into `sys.modules`,
    `X.__bases__ = ...`, a descriptor's `__set_name__`, the attribute's name in a string); or the
    enum, or a decorator's known name, comes from a module other than torch, pytest or the standard
    library, or such a module is star-imported; or a helper module of the checkout that hwlint
    reads for it (a module beside the tests, not a test module) gives the class a base with
    `__init_subclass__` or a metaclass (on that base or on one of its own bases, in that helper or
    another), or a value whose class has a descriptor's `__set_name__` (`stamp = Stamp()`); a
    helper base or value without these is no reason. The message names the first reason. A decorator
    hwlint knows is no reason: torch's skip decorators (`@skipIfRocm`, `@requires_triton()`...)
    and `@xfail_inherited_tests([...])`; a function of the file that returns the class it is given,
    calls no method of it and writes no classification (one that copies a mixin's `test_*` methods
    onto the class with `setattr` under `if name.startswith("test_")`); and the `parameterized`
    package's `@parameterized_class(...)` with parameters spelled out (dict displays with string
    keys, or attribute names) none of which is the attribute: each class it makes copies the
    class's dict, the declaration with it (the classes are named otherwise, which hwselect says).

    ## Why is this bad?
    hwlint, hwselect and reviewers read the declaration; the runtime's filter reads whatever the
    module left behind. A class whose declaration says GENERIC while the runtime reads `None` (or
    another member) is dropped in silence, or runs on the wrong runners, while every tool says it is
    placed.

    ## Example
    ```python
    class TestAdd(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_add(self): ...

        del hw_classification
    ```

    ## Use instead
    ```python
    class TestAdd(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_add(self): ...
    ```
    """
    attribute = ctx.taxonomy.attribute
    for cls in ctx.model.classes:
        if ctx.effective(cls) is None or ctx.model.under_main_guard(cls.site.line):
            continue
        if cls.is_test and cls.declaration is None and not ctx.taxonomy.inherit:
            continue  # HWC001: it must declare its own first
        if not cls.is_test and collected_tests(ctx.model, cls, ctx.resolver) is None:
            continue
        doubts = declaration_doubts(ctx.model, cls, attribute, ctx.resolver)
        if not doubts:
            continue
        why = doubts[0] + (f" (and {len(doubts) - 1} more)" if len(doubts) > 1 else "")
        yield cls.site, {"cls": cls.name, "attribute": attribute, "why": why}


@rule(
    "HWC007",
    "unseen-collected-class",
    "{what}: hwlint cannot check or place a class pytest collects there.",
    severity="warning",
)
def unseen_collected_class(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags module code by which pytest collects a class that no front end sees, so that nothing
    checks its classification: a `Test*` name bound to what a call returns (`TestB = make_class()`,
    `TestB = type("TestB", (TestCase,), {...})`; a call into torch, pytest or the standard library,
    such as `Enum(...)`, is not one), or to an attribute of a module other than those (`TestB =
    helpers.Hidden`); a `Test*` name imported from a module that is not a test module (`from helpers
    import TestHidden`); a star import from such a module; a write into `globals()` at import. A
    class imported from a test module (`from quantization.core.test_quantized_op import
    TestQuantizedOps`) is checked in that module, and hwselect places it here too: no finding. A name
    ending `TestCase`, `Base`, `Mixin` or `Template` imported from a helper is taken for a base.

    ## Why is this bad?
    pytest collects the class in this module, and the runtime's filter reads its classification;
    `hwlint check` never sees it, so an unclassified class is dropped by every run in silence, and
    hwselect can only list the whole file in case.

    ## Example
    ```python
    from helpers import TestHidden


    def _make():
        class TestB(TestCase):
            def test_a(self): ...

        return TestB


    TestB = _make()
    ```

    ## Use instead
    ```python
    class TestHidden(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_a(self): ...


    class TestB(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_a(self): ...
    ```
    """
    for u in unseen_classes(ctx.model):
        yield Site(u.line, 0), {"what": u.what[0].upper() + u.what[1:]}
