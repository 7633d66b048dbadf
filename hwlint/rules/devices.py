"""HWC3xx: device-neutral tests: hard-coded devices in every-device classes, one-device classes that
could run everywhere."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Applicability, Edit, EditBuilder, Fix
from ..neutral import (
    Conversion,
    Rewrite,
    conversion,
    hard_uses,
    is_every_device_class,
    neutral_except_for,
    shown,
)
from ..taxonomy import Taxonomy
from ..words import plural
from .base import Hit, rule


@rule(
    "HWC301",
    "hardcoded-device",
    "{classification} test class `{cls}` hard-codes {device} in `{method}`: `{use}`.",
    manual=(
        "no device-neutral spelling for this use: give the test the device it is handed, or move it"
        " to a class for its device"
    ),
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
                    "fix": rewrite_fix(ctx, h.rewrite) if h.rewrite is not None else None,
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
    the classification becomes ACCELERATOR. A class that gives its device to that device's autocast,
    streams or allocator (`torch.autocast("xpu")`, `torch.Stream(device="cuda")`,
    `torch.cuda.memory_allocated("cuda:0")`) is not flagged: its tests test that device.

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
            fix = conversion_fix(ctx, found)
        elif found.blocker is not None and found.blocker.startswith("line ") and _single_blocker(ctx, found):
            verdict = f"could run on every accelerator but for {found.blocker}"
            fix = Fix(Applicability.NONE, reason=f"held back by {found.blocker}")
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


_REWRITE_REASONS = {
    Applicability.SAFE: "the device-neutral call does the same on CUDA",
    Applicability.UNSAFE: "the code then runs on the device the test is given",
}


def rewrite_fix(ctx: Context, rewrite: Rewrite) -> Fix:
    """HWC301's fix: one hard-coded device spelled for every device."""
    use = rewrite.use
    target = use.target
    before = target.text if target is not None else shown(use)
    return ctx.fix(
        rewrite.applicability,
        f"Replace `{before}` with `{rewrite.text}`",
        _REWRITE_REASONS[rewrite.applicability],
        lambda b: [b.replace(target, rewrite.text)] if target is not None else [],
    )


def conversion_fix(ctx: Context, c: Conversion) -> Fix:
    """HWC302's (unsafe) fix: the whole class made device-generic."""
    tax = ctx.taxonomy
    param = tax.device_params[0]
    gaining = [m for m in c.tests if param not in m.params]
    reason = (
        f"{plural(len(gaining), 'test')} {'gains' if len(gaining) == 1 else 'gain'} `{param}`, "
        f"{plural(len(c.rewrites), 'hard-coded device')} rewritten, instantiated with "
        f"`except_for={_except_for(tax)}`"
    )
    return ctx.fix(
        Applicability.UNSAFE,
        f"Convert `{c.cls.name}` from {c.classification} to {c.target}",
        reason,
        lambda b: _convert(b, ctx, c),
    )


def _except_for(tax: Taxonomy) -> str:
    return "(" + ", ".join(f'"{d}"' for d in neutral_except_for(tax)) + ",)"


def _convert(b: EditBuilder, ctx: Context, c: Conversion) -> list[Edit]:
    """The edits of a conversion: the declaration (made or changed), ``device`` added to each test,
    the hard-coded devices rewritten, and the class instantiated for every device but the generic
    runners' (its call's ``only_for`` replaced, or a call added after the class)."""
    tax, cls = ctx.taxonomy, c.cls
    decl = cls.declaration
    edits = [b.redeclare(decl.site, c.target)] if decl is not None else b.declare(cls, c.target)
    param = tax.device_params[0]
    edits += [b.add_parameter(m, param) for m in c.tests if param not in m.params]
    seen: set[tuple[int, int]] = set()
    for r in c.rewrites:
        target = r.use.target
        if target is not None and (target.line, target.col) not in seen:
            seen.add((target.line, target.col))
            edits.append(b.replace(target, r.text))
    neutral = tax.device_neutral
    keywords = [("except_for", _except_for(tax)), *((o, "True") for o in neutral.opt_ins)]
    calls = ctx.model.instantiations_of(cls)
    if calls:
        edits.append(b.set_keywords(calls[0], keywords, "only_for"))
        return edits
    function, imports = b.reference(neutral.module, tax.instantiation_functions[0], cls.site.line)
    arguments = [cls.name, "globals()", *(f"{k}={v}" for k, v in keywords)]
    header = b.lines(cls.site.line, cls.site.line)
    indent = header[: len(header) - len(header.lstrip())]
    return [*edits, *imports, b.statement_after(cls, b.call_text(function, arguments, indent))]
