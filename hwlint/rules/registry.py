"""The rules. Each rule has one home here: its code, name, message template and documentation.

A rule's check decides *where* (it yields a position and the message's fields, plus ``fix``, "safe" or
"unsafe", when hwlint can fix the finding); the rule's message template decides *what is said*. The
docstring is the rule's documentation, with the headings What it does / Why is this bad? / Example /
Use instead, printed by ``hwlint rule CODE``.
The table :data:`RULES` is the only registry: the checker, the CLI, flake8 and the docs all read it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..collection import generated_devices, generated_suffixes
from ..context import Context
from ..infer import Inference, infer_collected, inference
from ..model import ClassInfo, Instantiation, Site, mro
from ..neutral import Conversion, conversion, hard_uses, is_every_device_class, shown
from ..taxonomy import Classification

__all__ = ["RULES", "Context", "Rule", "rule", "rule_by_name_or_code"]

Hit = tuple[Site, dict[str, object]]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    message: str  # str.format template over the fields a check yields
    doc: str
    check: Callable[[Context], Iterator[Hit]] | None
    severity: str = "error"  # error | warning | advice (lintrunner's vocabulary)

    @property
    def summary(self) -> str:
        """The first sentence of the doc's "What it does" section."""
        body = self.doc.split("## What it does", 1)[-1].strip()
        return body.split("\n\n", 1)[0].replace("\n", " ").split(". ")[0].rstrip(".") + "."


RULES: dict[str, Rule] = {}


def rule(code: str, name: str, message: str, severity: str = "error"):
    """Register the decorated check (or, for file-level codes, a docstring holder) under *code*."""

    def register(fn: Callable[[Context], Iterator[Hit]]) -> Callable[[Context], Iterator[Hit]]:
        if code in RULES:
            raise ValueError(f"duplicate rule code {code}")
        check = None if getattr(fn, "__no_check__", False) else fn
        RULES[code] = Rule(code, name, message, inspect.cleandoc(fn.__doc__ or ""), check, severity)
        return fn

    return register


def _doc_only(fn):
    fn.__no_check__ = True
    return fn


# ---------------------------------------------------------------------------------------------
# Declarations


