"""Infer the classification of an undeclared test class from the evidence in its own file.

The evidence comes from the file model (instantiation calls, ``device`` parameters, device-specific
decorators, device uses such as ``torch.cuda.*``) and the classifications' requirements from the
taxonomy, so a vendor's taxonomy changes the answers without a patch here.

Every answer is one of:

* a **safe** fix: the classification follows by construction (the class is instantiated for every
  device and every test takes ``device``; it is instantiated ``only_for`` one device; it already
  inherits the classification at run time; nothing in it touches a device and it is not instantiated);
* an **unsafe** fix: a heuristic guess (every test uses ``torch.cuda``, so CUDA);
* no fix, with the reason; when the evidence points two ways, ``mixed`` says what is mixed and how to
  split the class (rule HWC004 reports it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .model import ANY_ACCELERATOR, ClassInfo, DeviceUse, Method, Site, mro
from .rules import Context
from .taxonomy import Classification, Taxonomy

#: Bases whose tests are accelerator tests in substance but cannot be instantiated per device; the
#: right classification depends on the process group's backend, which only a person can judge.
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


@dataclass(frozen=True)
class Inference:
    """What hwlint can say about one undeclared test class."""

    cls: ClassInfo
    classification: str | None  # None: no automatic fix
    safe: bool
    evidence: tuple[str, ...]  # short phrases, for --show-fixes and lintrunner descriptions
    mixed: str | None = None  # what is mixed, and the suggested split (only when there is no fix)
    by_absence: bool = False  # GENERIC because nothing points to a device, not because something says so

    @property
    def fixable(self) -> bool:
        return self.classification is not None

    def describe(self) -> str:
        """One line: the proposed classification (or why there is none) and its evidence."""
        if self.classification is None:
            return self.mixed or "; ".join(self.evidence)
        kind = "safe" if self.safe else "unsafe"
        return f"{self.classification} ({kind}): " + "; ".join(self.evidence)


def _fix(cls: ClassInfo, name: str, safe: bool, *evidence: str, by_absence: bool = False) -> Inference:
    return Inference(cls, name, safe, tuple(evidence), by_absence=by_absence)


def _no_fix(cls: ClassInfo, *evidence: str) -> Inference:
    return Inference(cls, None, False, tuple(evidence))


def _mixed(cls: ClassInfo, what: str) -> Inference:
    return Inference(cls, None, False, (what,), mixed=what)


# ---------------------------------------------------------------------------------------------
# What the taxonomy calls generic, per-device and device-pinning


def generic_classification(tax: Taxonomy) -> Classification | None:
    """The classification for code that runs once, uninstantiated (GENERIC by default)."""
    for c in tax.classifications.values():
        if c.device is None and c.instantiation == "forbidden":
            return c
    return None


def instantiated_classification(tax: Taxonomy) -> Classification | None:
    """The classification for classes instantiated for every device (ACCELERATOR by default)."""
    for c in tax.classifications.values():
        if c.device is None and c.instantiation == "required":
            return c
    return None


def runner_classification(tax: Taxonomy, device: str) -> Classification | None:
    """The one non-generic classification every runner of *device* runs (PrivateUse1: ACCELERATOR)."""
    generic = generic_classification(tax)
    runners = [r for r in tax.runners.values() if r.device == device]
    if not runners:
        return None
    common = set.intersection(*(set(r.runs) for r in runners)) - {generic.name if generic else ""}
    if len(common) != 1:
        return None
    return tax.classifications.get(next(iter(common)))


def device_pinning_decorators(tax: Taxonomy) -> frozenset[str]:
    """Decorators some classification forbids because they pin tests to devices (``@onlyCUDA``)."""
    out: set[str] = set()
    for c in tax.classifications.values():
        out |= c.forbidden_decorators
    return frozenset(out)


def decorator_device(tax: Taxonomy, name: str) -> str | None:
    """The one device ``@only<DEVICE>`` pins to (``onlyCUDA`` -> cuda), None for multi-device ones."""
    if name.startswith("only") and name[4:].lower() in tax.devices:
        return name[4:].lower()
    return None


def generic_runner_devices(tax: Taxonomy) -> frozenset[str]:
    """Devices of the runners that run the generic classification: using them is not evidence."""
    generic = generic_classification(tax)
    if generic is None:
        return frozenset()
    return frozenset(r.device for r in tax.runners.values() if generic.name in r.runs)


# ---------------------------------------------------------------------------------------------
# Evidence in one class


@dataclass(frozen=True)
class _Pin:
    """A device-pinning decorator on a test (or on the class): the device, or None for several."""

    decorator: str
    device: str | None


class _Evidence:
    def __init__(self, ctx: Context, cls: ClassInfo):
        tax = ctx.taxonomy
        self.tax = tax
        self.cls = cls
        self.tests = cls.test_methods
        params = set(tax.device_params)
        self.with_device = [m for m in self.tests if params & set(m.params)]
        self.without_device = [m for m in self.tests if not params & set(m.params)]
        self.calls = ctx.model.instantiations_of(cls)
        pinning = device_pinning_decorators(tax)
        self.class_pins = [
            _Pin(d.name, decorator_device(tax, d.name)) for d in cls.decorators if d.name in pinning
        ]
        self.method_pins = {
            m.name: [_Pin(d.name, decorator_device(tax, d.name)) for d in m.decorators if d.name in pinning]
            for m in self.tests
        }
        ignored = generic_runner_devices(tax)
        self.test_uses = {m.name: [u for u in m.device_uses if u.device not in ignored] for m in self.tests}
        in_tests = {(u.site.line, u.site.col) for m in self.tests for u in m.device_uses}
        self.class_uses = [
            u
            for u in cls.device_uses
            if u.device not in ignored and (u.site.line, u.site.col) not in in_tests
        ]
        # A base in the file lends the class its setUp and its tests: its device uses are the class's too.
        for base in mro(ctx.model, cls, ctx.resolver)[1:]:
            self.class_uses += [u for u in base.device_uses if u.device not in ignored]
        # Availability checks that name no device (torch.accelerator.is_available()) still say "accelerator".
        used = {(u.site.line, u.site.col) for u in cls.device_uses}
        self.neutral_checks = [s for s in cls.availability_checks if not _covered(s, used, cls.device_uses)]


def _covered(site: Site, starts: set[tuple[int, int]], uses: Sequence[DeviceUse]) -> bool:
    return (site.line, site.col) in starts or any(
        u.site.line == site.line and u.site.col <= site.col < (u.site.end_col or u.site.col + 1) for u in uses
    )


def _names(methods: Iterable[Method | str], limit: int = 3) -> str:
    names = [m if isinstance(m, str) else m.name for m in methods]
    shown = ", ".join(f"`{n}`" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _use(u: DeviceUse) -> str:
    return f"`{u.site.text}` (line {u.site.line})" if u.site.line else f"`{u.site.text}`"


# ---------------------------------------------------------------------------------------------
# Inference


def infer(ctx: Context, cls: ClassInfo) -> Inference:
    """The classification *cls* should declare, with its evidence, or why hwlint cannot tell."""
    own = _infer_own(ctx, cls)
    found = ctx.effective(cls)
    if found is None or found[1] is cls or found[0].member is None:
        return own
    member, base = found[0].member, found[1].name
    if member not in ctx.taxonomy.classifications:
        return own
    if own.classification not in (None, member) and not own.by_absence:
        return _mixed(
            cls,
            f"{member}, inherited from `{base}`, with evidence for {own.classification} "
            f"({'; '.join(own.evidence)}): declare one by hand, or move the tests to another class",
        )
    if own.mixed:
        return own
    return _fix(
        cls, member, True, f"inherits {member} from `{base}`, which `getattr` already returns at run time"
    )


def _infer_own(ctx: Context, cls: ClassInfo) -> Inference:
    ev = _Evidence(ctx, cls)
    if ev.calls:
        return _infer_instantiated(ctx, ev)
    return _infer_plain(ctx, ev)


def _infer_instantiated(ctx: Context, ev: _Evidence) -> Inference:
    tax, cls = ctx.taxonomy, ev.cls
    where = f"instantiated by `{ev.calls[0].function}` (line {ev.calls[0].site.line})"
    for call in ev.calls:
        if call.only_for is not None and call.only_for.devices is None:
            return _no_fix(
                cls, f"{where} with `only_for={call.only_for.site.text}`, which cannot be resolved"
            )
    filters = [call.only_for for call in ev.calls]
    if all(f is not None for f in filters):
        return _infer_only_for(ctx, ev, where, sorted({d for f in filters for d in f.devices}))  # type: ignore[union-attr]
    if any(f is not None for f in filters):
        return _no_fix(cls, f"{where}, by some calls with `only_for` and by others without")
    if ev.without_device and ev.with_device:
        return _mixed(
            cls,
            f"tests that take `{tax.device_params[0]}` ({_names(ev.with_device)}) with tests that do not "
            f"({_names(ev.without_device)}): move the latter to a class of their own, not instantiated",
        )
    if ev.without_device:
        return _no_fix(cls, f"{where}, but no test method takes `{tax.device_params[0]}`")
    return _infer_from_pins(ctx, ev, where)


def _infer_only_for(ctx: Context, ev: _Evidence, where: str, devices: list[str]) -> Inference:
    tax, cls = ctx.taxonomy, ev.cls
    shown = ", ".join(f'"{d}"' for d in devices)
    named = {name for name in tax.devices if tax.device_aliases(name) & set(devices)}
    if len(named) == 1:
        device = next(iter(named))
        c = tax.classification_for_device(device)
        if c is not None:
            return _fix(cls, c.name, True, f"{where} with `only_for={shown}`")
        runs = runner_classification(tax, device)
        if runs is None:
            return _no_fix(
                cls, f"{where} only for {shown}, and the taxonomy has no classification for {device}"
            )
        return _fix(cls, runs.name, False, f"{where} only for {shown}, whose runners run only {runs.name}")
    accel = instantiated_classification(tax)
    if accel is None or not named:
        return _no_fix(cls, f"{where} only for {shown}, which no single classification covers")
    return _fix(
        cls,
        accel.name,
        False,
        f"{where} only for {shown}; no classification covers exactly these devices "
        f"({accel.name} still asks for `except_for` instead of `only_for`)",
    )


def _infer_from_pins(ctx: Context, ev: _Evidence, where: str) -> Inference:
    """An instantiated class whose tests all take ``device``: device-pinning decorators decide."""
    tax, cls = ctx.taxonomy, ev.cls
    pinned = {m: pins for m, pins in ev.method_pins.items() if pins}
    if ev.class_pins or (pinned and len(pinned) == len(ev.tests)):
        pins = ev.class_pins or [p for pins in pinned.values() for p in pins]
        devices = {p.device for p in pins}
        decorators = sorted({f"@{p.decorator}" for p in pins})
        if len(devices) == 1 and None not in devices:
            c = tax.classification_for_device(next(iter(devices)))  # type: ignore[arg-type]
            if c is not None:
                return _fix(cls, c.name, False, f"{where}; every test is pinned by {', '.join(decorators)}")
        return _no_fix(cls, f"{where}; its tests are pinned by {', '.join(decorators)}")
    if pinned:
        decorators = sorted({f"@{p.decorator}" for pins in pinned.values() for p in pins})
        unpinned = [m for m in ev.tests if m.name not in pinned]
        return _mixed(
            cls,
            f"tests pinned by {', '.join(decorators)} ({_names(pinned)}) with tests for every device "
            f"({_names(unpinned)}): move the pinned ones to a class classified for their device",
        )
    accel = instantiated_classification(tax)
    if accel is None:
        return _no_fix(cls, f"{where}, and the taxonomy has no classification for instantiated classes")
    return _fix(
        cls,
        accel.name,
        True,
        f"{where} without `only_for`",
        f"every test takes `{tax.device_params[0]}`",
        "no device-pinning decorator",
    )


def _infer_plain(ctx: Context, ev: _Evidence) -> Inference:
    """A class no call in the file instantiates."""
    tax, cls = ctx.taxonomy, ev.cls
    if ev.with_device:
        accel = instantiated_classification(tax)
        verb = "takes" if len(ev.with_device) == 1 else "take"
        where = f"{_names(ev.with_device)} {verb} `{tax.device_params[0]}`"
        if ev.without_device or accel is None:
            return _no_fix(cls, f"{where} but the class is never instantiated in this file")
        # Upstream instantiates some classes from another module (test_optim.py): likely, not certain.
        return _fix(cls, accel.name, False, f"{where} but the class is not instantiated in this file")
    distributed = sorted(DISTRIBUTED_BASES & {b.rpartition(".")[2] for b in cls.bases})
    if distributed:
        return _no_fix(cls, f"it derives from `{distributed[0]}`: distributed tests are classified by hand")
    return _infer_from_uses(ctx, ev)


def _infer_from_uses(ctx: Context, ev: _Evidence) -> Inference:
    """A plain class: the devices its code uses decide (pinning decorators count as uses)."""
    tax, cls = ctx.taxonomy, ev.cls
    by_test = {m.name: ev.test_uses[m.name] + [_pin_use(p) for p in ev.method_pins[m.name]] for m in ev.tests}
    class_wide = ev.class_uses + [_pin_use(p) for p in ev.class_pins]
    every = class_wide + [u for m in ev.tests for u in by_test[m.name]]
    devices = {u.device for u in every}
    if not devices:
        if ev.neutral_checks:
            check = ev.neutral_checks[0].text
            return _no_fix(cls, f"it checks for an accelerator with `{check}` but is not instantiated")
        generic = generic_classification(tax)
        if generic is None:
            return _no_fix(cls, "no device evidence, and the taxonomy has no generic classification")
        evidence = (
            "never instantiated",
            f"no test takes `{tax.device_params[0]}`",
            "no device-specific code",
        )
        return _fix(cls, generic.name, True, *evidence, by_absence=True)
    if len(devices) > 1:
        return _no_fix(
            cls, f"it uses several devices ({', '.join(sorted(devices))}) without being instantiated"
        )
    device = next(iter(devices))
    if device not in tax.devices:
        return _no_fix(
            cls, f"it uses an accelerator without naming one ({_use(every[0])}) and is not instantiated"
        )
    using = [m for m in ev.tests if by_test[m.name]]
    target = tax.classification_for_device(device)
    if not class_wide and len(using) < len(ev.tests):
        generic = generic_classification(tax)
        plain = [m for m in ev.tests if not by_test[m.name]]
        split = (
            f"split it into a {generic.name if generic else 'device-independent'} class and a "
            f"{target.name if target else device} class"
        )
        return _mixed(
            cls,
            f"tests that use {device} ({_names(using)}, e.g. {_use(every[0])}) with tests that use no "
            f"device ({_names(plain)}): {split}",
        )
    if target is None:
        return _no_fix(cls, f"it uses {device}, and the taxonomy has no classification for {device}")
    scope = "the class" if class_wide else "every test"
    return _fix(cls, target.name, False, f"never instantiated; {scope} uses {device}: {_use(every[0])}")


def _pin_use(pin: _Pin) -> DeviceUse:
    """A pinning decorator counts as a use of its device (several devices: any accelerator)."""
    return DeviceUse(pin.device or ANY_ACCELERATOR, Site(0, 0, f"@{pin.decorator}"))
