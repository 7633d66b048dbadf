"""HWC2xx: test methods and class bodies: device parameters, device-pinning decorators, accelerator APIs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ..collection import device_parameters, origin, trusted_module
from ..context import Context
from ..edits import Applicability, Fix
from ..model import ClassInfo, Method
from .base import Hit, rule
from .split import (
    ACCELERATOR_PIN,
    MOVE,
    NATIVE,
    DevicePlan,
    PinPlan,
    copy_edits,
    described,
    device_plan,
    pin_edits,
    pin_plan,
)


@rule(
    "HWC201",
    "device-param-forbidden",
    "{classification} test method `{cls}.{method}` takes a `{param}` parameter.",
    manual="drop the `device` parameter, or classify the class ACCELERATOR and instantiate it",
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
    for cls, c in ctx.classified_test_classes:
        if c.device_param != "forbidden":
            continue
        for m in cls.test_methods:
            params = device_parameters(ctx.taxonomy, m)
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
    requires one (ACCELERATOR). A class whose classification requires instantiation and that
    nothing instantiates is HWC102's finding, once for the class, not one more per test: nothing
    would pass `device` to its tests, and what a person does is instantiate it (or classify it
    otherwise); once a call instantiates it, its tests without `device` are reported here.

    The fix (safe) adds `device` after `self`: instantiation passes `device` only to a test whose
    signature has it, so a test that does not read it runs as before. No fix where that is not
    certain: the class is not instantiated (nothing would pass it), the body reads `device` before
    binding it, or in a nested function that does not bind it (the parameter would change what it
    reads; a body that binds it first, `device = self.device_type`, or reads it only as a loop's or
    a nested function's own, does not), or a decorator comes from outside torch, pytest and the
    standard library (it may hide the signature instantiation reads). A test that takes `device`
    with a default (`device="cpu"`) takes it: instantiation passes it whatever the default.

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
    wanted = " or ".join(f"`{p}`" for p in ctx.taxonomy.device_params)
    for cls, c in ctx.classified_test_classes:
        if c.device_param != "required":
            continue
        if c.instantiation == "required" and not ctx.instantiated(cls):
            continue  # HWC102's finding: nothing passes `device` to a class nothing instantiates
        instantiated = ctx.instantiated(cls)
        for m in cls.test_methods:
            if not device_parameters(ctx.taxonomy, m, instantiated):
                yield (
                    m.site,
                    {
                        "classification": c.name,
                        "cls": cls.name,
                        "method": m.name,
                        "params": wanted,
                        "fix": _device_param_fix(ctx, cls, m),
                    },
                )


def _device_param_fix(ctx: Context, cls: ClassInfo, m: Method) -> Fix:
    """HWC202's fix: ``device`` added after ``self``. Instantiation passes ``device`` only to a test
    whose signature has it (``if "device" in test_sig_params``), so a test that does not read it
    behaves as before: safe where nothing else can tell, no fix where it can: a class nothing
    instantiates (nothing would pass it), a body that reads ``device`` where the parameter would
    change what it reads (:attr:`~hwlint.model.Method.body_names`), a decorator from outside torch,
    pytest and the standard library (it may not keep the signature, which instantiation reads
    through ``functools.wraps``)."""
    param = ctx.taxonomy.device_params[0]
    if not ctx.instantiated(cls):
        return Fix(
            Applicability.NONE, reason=f"`{cls.name}` is not instantiated: nothing would pass `{param}`"
        )
    if m.body_names:
        return Fix(
            Applicability.NONE,
            reason=f"its body reads `{m.body_names[0]}` where a parameter would change what it reads",
        )
    for d in m.decorators:
        root = d.site.text.partition("(")[0].partition(".")[0].strip().lstrip("@")
        module = origin(ctx.model, root, d.site.line)
        if module is None or not trusted_module(module):
            return Fix(
                Applicability.NONE,
                reason=f"`@{d.name}` (line {d.site.line}) comes from code hwlint does not read: it may "
                f"hide the signature instantiation reads `{param}` from",
            )
    if not m.param_sites:
        return Fix(Applicability.NONE, reason="the test takes no `self`")
    return ctx.fix(
        Applicability.SAFE,
        f"Add `{param}` to `{cls.name}.{m.name}`",
        f"instantiation passes `{param}` to the test, which does not read it",
        lambda b: [b.add_parameter(m, param)],
    )


@rule(
    "HWC203",
    "device-specific-decorator",
    "{classification} test {kind} `{target}` is decorated with `@{decorator}`.",
    manual=(
        "a test pinned to one device in a class for every device: move it to a class for that "
        "device, or use `@onlyAccelerator` where its body is device-neutral"
    ),
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
        plan = pin_plan(ctx, cls, c.forbidden_decorators)
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
                            "fix": _pin_fix(ctx, cls, plan, (d.site.line, d.site.col), d.name),
                        },
                    )


_PIN_REASONS = {
    NATIVE: "every device type its instantiation generates ({detail}) is native from torch 2.13 on: the "
    "decorator skips nothing there (meta, lazy, XLA and HPU would run the test)",
    ACCELERATOR_PIN: "the test uses no device but the one it is given: every accelerator runs it, the CPU "
    "skips it",
    MOVE: "the tests pinned to one device move to a class of their own, classified for it and instantiated "
    "`only_for` it: each still runs on its device's runner",
}


def _pin_fix(ctx: Context, cls: ClassInfo, plan: PinPlan, at: tuple[int, int], name: str) -> Fix:
    """HWC203's (unsafe) fix for the decorator at *at*, or none with the reason."""
    action = plan.actions.get(at)
    if action is None:
        why = (
            plan.kept.get(at)
            or plan.why
            or "it pins the test to several devices, or to one hwlint cannot name"
        )
        return Fix(Applicability.NONE, reason=f"`@{name}` stays: {why}")
    what, detail = action
    if what == NATIVE:
        message = f"Remove `@{name}`"
    elif what == ACCELERATOR_PIN:
        message = f"Replace `@{name}` with `@onlyAccelerator`"
    else:
        message = f"Move the pinned tests of `{cls.name}`: {described(plan.splits)}"
    reason = _PIN_REASONS[what].format(detail=detail)
    return ctx.fix(Applicability.UNSAFE, message, reason, lambda b: pin_edits(ctx, b, cls, plan, at))