@rule("HWC001", "missing-hw-classification", "Test class `{cls}` does not declare `{attribute}`{inherited}.")
def missing_hw_classification(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a test class (a class whose own body defines a `test*` method) that does not declare
    `hw_classification` in its own body. With `inherit: true` in the taxonomy, a classification
    inherited from a base class is accepted, as the runtime's `getattr` does: a base in the same
    file, or one `hwlint check` finds in another scanned test module the file imports.

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
        inferred = inference(ctx, cls)
        fix = ("safe" if inferred.safe else "unsafe") if inferred.fixable else None
        yield cls.site, {"cls": cls.name, "attribute": tax.attribute, "inherited": note, "fix": fix}


@rule(
    "HWC002",
    "unknown-hw-classification",
    "Test class `{cls}` declares `{member}`, which is not a classification in the taxonomy ({known}).",
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


@rule("HWC004", "mixed-device-test-class", "Test class `{cls}` mixes {mixed}.", severity="warning")
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


#: Bases that say nothing about a class being a test class.
_PLAIN_BASES = frozenset(
    {"", "object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol"}
)


def collected_tests_holder(ctx: Context, cls: ClassInfo) -> tuple[str, ClassInfo | None] | None:
    """How *cls*, which defines no test, still collects tests: (what, the base in the file that holds
    them, if any); None when it collects none hwlint can see."""
    chain = mro(ctx.model, cls, ctx.resolver)
    holder = next((c for c in chain[1:] if c.is_test), None)
    calls = ctx.model.instantiations_of(cls)
    if calls:
        return f"it is passed to `{calls[0].function}` (line {calls[0].site.line})", holder
    # A test framework collects it: some class of its MRO derives from a base outside the file
    # (TestCase), or pytest collects it by name.
    known = {c.name for c in chain}
    external = any(
        b not in _PLAIN_BASES and b.rpartition(".")[2] not in known for c in chain for b in c.bases
    )
    if not (external or cls.name.startswith("Test")):
        return None
    if holder is not None:
        return f"it inherits tests from `{holder.name}`", holder
    if cls.device_attribute is not None and external:
        return f"it sets `{cls.device_attribute.text}` for tests it inherits", None
    return None


def collected_inference(ctx: Context, cls: ClassInfo) -> Inference | None:
    """HWC005's inferred fix for *cls* (None when it collects no test), computed once per class."""
    key = ("collected", id(cls))
    if key not in ctx.inferred:
        found = collected_tests_holder(ctx, cls)
        ctx.inferred[key] = None if found is None else infer_collected(ctx, cls, found[1])
    return ctx.inferred[key]


@rule(
    "HWC005",
    "unclassified-collected-class",
    "Class `{cls}` collects tests ({how}) but has no `{attribute}`.",
)
def unclassified_collected_class(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a class that defines no `test*` method of its own, yet collects tests, and has no
    `hw_classification` (declared or inherited): it inherits tests from a base or mixin in the file
    or in another scanned test module (`class HashStoreTest(TestCase, StoreTestBase)`), it is passed
    to `instantiate_device_type_tests`, or it sets a class-level `device = "cpu"` for the tests it
    inherits. HWC001 keeps upstream's
    scope (classes whose own body defines a test); this rule covers the rest.

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
        found = collected_tests_holder(ctx, cls)
        if found is None:
            continue
        how, _ = found
        inferred = collected_inference(ctx, cls)
        assert inferred is not None
        fix = ("safe" if inferred.safe else "unsafe") if inferred.fixable else None
        yield cls.site, {"cls": cls.name, "how": how, "attribute": ctx.taxonomy.attribute, "fix": fix}


# ---------------------------------------------------------------------------------------------
# Instantiation


@rule("HWC101", "instantiation-forbidden", "{classification} test class `{cls}` is passed to `{function}`.")
def instantiation_forbidden(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags an instantiation call (`instantiate_device_type_tests`) for a class whose classification
    forbids it, such as GENERIC: a class of the same file, or one that another scanned test module
    defines and the file imports.

    ## Why is this bad?
    Instantiation generates one class per device type, so a device-independent test runs once per
    device, and GENERIC runners (CPU-only) and accelerator runners all run copies of it.

    ## Example
    ```python
    class TestParser(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_parse(self): ...

    instantiate_device_type_tests(TestParser, globals())
    ```

    ## Use instead
    Drop the instantiation call, or classify the class ACCELERATOR and give its tests a `device`.
    """
    for cls, c, call in _device_calls(ctx, "instantiation", "forbidden"):
        yield call.site, {"classification": c.name, "cls": cls.name, "function": call.function}


@rule(
    "HWC102",
    "instantiation-missing",
    "{classification} test class `{cls}` is never passed to `{function}` in the scanned files.",
)
def instantiation_missing(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a class whose classification requires instantiation (such as ACCELERATOR) when no
    instantiation call names it: neither in its own file nor in another scanned test module that
    imports it (upstream instantiates some classes from `test/test_optim.py`). The flake8 plugin
    sees one file at a time, so it knows only the calls of the file itself.

    ## Why is this bad?
    Without instantiation no per-device classes exist: the class runs as a plain class, its
    `device` parameter has no value, and accelerator runners never see it.

    ## Example
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_add(self, device): ...
    ```

    ## Use instead
    ```python
    instantiate_device_type_tests(TestOps, globals())
    ```
    """
    function = ctx.taxonomy.instantiation_functions[0]
    for cls, c in ctx.classified_test_classes:
        if c.instantiation != "required" or ctx.model.instantiations_of(cls):
            continue
        if not ctx.foreign_instantiations(cls):
            yield cls.site, {"classification": c.name, "cls": cls.name, "function": function}


@rule(
    "HWC103",
    "only-for-forbidden",
    "{classification} test class `{cls}` is instantiated with `only_for={value}`.",
)
def only_for_forbidden(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags `only_for=` on the instantiation of a class whose classification forbids it (ACCELERATOR),
    wherever the class is defined: the call is checked in the file that makes it.

    ## Why is this bad?
    An allow-list of device types silently excludes every backend it does not name: a stale
    `only_for=("cuda", "xpu")` drops MPS and every PrivateUse1 backend without a trace.

    ## Example
    ```python
    instantiate_device_type_tests(TestOps, globals(), only_for=("cuda", "xpu"))
    ```

    ## Use instead
    ```python
    instantiate_device_type_tests(TestOps, globals(), except_for="cpu")
    ```
    """
    for cls, c, call in _device_calls(ctx, "only_for", "forbidden"):
        if call.only_for is not None:
            yield (
                call.only_for.site,
                {"classification": c.name, "cls": cls.name, "value": call.only_for.site.text},
            )


def _device_calls(
    ctx: Context, setting: str, value: str
) -> Iterator[tuple[ClassInfo, Classification, Instantiation]]:
    """Each instantiation call of the file, with its class, whose classification has *setting*
    set to *value* (``only_for: forbidden``...)."""
    for cls, c, call in ctx.classified_instantiations:
        if getattr(c, setting) == value:
            yield cls, c, call


@rule("HWC104", "only-for-mismatch", "{classification} test class `{cls}` is instantiated {problem}.")
def only_for_mismatch(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Where the taxonomy demands it (`only_for: device`), flags an instantiation of a device-specific
    class whose `only_for` is absent or names other device types than the classification's device.

    ## Why is this bad?
    A CUDA class instantiated for every device generates `TestFooCPU` and `TestFooMPS` copies that
    claim to be CUDA tests: the CPU runner skips them, and nothing runs them where they belong.

    ## Example
    ```python
    class TestCudnn(TestCase):
        hw_classification = HardwareClassification.CUDA

        def test_conv(self, device): ...

    instantiate_device_type_tests(TestCudnn, globals())
    ```

    ## Use instead
    ```python
    instantiate_device_type_tests(TestCudnn, globals(), only_for="cuda")
    ```
    """
    tax = ctx.taxonomy
    for cls, c, call in _device_calls(ctx, "only_for", "device"):
        aliases = tax.device_aliases(c.device or "")
        if call.only_for is None:
            problem = f'without `only_for="{c.device}"`'
            yield call.site, {"classification": c.name, "cls": cls.name, "problem": problem}
        elif call.only_for.devices is not None and (
            not call.only_for.devices or not set(call.only_for.devices) <= aliases
        ):
            problem = f'with `only_for={call.only_for.site.text}` instead of `"{c.device}"`'
            yield call.only_for.site, {"classification": c.name, "cls": cls.name, "problem": problem}


@rule(
    "HWC105",
    "except-for-forbidden",
    "{classification} test class `{cls}` is instantiated with `except_for={value}`.",
)
def except_for_forbidden(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags `except_for=` on the instantiation of a class whose classification forbids it.

    ## Why is this bad?
    For a device-specific class the only device that matters is its own; `except_for` suggests the
    class runs on others too, which contradicts its classification.

    ## Example
    ```python
    instantiate_device_type_tests(TestCudnn, globals(), except_for="cpu")
    ```

    ## Use instead
    ```python
    instantiate_device_type_tests(TestCudnn, globals(), only_for="cuda")
    ```
    """
    for cls, c, call in _device_calls(ctx, "except_for", "forbidden"):
        if call.except_for is not None:
            yield (
                call.except_for.site,
                {"classification": c.name, "cls": cls.name, "value": call.except_for.site.text},
            )


@rule(
    "HWC106",
    "unresolvable-device-filter",
    "{classification} test class `{cls}` is instantiated "
    "with `{keyword}={value}`, which cannot be resolved statically.",
)
def unresolvable_device_filter(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags an `only_for` / `except_for` argument whose value hwlint cannot compute without running
    the code (a call, an imported name, a reassigned variable) where a rule needs its value.
    String literals, tuples and lists of them, and module-level constants built from them resolve.

    ## Why is this bad?
    Neither hwlint nor a reviewer can tell which device types the class runs on, so a stale list
    that drops a backend goes unnoticed.

    ## Example
    ```python
    instantiate_device_type_tests(TestCudnn, globals(), only_for=get_devices())
    ```

    ## Use instead
    ```python
    instantiate_device_type_tests(TestCudnn, globals(), only_for="cuda")
    ```
    """
    for cls, c, call in _device_calls(ctx, "only_for", "device"):
        if call.only_for is not None and call.only_for.devices is None:
            yield (
                call.only_for.site,
                {
                    "classification": c.name,
                    "cls": cls.name,
                    "keyword": "only_for",
                    "value": call.only_for.site.text,
                },
            )


@rule(
    "HWC107",
    "generated-name-collision",
    "Class `{cls}` has the name that `{function}` generates for "
    "`{generic}` on {device} (line {line}); at run time one replaces the other.",
)
def generated_name_collision(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a class named like a class that instantiation generates in the same module: instantiating
    `TestFoo` for cuda writes `TestFooCUDA` into the module's globals.

    ## Why is this bad?
    The generated class and the hand-written one share one global name, so whichever is bound last
    silently replaces the other, and the replaced class's tests vanish from collection.

    ## Example
    ```python
    class TestFoo(TestCase): ...
    class TestFooCUDA(TestCase): ...  # replaced by the class generated below

    instantiate_device_type_tests(TestFoo, globals())
    ```

    ## Use instead
    Give the hand-written class a name no instantiation generates, such as `TestFooCudaOnly`.
    """
    generated: dict[str, tuple[str, str, Instantiation]] = {}
    for call in ctx.model.instantiations:
        if call.class_name is None:
            continue
        for device in generated_devices(ctx.taxonomy, call):
            for suffix in generated_suffixes(ctx.taxonomy, device):
                generated.setdefault(call.class_name + suffix, (call.class_name, device, call))
    if not generated:
        return
    for cls in ctx.model.classes:
        hit = generated.get(cls.name)
        if hit is not None:
            generic, device, call = hit
            yield (
                cls.site,
                {
                    "cls": cls.name,
                    "function": call.function,
                    "generic": generic,
                    "device": device,
                    "line": call.site.line,
                },
            )


# ---------------------------------------------------------------------------------------------
# Test methods and class bodies


@rule(
    "HWC201",
    "device-param-forbidden",
    "{classification} test method `{cls}.{method}` takes a `{param}` parameter.",
)
def device_param_forbidden(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a test method that takes a `device` / `devices` parameter in a class whose classification
    forbids it (GENERIC).

    ## Why is this bad?
    Only instantiation supplies `device`; a GENERIC class is not instantiated, so the parameter
    signals a test that really depends on the device and is misclassified.

    ## Example
    ```python
    class TestShapes(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_view(self, device): ...
    ```

    ## Use instead
    Classify the class ACCELERATOR and instantiate it, or drop the parameter.
    """
    params = set(ctx.taxonomy.device_params)
    for cls, c in ctx.classified_test_classes:
        if c.device_param != "forbidden":
            continue
        for m in cls.test_methods:
            for name, site in zip(m.params, m.param_sites, strict=True):
                if name in params:
                    yield site, {"classification": c.name, "cls": cls.name, "method": m.name, "param": name}


@rule(
    "HWC202",
    "device-param-missing",
    "{classification} test method `{cls}.{method}` takes no {params} parameter.",
)
def device_param_missing(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a test method without a `device` / `devices` parameter in a class whose classification
    requires one (ACCELERATOR).

    ## Why is this bad?
    A test that ignores the device it is instantiated for runs the same CPU code once per device:
    it costs every accelerator runner time and tests nothing about the accelerator.

    ## Example
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_add(self): ...
    ```

    ## Use instead
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_add(self, device): ...
    ```
    """
    params = set(ctx.taxonomy.device_params)
    wanted = " or ".join(f"`{p}`" for p in ctx.taxonomy.device_params)
    for cls, c in ctx.classified_test_classes:
        if c.device_param != "required":
            continue
        for m in cls.test_methods:
            if not params & set(m.params):
                yield m.site, {"classification": c.name, "cls": cls.name, "method": m.name, "params": wanted}


@rule(
    "HWC203",
    "device-specific-decorator",
    "{classification} test {kind} `{target}` is decorated with `@{decorator}`.",
)
def device_specific_decorator(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a decorator the classification forbids, such as a device-specific `@onlyCUDA` on an
    ACCELERATOR class or test method. `@onlyAccelerator` is device-neutral and allowed.

    ## Why is this bad?
    ACCELERATOR promises that every accelerator runs the test; `@onlyCUDA` quietly turns it into a
    CUDA test that MPS, XPU and PrivateUse1 backends skip.

    ## Example
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        @onlyCUDA
        def test_cudnn(self, device): ...
    ```

    ## Use instead
    Move the test to a class classified CUDA, or use `@onlyAccelerator`.
    """
    for cls, c in ctx.classified_test_classes:
        if not c.forbidden_decorators:
            continue
        for d in cls.decorators:
            if d.name in c.forbidden_decorators:
                yield (
                    d.site,
                    {"classification": c.name, "kind": "class", "target": cls.name, "decorator": d.name},
                )
        for m in cls.test_methods:
            for d in m.decorators:
                if d.name in c.forbidden_decorators:
                    yield (
                        d.site,
                        {
                            "classification": c.name,
                            "kind": "method",
                            "target": f"{cls.name}.{m.name}",
                            "decorator": d.name,
                        },
                    )


@rule(
    "HWC204",
    "availability-check",
    "{classification} test class `{cls}` calls the accelerator API `{call}`.",
)
def availability_check(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a call into an accelerator API anywhere in a class whose classification forbids it
    (GENERIC), its decorators and methods included. As upstream's linter does today, the default
    taxonomy's `accelerator_apis` make any call under `torch.accelerator`, `torch.cuda`, `torch.hpu`,
    `torch.ipu`, `torch.mps`, `torch.mtia`, `torch.xla`, `torch.xpu` and `torch.backends.cuda` count
    (`torch.cuda.is_available()`, `torch.cuda.synchronize()`, `torch.xpu.empty_cache()`), and
    `torch.backends.cudnn.*` does not. The taxonomy's `availability_checks` add exact calls
    (`examples/taxonomy-availability-only.yaml` keeps the earlier rule: `is_available()` checks only).

    ## Why is this bad?
    GENERIC runs once, on a CPU-only runner, where an availability check is always false and any
    other accelerator call fails: the code that needs the device runs nowhere, yet the class looks
    covered.

    ## Example
    ```python
    class TestSerialization(TestCase):
        hw_classification = HardwareClassification.GENERIC

        @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
        def test_load_to_gpu(self): ...
    ```

    ## Use instead
    Move the accelerator part to a class classified ACCELERATOR (or CUDA) and instantiate it.
    """
    for cls, c in ctx.classified_test_classes:
        if c.availability_checks != "forbidden":
            continue
        for site in cls.availability_checks:
            yield site, {"classification": c.name, "cls": cls.name, "call": site.text}


# ---------------------------------------------------------------------------------------------
# Device-neutral tests


@rule(
    "HWC301",
    "hardcoded-device",
    "{classification} test class `{cls}` hard-codes {device} in `{method}`: `{use}`.",
)
def hardcoded_device(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags, in a class classified ACCELERATOR (its own classification or an inherited one), code of a
    test, of a helper method it calls or of `setUp` that names one accelerator: a device literal
    (`"cuda"`, `"cuda:0"`, `torch.device("cuda")`, `device="cuda"`, `torch.autocast("cuda")`),
    `.cuda()`, a `torch.cuda.*` call or reference (`torch.cuda.synchronize()`, `torch.cuda.amp`), or
    a call to a module-level helper that does. Code under an explicit guard for the device
    (`if device == "cuda":`, `if self.device_type == "cuda":`, `if TEST_CUDA:`), tests pinned by
    `@onlyCUDA` (HWC203 reports those), decorators and identifiers (`TEST_CUDA`, `cuda_tensor`) are
    not flagged; neither is the CPU, which every accelerator test may use for reference results.

    The fix, from the taxonomy's `device_neutral` section: `torch.cuda.synchronize()` ->
    `torch.accelerator.synchronize()` and the other functions with a `torch.accelerator` counterpart
    (safe: the same behaviour on CUDA); `"cuda"` -> the test's `device` (or `self.device_type` where a
    device type is meant), `.cuda()` -> `.to(device)` (unsafe: the code then runs on every device).

    ## Why is this bad?
    An ACCELERATOR class runs on every accelerator runner: on XPU, MPS and PrivateUse1 backends a
    hard-coded `"cuda"` fails, or silently tests the CPU or nothing at all.

    ## Example
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_add(self, device):
            x = torch.ones(3).cuda()
            torch.cuda.synchronize()
    ```

    ## Use instead
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_add(self, device):
            x = torch.ones(3).to(device)
            torch.accelerator.synchronize()
    ```
    """
    seen: set[tuple[int, int]] = set()
    for cls in ctx.model.test_classes:
        if not is_every_device_class(ctx, cls):
            continue
        c = ctx.classification(cls)
        assert c is not None
        for h in hard_uses(ctx, cls):
            key = (h.use.site.line, h.use.site.col)
            if key in seen:
                continue
            seen.add(key)
            yield (
                h.use.site,
                {
                    "classification": c.name,
                    "cls": cls.name,
                    "device": h.use.device,
                    "method": h.method.name if h.method is not None else "the class body",
                    "use": shown(h.use),
                    "fix": h.rewrite.applicability if h.rewrite is not None else None,
                },
            )


@rule(
    "HWC302",
    "generalizable-device-class",
    "{classification} test class `{cls}` {verdict}.",
    severity="advice",
)
def generalizable_device_class(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a class for one accelerator (classified CUDA, or undeclared with CUDA-only evidence) whose
    every hard-coded device has a device-neutral spelling (see HWC301): the class could run on every
    accelerator. A class held back by a single line says which. The (unsafe) fix converts the whole
    class: every test gains a `device` parameter, the hard-coded devices are rewritten, the class
    is instantiated with the taxonomy's device-neutral form
    (`instantiate_device_type_tests(TestFoo, globals(), except_for=("cpu",), allow_mps=True,
    allow_xpu=True)` by default, replacing an `only_for="cuda"`), the missing imports are added and
    the classification becomes ACCELERATOR.

    ## Why is this bad?
    Vendors (XPU, MPS, PrivateUse1 backends) run the ACCELERATOR part of the suite. A CUDA class that
    only needs its spelling changed is coverage every other accelerator is missing.

    ## Example
    ```python
    class TestSum(TestCase):
        hw_classification = HardwareClassification.CUDA

        def test_sum(self):
            x = torch.ones(3, device="cuda")
            torch.cuda.synchronize()
    ```

    ## Use instead
    ```python
    class TestSum(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_sum(self, device):
            x = torch.ones(3, device=device)
            torch.accelerator.synchronize()


    instantiate_device_type_tests(TestSum, globals(), except_for=("cpu",), allow_mps=True, allow_xpu=True)
    ```
    """
    for cls in ctx.model.test_classes:
        found = conversion(ctx, cls)
        if found is None:
            continue
        if found.convertible:
            verdict = "could run on every accelerator: each hard-coded device has a device-neutral spelling"
            fix = "unsafe"
        elif found.blocker is not None and found.blocker.startswith("line ") and _single_blocker(ctx, found):
            verdict = f"could run on every accelerator but for {found.blocker}"
            fix = None
        else:
            continue
        yield (
            cls.site,
            {"classification": found.classification, "cls": cls.name, "verdict": verdict, "fix": fix},
        )


def _single_blocker(ctx: Context, found: Conversion) -> bool:
    """Whether the uses without a rewrite in the class all sit on one line."""
    lines = {h.use.site.line for h in hard_uses(ctx, found.cls, converting=True) if h.rewrite is None}
    return len(lines) <= 1


# ---------------------------------------------------------------------------------------------
# File-level findings, raised by the checker rather than by a check over the model


@rule("HWC900", "internal-error", "Internal error in rule {rule}: {error}.")
@_doc_only
def internal_error(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Reports that one of hwlint's own rules failed on this file. The other rules and files still run.

    ## Why is this bad?
    The failed rule did not check the file, so its findings may be missing. It is a bug in hwlint:
    please report it with the file that triggers it.

    ## Example
    ```
    test_x.py:1:1: HWC900 Internal error in rule HWC204: RecursionError: maximum recursion depth.
    ```

    ## Use instead
    Nothing to change in the file; upgrade hwlint or report the bug.
    """
    return iter(())


@rule("HWC901", "unparsable-file", "Cannot check file: {reason}.")
@_doc_only
def unparsable_file(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Reports a file that cannot be read, decoded or parsed as Python.

    ## Why is this bad?
    A file hwlint cannot read is a file whose classes it cannot check; the upstream linter passes
    such a file silently, which hides every problem in it.

    ## Example
    ```python
    class TestFoo(TestCase)
        def test_x(self): ...
    ```

    ## Use instead
    Fix the syntax error (or the encoding, or the file's permissions).
    """
    return iter(())


@rule(
    "HWC902",
    "stale-baseline-entry",
    "Baseline entry `{entry}` has no findings any more; remove it from {baseline}.",
    severity="warning",
)
@_doc_only
def stale_baseline_entry(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Reports an entry of the baseline (the allowlist of files `check --baseline FILE` skips) whose file
    now checks clean, or no longer exists.

    ## Why is this bad?
    The baseline exists so a project can adopt hwlint without fixing every file on day one; it
    should only shrink. A stale entry lets new findings creep back into a file that was clean.

    ## Example
    ```json
    ["test/test_ops.py", "test/test_already_fixed.py"]
    ```

    ## Use instead
    ```json
    ["test/test_ops.py"]
    ```
    or rewrite the file with `hwlint baseline --regenerate`.
    """
    return iter(())


def rule_by_name_or_code(key: str) -> Rule | None:
    key = key.strip()
    if key.upper() in RULES:
        return RULES[key.upper()]
    for r in RULES.values():
        if r.name == key:
            return r
    return None
