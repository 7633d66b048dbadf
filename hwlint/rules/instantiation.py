"""HWC1xx: instantiation (``instantiate_device_type_tests``) as each classification demands it."""

from __future__ import annotations

from collections.abc import Iterator

from ..collection import device_parameters, generated_devices, generated_suffixes
from ..context import Context
from ..edits import Applicability, Fix
from ..model import ClassInfo, Instantiation, mro
from ..neutral import kept_by_the_module, own_class_setup
from ..taxonomy import Classification
from .base import Hit, rule


@rule(
    "HWC101",
    "instantiation-forbidden",
    "{classification} test class `{cls}` is passed to `{function}`.",
    manual="drop the instantiation call, or classify the class ACCELERATOR and give its tests `device`",
)
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
    manual=(
        "nothing instantiates this ACCELERATOR class: give its tests `device` and instantiate it, "
        "or classify it for the one device its tests need (instantiation replaces the class by one "
        "per device, whose device base's setUpClass runs instead of the class's own)"
    ),
)
def instantiation_missing(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a class whose classification requires instantiation (such as ACCELERATOR) when no
    instantiation call names it: neither in its own file nor in another test module of the project
    that imports it (upstream instantiates some classes from `test/test_optim.py`). The project is
    the current directory's check scope, whichever files were named: `hwlint check FILE`, flake8
    and pre-commit read the same calls as `hwlint check test/`. Its tests without `device` are no
    HWC202 of their own until a call instantiates the class (this finding says it for them).

    No fix: `--show-fixes` and `hwlint report` say what stands in the way of instantiating the
    class, where hwlint sees it: the module names the class elsewhere (instantiation deletes it
    from the module), a distributed base runs its own processes, tests bound by assignment,
    tests that take no `device`, and a `setUpClass` or `tearDownClass` of the class, of a base in
    the file or of dynamo's and inductor's `TestCase`: the generated class's device base comes
    first in its MRO, and its `setUpClass` calls no `super()`; torch 2.13's instantiation calls
    both, torch 2.6's the device base's alone (dynamo's `tearDownClass` then fails).

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
        if c.instantiation == "required" and not ctx.instantiated(cls):
            fields = {"classification": c.name, "cls": cls.name, "function": function}
            yield cls.site, {**fields, "fix": _instantiation_blockers(ctx, cls)}


def _instantiation_blockers(ctx: Context, cls: ClassInfo) -> Fix | None:
    """No fix, with what stands in the way of instantiating *cls* (None: hwlint sees nothing, the
    rule's advice stands). Instantiation deletes the class from its module and builds one class
    per device on a device base that comes first in its MRO; tests without ``device`` get none."""
    chain = mro(ctx.model, cls, ctx.resolver)
    found = [kept_by_the_module(ctx, cls, chain, []), own_class_setup(ctx, chain)]
    plain = [m for m in cls.test_methods if not device_parameters(ctx.taxonomy, m)]
    if plain:
        total = len(cls.test_methods)
        found.append(
            "none of its tests takes `device`"
            if len(plain) == total
            else f"{len(plain)} of its {total} tests take no `device`"
        )
    why = [w for w in found if w]
    if not why:
        return None
    return Fix(
        Applicability.NONE,
        reason=f"instantiating `{cls.name}` is no neutral fix: {'; '.join(why)}",
    )


@rule(
    "HWC103",
    "only-for-forbidden",
    "{classification} test class `{cls}` is instantiated with `only_for={value}`.",
    manual="pass the devices to leave out as `except_for` instead",
)
def only_for_forbidden(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags `only_for=` on the instantiation of a class whose classification forbids it (ACCELERATOR),
    wherever the class is defined: the call is checked in the file that makes it.

    The fix (safe) writes the `except_for` that generates the same device types on every device
    the taxonomy knows: those instantiation generates by default (or by the opt-in the call
    passes) that `only_for` does not name (`only_for=("cuda", "hpu")` ->
    `except_for=("cpu", "privateuse1")`). `only_for` resolves as HWC106 says (a constant as it
    stands at the call, a device appended where it exists). No fix where `only_for` cannot be
    resolved (the reason says why: a value a condition picks, such as `("cuda",) if IS_FBCODE else
    ("cpu", "cuda")`, or a name imported from torch, whose value is the installed torch's), is
    passed by position, or comes with `except_for`.

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
        if call.only_for is not None and call.only_for.spelled:
            yield (
                call.only_for.site,
                {
                    "classification": c.name,
                    "cls": cls.name,
                    "value": call.only_for.site.text,
                    "fix": _except_for_fix(ctx, call),
                },
            )


def _except_for_fix(ctx: Context, call: Instantiation) -> Fix:
    """HWC103's fix: ``only_for`` turned into the ``except_for`` that generates the same classes on
    every device the taxonomy knows (the devices instantiation generates without an opt-in, or with
    the opt-in the call passes, less those ``only_for`` names), so each runner runs what it ran.
    No fix where the devices cannot be resolved, or ``except_for`` is passed too."""
    tax = ctx.taxonomy
    only = call.only_for
    assert only is not None
    if only.devices is None:
        why = f" ({only.unresolved})" if only.unresolved else ""
        return Fix(
            Applicability.NONE,
            reason=f"`only_for={only.site.text}` cannot be resolved{why}: list the devices to leave out",
        )
    if call.dynamic or call.except_for is not None:
        return Fix(
            Applicability.NONE,
            reason="the call passes `except_for` (or `**kwargs`) too: merge the filters by hand",
        )
    if not only.keyword:
        return Fix(
            Applicability.NONE,
            reason="`only_for` is passed by position: pass the devices to leave out as `except_for`",
        )
    named = set(only.devices)
    excluded = [
        name
        for name, dev in tax.devices.items()
        if (dev.opt_in is None or call.opt_in(dev.opt_in)) and not tax.device_aliases(name) & named
    ]
    value = "(" + ", ".join(f'"{d}"' for d in excluded) + ("," if len(excluded) == 1 else "") + ")"
    return ctx.fix(
        Applicability.SAFE,
        f"Replace `only_for={only.site.text}` with `except_for={value}`",
        "the same device types are generated on every runner",
        lambda b: [b.set_keywords(call, [("except_for", value)], "only_for")],
    )


def _device_calls(
    ctx: Context, setting: str, value: str
) -> Iterator[tuple[ClassInfo, Classification, Instantiation]]:
    """Each instantiation call of the file, with its class, whose classification has *setting*
    set to *value* (``only_for: forbidden``...)."""
    for cls, c, call in ctx.classified_instantiations:
        if getattr(c, setting) == value:
            yield cls, c, call


@rule(
    "HWC104",
    "only-for-mismatch",
    "{classification} test class `{cls}` is instantiated {problem}.",
    manual="instantiate the class `only_for` its classification's device",
)
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
    manual="drop `except_for`, or classify the class for every device",
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
        if call.except_for is not None and call.except_for.spelled:
            yield (
                call.except_for.site,
                {"classification": c.name, "cls": cls.name, "value": call.except_for.site.text},
            )


@rule(
    "HWC106",
    "unresolvable-device-filter",
    "{classification} test class `{cls}` is instantiated "
    "with `{keyword}={value}`, which cannot be resolved statically.",
    manual="spell the device filter as a literal, or a module constant assigned once",
)
def unresolvable_device_filter(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags an `only_for` / `except_for` argument whose value hwlint cannot compute without running
    the code (a call, an imported name, a variable bound or changed under a condition, a list
    changed in place or handed to a function, keywords passed through `**kwargs`) where a rule
    needs its value. String literals, tuples and lists of them, and module-level constants built
    from them resolve, each as it stands at the call (`only_for = ("cuda",)`, a call, then
    `only_for = ("cpu",)` and a second call: one each); so do keywords spelled in a dict display
    (`**{"only_for": "cuda"}`) and a device appended where it exists (`if TEST_HPU:
    devices.append("hpu")`, or under `torch.hpu.is_available()`): instantiation generates a device
    type only where its device exists, so the list may as well hold it always.

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
    manual="rename the hand-written class: instantiation replaces it at run time",
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