@rule(
    "HWC204",
    "availability-check",
    "{classification} test class `{cls}` calls the accelerator API `{call}`.",
    manual=(
        "a GENERIC class calls an accelerator API: move the tests that need the device to a class "
        "classified for it, or drop the call"
    ),
)
def availability_check(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a call into an accelerator API anywhere in a class whose classification forbids it
    (GENERIC), its decorators and methods included. As upstream's linter does today, the default
    taxonomy's `accelerator_modules` make any `torch.` call count one of whose dotted parts is
    `accelerator`, `cuda`, `hpu`, `ipu`, `mps`, `mtia`, `xla` or `xpu` (`torch.cuda.is_available()`,
    `torch.cuda.synchronize()`, `torch.backends.mps.is_available()`, `torch.xpu.empty_cache()`, and
    a method call on a `torch.` chain, `torch.nn.Linear(2, 2).cuda()`, which upstream reads as the
    call `torch.nn.Linear(2, 2).cuda`), and
    `torch.backends.cudnn.*` does not (no part names a device module). The taxonomy's
    `availability_checks` add exact calls (`examples/taxonomy-availability-only.yaml` keeps the
    earlier rule: `is_available()` checks only).

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
        plan = device_plan(ctx, cls, c)
        for site in cls.availability_checks:
            at = (site.line, site.col)
            fix = plan_fix(ctx, cls, plan, plan.kept.get(at) or plan.why) if at not in plan.kept else None
            if fix is None:
                fix = Fix(Applicability.NONE, reason=f"the call stays: {plan.kept[at]}")
            yield site, {"classification": c.name, "cls": cls.name, "call": site.text, "fix": fix}


@rule(
    "HWC205",
    "skipped-without-device",
    "{classification} test method `{cls}.{method}` is skipped without {device} (`@{decorator}`), which no "
    "runner of {classification} has.",
)
def skipped_without_device(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Flags a test whose decorator (or its class's) skips it whenever a device is absent
    (`@unittest.skipIf(not TEST_CUDA, ...)`, `@skipUnless(torch.cuda.is_available(), ...)`,
    `@requires_cuda`) in a class whose classification no runner of that device runs: a GENERIC class,
    which only the CPU runner runs. The (unsafe) fix moves such tests to a class of their own on the
    same bases, classified for the device (`TestFooCudaOnly`), which copies the class's helpers,
    setUp and class attributes; where the move cannot be made (a subclass in the file inherits the
    tests, module code takes the class), the finding stays with the reason. A guard that is an
    accelerator API call the classification forbids (`torch.cuda.is_available()` in a GENERIC
    class) is HWC204's finding, not a second one.

    ## Why is this bad?
    The runner that runs the class never has the device: the test is collected there and skipped,
    every time, and the runners with the device never select it. It ran before the classification
    and runs nowhere after, while the suite looks green.

    ## Example
    ```python
    class TestPooling(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_size(self): ...

        @unittest.skipIf(not TEST_CUDA, "CUDA unavailable")
        def test_overflow(self): ...
    ```

    ## Use instead
    ```python
    class TestPooling(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_size(self): ...


    class TestPoolingCudaOnly(TestCase):
        hw_classification = HardwareClassification.CUDA

        @unittest.skipIf(not TEST_CUDA, "CUDA unavailable")
        def test_overflow(self): ...
    ```
    """
    for cls, c in ctx.classified_test_classes:
        plan = device_plan(ctx, cls, c)
        for m in cls.test_methods:
            missing = plan.skipped.get(m.name)
            if not missing:
                continue
            device, text = next(iter(sorted(missing.items())))
            fields = {"classification": c.name, "cls": cls.name, "method": m.name, "device": device}
            fields["decorator"] = text
            fields["fix"] = plan_fix(ctx, cls, plan, plan.stays.get(m.name) or plan.why)
            yield m.site, fields


def plan_fix(ctx: Context, cls: ClassInfo, plan: DevicePlan, why: str) -> Fix:
    """HWC204's and HWC205's (unsafe) fix: the class's tests for one device moved to classes of
    their own, or the whole class classified for the device (the same keyed edits for each finding
    of the class: written once), or none with the reason."""
    if plan.whole is not None:
        decl = cls.declaration

        def whole(b):
            edits = [b.redeclare(decl.site, plan.whole)] if decl is not None else b.declare(cls, plan.whole)
            return [replace(e, key=f"whole {cls.name} {i}") for i, e in enumerate(edits)]

        reason = "every test needs the device, or code every test may reach calls its API"
        return ctx.fix(Applicability.UNSAFE, f"Classify `{cls.name}` {plan.whole}", reason, whole)
    if not plan.splits:
        return Fix(
            Applicability.NONE, reason=f"the test stays: {why or 'the class itself is skipped without it'}"
        )

    def edits(b):
        return [
            replace(e, key=f"move {cls.name} {i}")
            for i, e in enumerate(copy_edits(ctx, b, cls, plan.splits, False, plan.dropped))
        ]

    reason = "a runner with the device runs the moved tests; the others stay where they run"
    return ctx.fix(Applicability.UNSAFE, f"Move {described(plan.splits)[5:]}", reason, edits)
