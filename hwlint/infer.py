"""Infer the classification of an undeclared class from the evidence in its own file.

The evidence is the file model's (instantiation calls, ``device`` parameters, device-pinning
decorators, and the device uses attributed to each test: *hard* uses that fail without the device,
*guards* that only ask or skip); what each classification requires comes from the taxonomy, so a
vendor's taxonomy changes the answers without a patch here.

The rules, each named in the answer's ``rule`` (``--show-fixes`` prints it):

* the class already inherits a classification: that one (safe);
* instantiated ``only_for`` exactly one known device: that device (safe); two or more device types:
  ACCELERATOR (unsafe), ``except_for=("cpu",)`` being the device-neutral form; an ``only_for`` that
  cannot be resolved: ACCELERATOR (unsafe), which every runner runs;
* instantiated without ``only_for``: every test takes ``device`` and none is pinned: ACCELERATOR
  (safe); every test pinned to one device: that device (safe); otherwise ACCELERATOR (unsafe), and
  HWC004 names the outliers;
* not instantiated: a base the module rebinds to ``NoTest`` without one device (``TestCase =
  NoTest`` under ``if not TEST_CUDA:``): that device (safe); no evidence: GENERIC (safe); guards
  only, or a call GENERIC forbids that no test reaches: GENERIC (unsafe); every test hard-uses
  exactly one device: that device (unsafe); a minority of tests hard-use a device (or several
  devices): GENERIC (unsafe); half or most of them one device, the others none: that device
  (unsafe), whose runner runs every test; HWC004 advises the split in these; half or more of them
  several devices, or an accelerator no device names (``GPU_TYPE``), or any share parametrized by
  such an accelerator (their variants are named after each runner's device): ACCELERATOR
  (unsafe), which every runner runs, each test where its device exists;
* a class that collects tests without defining one (HWC005): the answer of the base that holds the
  tests; a class-level ``device = "<dev>"``: that device (unsafe); ``device = <variable>``:
  ACCELERATOR (unsafe);
* a class whose tests are all bound by assignment (``test_x = helper``) or added by module code's
  ``setattr``: GENERIC (unsafe) unless its own code hard-uses a device.

A test that a ``@requires_*`` decorator skips without a device (``@requires_gpu``) uses that device
as a hard use does: the skip leaves it nothing to run elsewhere. Distributed bases
(``MultiProcessTestCase`` and friends) go through the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property

from .collection import DISTRIBUTED_BASES, added_by_setattr, device_parameters, hidden_bases
from .context import Context
from .model import ANY_ACCELERATOR, ClassInfo, DeviceUse, Method, UseKind, mro, required_by
from .taxonomy import Classification, Taxonomy

# The rules, as --show-fixes names them.
INHERITED = "inherited"
ONLY_FOR_ONE = "only_for names one device"
ONLY_FOR_SEVERAL = "only_for names several devices"
EVERY_TEST_TAKES_DEVICE = "instantiated, every test takes device, none pinned"
EVERY_TEST_PINNED = "instantiated, every test pinned to one device"
INSTANTIATED_MIXED = "instantiated, tests not all alike"
DEVICE_PARAM = "device parameter, not instantiated here"
ONLY_FOR_UNRESOLVED = "only_for cannot be resolved"
UNNAMED_ACCELERATOR = "uses an accelerator without naming one"
SEVERAL_DEVICES = "tests hard-use several devices"
NO_EVIDENCE = "no device evidence"
GUARDS_ONLY = "guards only"
EVERY_TEST_HARD = "every test hard-uses one device"
MINORITY_HARD = "a minority of tests hard-use a device"
MAJORITY_HARD = "most tests hard-use one device, the others none"
EVEN_HARD = "half the tests hard-use one device, the others none"
CLASS_GUARDED = "class guarded by one device, its tests use it"
BASE_WITHOUT_DEVICE = "its base holds no tests without one device"
SPLIT_PINNED = "instantiated, some tests pinned to one device: those move to a class of their own"
BASE_TESTS = "tests collected from a base"
DEVICE_ATTRIBUTE = "class-level device"
BOUND_TESTS = "tests bound by assignment or setattr"
UNDECIDED = "undecided"


@dataclass(frozen=True)
class Inference:
    """What hwlint can say about one undeclared class."""

    cls: ClassInfo
    classification: str | None  # None: no automatic fix
    safe: bool
    evidence: tuple[str, ...]  # short phrases, for --show-fixes and lintrunner descriptions
    mixed: str | None = None  # what is mixed, and the suggested split (HWC004 reports it)
    by_absence: bool = False  # GENERIC for lack of hard evidence, not because something says so
    rule: str = UNDECIDED  # which rule decided (one of the constants above)
    # SPLIT_PINNED: the tests that move to a class of their own, the device they are pinned to, and
    # that class's name and classification
    split: tuple[tuple[str, ...], str, str, str] | None = None
    # a GENERIC answer's tests that run only with one device: (test, device), for the split that
    # moves them to a class of their own (hwlint.rules.split)
    bound: tuple[tuple[str, str], ...] = ()

    @property
    def fixable(self) -> bool:
        return self.classification is not None

    @property
    def reason(self) -> str:
        """One line: the rule that decided, and the evidence it read."""
        return f"{self.rule}: " + "; ".join(self.evidence)

    def describe(self) -> str:
        """One line: the proposed classification (or why there is none), its rule and evidence."""
        if self.classification is None:
            return self.mixed or "; ".join(self.evidence)
        kind = "safe" if self.safe else "unsafe"
        return f"{self.classification} ({kind}, {self.rule}): " + "; ".join(self.evidence)


def _fix(
    cls: ClassInfo, name: str, safe: bool, rule: str, *evidence: str, by_absence: bool = False, mixed=None
) -> Inference:
    return Inference(cls, name, safe, tuple(evidence), mixed=mixed, by_absence=by_absence, rule=rule)


def _no_fix(cls: ClassInfo, *evidence: str) -> Inference:
    return Inference(cls, None, False, tuple(evidence))


def _mixed(cls: ClassInfo, what: str) -> Inference:
    return Inference(cls, None, False, (what,), mixed=what)


# ---------------------------------------------------------------------------------------------
# What the taxonomy calls generic, per-device and device-pinning


def instantiated_classification(tax: Taxonomy) -> Classification | None:
    """The classification for classes instantiated for every device (ACCELERATOR by default)."""
    for c in tax.classifications.values():
        if c.device is None and c.instantiation == "required":
            return c
    return None


def everywhere_classification(tax: Taxonomy) -> Classification | None:
    """The device-independent classification every runner runs (ACCELERATOR by default): a class
    declared so runs on each runner as it is, each test where the device it needs exists."""
    accel = instantiated_classification(tax)
    if accel is None or not tax.runners or any(accel.name not in r.runs for r in tax.runners.values()):
        return None
    return accel


def runner_classification(tax: Taxonomy, device: str) -> Classification | None:
    """The one non-generic classification every runner of *device* runs (PrivateUse1: ACCELERATOR)."""
    generic = tax.generic_classification()
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


# ---------------------------------------------------------------------------------------------
# Evidence in one class


class _Evidence:
    """The model's device evidence for one class, per test, as the rules read it."""

    def __init__(self, ctx: Context, cls: ClassInfo):
        tax = ctx.taxonomy
        self.tax = tax
        self.cls = cls
        chain = mro(ctx.model, cls, ctx.resolver)
        self.chain = chain
        methods: dict[str, Method] = {}
        for c in chain:
            for m in c.methods:
                methods.setdefault(m.name, m)
        # the tests the class collects: its own and its bases' (a subclass's definition wins)
        self.tests = [m for m in methods.values() if m.is_test]
        self.with_device = [m for m in self.tests if device_parameters(tax, m)]
        self.without_device = [m for m in self.tests if not device_parameters(tax, m)]
        self.calls = ctx.model.instantiations_of(cls)
        # calls in other scanned modules count as the runtime sees them: after this file's own
        self.where = {id(c): "" for c in self.calls}
        for path, call in ctx.foreign_instantiations(cls):
            self.calls.append(call)
            self.where[id(call)] = f" in {path}"
        pinning = device_pinning_decorators(tax)
        self.class_pins = [
            (d.name, decorator_device(tax, d.name)) for d in cls.decorators if d.name in pinning
        ]
        self.method_pins = {
            m.name: [(d.name, decorator_device(tax, d.name)) for d in m.decorators if d.name in pinning]
            for m in self.tests
        }
        ignored = tax.generic_runner_devices()
        attributed = dict(cls.test_uses)
        self.test_uses = {
            m.name: [u for u in attributed.get(m.name, m.device_uses) if u.device not in ignored]
            for m in self.tests
        }
        self.shared = [u for u in cls.shared_uses if u.device not in ignored]

    def hard_devices(self, test: Method) -> set[str]:
        """Devices *test* (with what every test shares) cannot run without; a named device hides
        a bare "accelerator" (gpu words never count as a second device)."""
        found = {u.device for u in (*self.shared, *self.test_uses[test.name]) if u.kind == UseKind.HARD}
        if len(found) > 1:
            found.discard(ANY_ACCELERATOR)
        return found

    def required_devices(self, test: Method) -> set[str]:
        """Devices a decorator of *test* or of its class skips it without (``@requires_cuda``,
        ``@requires_gpu``, ``@skipIf(not TEST_CUDA, ...)``): a guard, but one that leaves the test
        nothing to run elsewhere."""
        return set(required_by(test.decorators, self.test_uses[test.name])) | self.class_required

    @cached_property
    def class_required(self) -> set[str]:
        """Devices a decorator of the class skips every test without (``@skipIf(not TEST_CUDA)``)."""
        return set(required_by(self.cls.decorators, self.shared))

    def needed_devices(self, test: Method) -> set[str]:
        """The devices *test* runs only with: those it hard-uses, else those a decorator requires."""
        return self.hard_devices(test) or self.required_devices(test)

    def first(self, kind: str, tests: Iterable[Method] = (), device: str | None = None) -> DeviceUse | None:
        uses = [*self.shared, *(u for m in (tests or self.tests) for u in self.test_uses[m.name])]
        chosen = sorted(
            (u for u in uses if u.kind == kind and device in (None, u.device)),
            key=lambda u: (u.site.line, u.site.col),
        )
        return chosen[0] if chosen else None


def _names(methods: Iterable[Method | str], limit: int = 3) -> str:
    names = [m if isinstance(m, str) else m.name for m in methods]
    shown = ", ".join(f"`{n}`" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _use(u: DeviceUse) -> str:
    return f"`{u.site.text}` (line {u.site.line})" if u.site.line else f"`{u.site.text}`"


# ---------------------------------------------------------------------------------------------
# Inference


def inference(ctx: Context, cls: ClassInfo) -> Inference:
    """:func:`infer`, computed once per class and kept in *ctx*."""
    key = id(cls)
    found = ctx.inferred.get(key)
    if found is None:
        found = ctx.inferred[key] = infer(ctx, cls)
    return found


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
    if own.mixed and not own.fixable:
        return own
    return _fix(
        cls,
        member,
        True,
        INHERITED,
        f"inherits {member} from `{base}`, which `getattr` already returns at run time",
    )


def _infer_own(ctx: Context, cls: ClassInfo) -> Inference:
    ev = _Evidence(ctx, cls)
    if ev.calls:
        return _infer_instantiated(ctx, ev)
    if not ev.tests:
        return _infer_without_tests(ctx, ev)
    return _infer_plain(ctx, ev)


def _infer_instantiated(ctx: Context, ev: _Evidence) -> Inference:
    """The classification of a class a device-type instantiation generates: a ladder of cases, each
    an early return with its reason, in the order they take precedence (an unresolved or partial
    ``only_for``, no classification for instantiated classes, tests elsewhere, every test taking the
    device, every test pinned to one device, the pinned tests split off, else mixed). One ladder,
    because each step's reason presumes the evidence the steps above it ruled out."""
    tax, cls = ctx.taxonomy, ev.cls
    first = ev.calls[0]
    where = f"instantiated by `{first.function}` (line {first.site.line}{ev.where[id(first)]})"
    for call in ev.calls:
        if call.only_for is not None and call.only_for.devices is None:
            unresolved = f"{where} with `only_for={call.only_for.site.text}`, which cannot be resolved"
            everywhere = everywhere_classification(tax)
            if everywhere is None:
                return _no_fix(cls, unresolved)
            # every runner runs it, so each class the call generates runs on its device's runner
            return _fix(
                cls,
                everywhere.name,
                False,
                ONLY_FOR_UNRESOLVED,
                unresolved,
                f"{everywhere.name} runs each generated class on its device's runner; the "
                "device-neutral form is `except_for`",
            )
    filters = [call.only_for for call in ev.calls]
    if all(f is not None for f in filters):
        return _infer_only_for(ctx, ev, where, [d for f in filters for d in f.devices])  # type: ignore[union-attr]
    if any(f is not None for f in filters):
        return _no_fix(cls, f"{where}, by some calls with `only_for` and by others without")
    accel = instantiated_classification(tax)
    if accel is None:
        return _no_fix(cls, f"{where}, and the taxonomy has no classification for instantiated classes")
    param = tax.device_params[0]
    if not ev.tests:
        return _fix(
            cls,
            accel.name,
            False,
            EVERY_TEST_TAKES_DEVICE,
            f"{where} without `only_for`; its tests are not in this file",
        )
    pinned = {m.name: pins for m, pins in ((m, ev.method_pins[m.name]) for m in ev.tests) if pins}
    pins = ev.class_pins or [p for ps in pinned.values() for p in ps]
    every_pinned = bool(ev.class_pins) or len(pinned) == len(ev.tests)
    if not ev.without_device and not pins:
        return _fix(
            cls,
            accel.name,
            True,
            EVERY_TEST_TAKES_DEVICE,
            f"{where} without `only_for`",
            f"every test takes `{param}`",
            "no device-pinning decorator",
        )
    devices = {d for _, d in pins}
    decorators = ", ".join(sorted({f"@{name}" for name, _ in pins}))
    if every_pinned and len(devices) == 1 and None not in devices:
        device = next(iter(devices))
        c = tax.classification_for_device(device)  # type: ignore[arg-type]
        if c is not None:
            return _fix(
                cls, c.name, True, EVERY_TEST_PINNED, f"{where}; every test is pinned by {decorators}"
            )
    split = _split_pinned(ctx, ev, pinned, devices)
    if split is not None:
        moved, device, name, c = split
        return replace(
            _fix(
                cls,
                accel.name,
                False,
                SPLIT_PINNED,
                f"{where} without `only_for`",
                f"{_names(moved)} pinned by {decorators} move to `{name}`, classified {c.name}",
                mixed=f"tests for every device with tests pinned by {decorators} ({_names(moved)}): "
                f"move those to a class of their own (the unsafe fix moves them to `{name}`)",
            ),
            split=(tuple(moved), device, name, c.name),
        )
    outliers = []
    if ev.without_device:
        outliers.append(f"tests without `{param}` ({_names(ev.without_device)})")
    if pins:
        outliers.append(f"tests pinned by {decorators} ({_names(pinned) if pinned else 'the class'})")
    mixed = f"tests for every device with {' and '.join(outliers)}: move the outliers to a class of their own"
    return _fix(
        cls,
        accel.name,
        False,
        INSTANTIATED_MIXED,
        f"{where} without `only_for`",
        " and ".join(outliers),
        mixed=mixed,
    )


def _split_pinned(
    ctx: Context, ev: _Evidence, pinned: dict[str, list], devices: set
) -> tuple[list[str], str, str, Classification] | None:
    """An instantiated class whose tests all take ``device`` but some are pinned to one device
    (``@onlyCUDA``): those tests, the device, and a name and classification for a class of their own
    (a subclass, instantiated ``only_for`` the device); tests without ``device`` stay (HWC202 says
    so). None where the split does not apply: several devices, a class-level pin, a class that is
    not a plain module-level class instantiated once, tests its bases hold, or a pinned name the
    class defines twice."""
    tax, cls = ctx.taxonomy, ev.cls
    if ev.class_pins or not pinned or len(devices) != 1 or None in devices:
        return None
    if cls.nested or cls.site.col != 0 or len(ev.calls) != 1 or ev.where[id(ev.calls[0])]:
        return None
    own = {m.name for m in cls.test_methods}
    if not set(pinned) <= own or set(pinned) == {m.name for m in ev.tests}:
        return None
    defined = [m.name for m in cls.methods]
    if any(defined.count(n) > 1 for n in pinned):
        return None  # only the last definition runs; a move by name would move the others with it
    device = next(iter(devices))
    c = tax.classification_for_device(device)
    if c is None:
        return None
    name = f"{cls.name}{device.capitalize()}Only"
    if ctx.model.class_named(name) is not None:
        return None
    return [m.name for m in cls.test_methods if m.name in pinned], device, name, c


def _infer_only_for(ctx: Context, ev: _Evidence, where: str, names: list[str]) -> Inference:
    tax, cls = ctx.taxonomy, ev.cls
    # each name as the device it spells (a PrivateUse1 backend name is privateuse1); unknown ones stay
    resolved = dict.fromkeys(
        next((d for d in tax.devices if name in tax.device_aliases(d)), name) for name in names
    )
    shown = ", ".join(f'"{d}"' for d in dict.fromkeys(names))
    if len(resolved) == 1:
        device = next(iter(resolved))
        if device not in tax.devices:
            return _no_fix(cls, f"{where} only for {shown}, a device type the taxonomy does not know")
        c = tax.classification_for_device(device)
        if c is not None:
            return _fix(cls, c.name, True, ONLY_FOR_ONE, f"{where} with `only_for={shown}`")
        runs = runner_classification(tax, device)
        if runs is None:
            return _no_fix(
                cls, f"{where} only for {shown}, and the taxonomy has no classification for {device}"
            )
        return _fix(
            cls,
            runs.name,
            False,
            ONLY_FOR_ONE,
            f"{where} only for {shown}, whose runners run only {runs.name}",
        )
    accel = instantiated_classification(tax)
    if accel is None or not resolved:
        return _no_fix(cls, f"{where} only for {shown}, which no single classification covers")
    generic_devices = sorted(tax.generic_runner_devices())
    neutral = (
        f"except_for=({', '.join(repr(d) for d in generic_devices)},)" if generic_devices else "except_for"
    )
    return _fix(
        cls,
        accel.name,
        False,
        ONLY_FOR_SEVERAL,
        f"{where} only for {shown}",
        f"{accel.name} wants the device-neutral `{neutral}` instead of `only_for`",
    )


def _infer_plain(ctx: Context, ev: _Evidence) -> Inference:
    """A class no call in the file instantiates."""
    tax, cls = ctx.taxonomy, ev.cls
    only_with = _only_with(ctx, ev)
    if only_with is not None:
        return only_with
    if ev.with_device:
        accel = instantiated_classification(tax)
        verb = "takes" if len(ev.with_device) == 1 else "take"
        where = f"{_names(ev.with_device)} {verb} `{tax.device_params[0]}`"
        if ev.without_device or accel is None:
            return _no_fix(cls, f"{where} but the class is never instantiated in this file")
        # Upstream instantiates some classes from another module (test_optim.py): likely, not certain.
        return _fix(
            cls, accel.name, False, DEVICE_PARAM, f"{where} but the class is not instantiated in this file"
        )
    return _infer_from_uses(ctx, ev)


def _only_with(ctx: Context, ev: _Evidence) -> Inference | None:
    """A class whose base the module rebinds to one with no tests when a device is absent
    (``TestCase = NoTest`` under ``if not TEST_CUDA:``) exists only with that device: its
    classification is the device's (safe), unless its tests hard-use another one."""
    tax = ctx.taxonomy
    for c in ev.chain:
        for base in c.bases:
            found = ctx.model.missing_without(base.partition(".")[0], before=c.site.line)
            if found is None:
                continue
            line, device = found
            target = tax.classification_for_device(device)
            others = set().union(*(ev.hard_devices(m) for m in ev.tests)) - {device, ANY_ACCELERATOR}
            if target is None or others:
                return None
            return _fix(
                ev.cls,
                target.name,
                True,
                BASE_WITHOUT_DEVICE,
                f"never instantiated; without {device} its base `{base}` is bound to a class with no tests "
                f"(line {line}), so its tests exist only with {device}",
            )
    return None


def _infer_from_uses(ctx: Context, ev: _Evidence) -> Inference:
    """A plain class: the hard device uses of its tests decide; guards alone do not."""
    tax, cls = ctx.taxonomy, ev.cls
    generic = tax.generic_classification()
    hard = {m.name: ev.needed_devices(m) for m in ev.tests}
    using = [m for m in ev.tests if hard[m.name]]
    if not using:
        if generic is None:
            return _no_fix(cls, "no hard device use, and the taxonomy has no generic classification")
        guard = ev.first(UseKind.GUARD)
        hidden = hidden_bases(ev.chain)
        forbidden = _forbidden_calls(ctx, cls, generic)
        if guard is None and forbidden is not None:
            # no test reaches it, yet GENERIC forbids it anywhere in the class (HWC204)
            site = cls.availability_checks[0]
            return _fix(
                cls,
                generic.name,
                False,
                GUARDS_ONLY,
                f"never instantiated; no test uses a device, but the class calls `{site.text}` "
                f"(line {site.line})",
                by_absence=True,
                mixed=forbidden,
            )
        if guard is None and not hidden:
            evidence = (
                "never instantiated",
                f"no test takes `{tax.device_params[0]}`",
                "no device-specific code",
            )
            return _fix(cls, generic.name, True, NO_EVIDENCE, *evidence, by_absence=True)
        if guard is None:
            sets_up = " (it sets up its own devices)" if hidden[0] in DISTRIBUTED_BASES else ""
            return _fix(
                cls,
                generic.name,
                False,
                NO_EVIDENCE,
                f"no device-specific code here, but its base `{hidden[0]}` is code hwlint does not "
                f"see{sets_up}",
                by_absence=True,
            )
        return _fix(
            cls,
            generic.name,
            False,
            GUARDS_ONLY,
            f"never instantiated; it only asks for a device: {_use(guard)}",
            by_absence=True,
            mixed=forbidden,
        )
    devices = set().union(*hard.values())
    if len(devices) > 1:
        several = f"tests that hard-use several devices ({', '.join(sorted(devices))})"
        if 2 * len(using) < len(ev.tests) and generic is not None:
            # as for one device: the majority runs once, where it runs today, until a person splits
            mixed = (
                f"{several} ({_names(using)}) with tests that use no device: move each device's tests "
                "to a class for that device"
            )
            return _by_share(cls, generic, MINORITY_HARD, using, ev, " or ".join(sorted(devices)), mixed)
        return _everywhere(ctx, ev, SEVERAL_DEVICES, f"never instantiated; {several} ({_names(using)})")
    device = next(iter(devices))
    example = ev.first(UseKind.HARD, using, device) or ev.first(UseKind.GUARD, using, device)
    shown = _use(example) if example is not None else device
    if len(using) == len(ev.tests):
        if device not in tax.devices:
            return _everywhere(
                ctx,
                ev,
                UNNAMED_ACCELERATOR,
                f"it uses an accelerator without naming one ({shown}) and is not instantiated: give its "
                f"tests a `{tax.device_params[0]}` and instantiate it",
            )
        target = tax.classification_for_device(device)
        if target is None:
            return _no_fix(cls, f"it uses {device}, and the taxonomy has no classification for {device}")
        scope = "the class" if ev.first(UseKind.HARD, [ev.tests[0]], device) in ev.shared else "every test"
        return _fix(
            cls, target.name, False, EVERY_TEST_HARD, f"never instantiated; {scope} uses {device}: {shown}"
        )
    plain = [m for m in ev.tests if not hard[m.name]]
    target = tax.classification_for_device(device)
    guarded = {u.device for u in ev.shared if u.kind == UseKind.GUARD}
    if guarded == {device} and target is not None:
        guard = next(u for u in ev.shared if u.kind == UseKind.GUARD)
        return _fix(
            cls,
            target.name,
            False,
            CLASS_GUARDED,
            f"every test is skipped without {device} ({_use(guard)})",
            f"{len(using)} of {len(ev.tests)} tests use it: {shown}",
        )
    split = f"split it into a {generic.name if generic else 'device-independent'} class and " + (
        f"a {target.name} class" if target else f"a class for its {device} tests"
    )
    mixed = (
        f"tests that use {device} ({_names(using)}, e.g. {shown}) with tests that use no device "
        f"({_names(plain)}): {split}"
    )
    named_by_runner = [m for m in using if set(m.parametrized) & set(tax.device_params)]
    if device not in tax.devices and (named_by_runner or 2 * len(using) >= len(ev.tests)):
        # no classification names the accelerator: each test runs on every runner, as it is. Even a
        # minority: a test parametrized by `GPU_TYPE` has variants named after each runner's
        # device (`test_x_device_mps`), which GENERIC, run where there is no accelerator, never has
        why = f"never instantiated; {mixed}"
        if 2 * len(using) < len(ev.tests):
            why += f"; the variants of {_names(named_by_runner)}, parametrized by it, exist only where it is"
        return _everywhere(ctx, ev, UNNAMED_ACCELERATOR, why, mixed=mixed)
    if 2 * len(using) < len(ev.tests) and generic is not None:
        return _by_share(cls, generic, MINORITY_HARD, using, ev, device, mixed)
    if 2 * len(using) > len(ev.tests) and target is not None:
        # the device-independent minority runs on the device's runner too, until a person splits
        return _by_share(cls, target, MAJORITY_HARD, using, ev, device, mixed)
    hard_using = [m for m in using if ev.hard_devices(m)]
    if generic is not None and 2 * len(hard_using) < len(ev.tests):
        # an even split only with the tests that merely require the device (`@requires_cuda`):
        # what the hard uses alone give
        if hard_using:
            found = _by_share(cls, generic, MINORITY_HARD, hard_using, ev, device, mixed)
            return replace(found, bound=_bound(ev, using))
        why = f"never instantiated; half its tests require {device} ({_names(using)}), the others use none"
        found = _fix(cls, generic.name, False, GUARDS_ONLY, why, by_absence=True, mixed=mixed)
        return replace(found, bound=_bound(ev, using))
    if target is not None:
        # half hard-use the device: GENERIC would run those where it is absent; the device's runner
        # runs every test for real, the device-independent half included, until a person splits
        return _by_share(cls, target, EVEN_HARD, using, ev, device, mixed)
    return _mixed(cls, mixed)


def _everywhere(ctx: Context, ev: _Evidence, rule: str, why: str, mixed: str | None = None) -> Inference:
    """The unsafe answer for an uninstantiated class whose tests need devices no one classification
    names: the one every runner runs (each test then runs where its device exists), else no fix."""
    everywhere = everywhere_classification(ctx.taxonomy)
    if everywhere is None:
        return _mixed(ev.cls, mixed) if mixed else _no_fix(ev.cls, why)
    return _fix(
        ev.cls, everywhere.name, False, rule, why, f"{everywhere.name} runs it on every runner", mixed=mixed
    )


def _by_share(
    cls: ClassInfo, c: Classification, rule: str, using: list[Method], ev: _Evidence, devices: str, mixed: str
) -> Inference:
    """The unsafe answer for a class whose tests hard-use *devices* in part (*using*), HWC004
    advising the split."""
    evidence = f"never instantiated; {len(using)} of {len(ev.tests)} tests use {devices} ({_names(using)})"
    return replace(_fix(cls, c.name, False, rule, evidence, mixed=mixed), bound=_bound(ev, using))


def _bound(ev: _Evidence, using: list[Method]) -> tuple[tuple[str, str], ...]:
    """(test, device) for each of *using* that runs only with one device the taxonomy names."""
    out = []
    for m in using:
        devices = ev.needed_devices(m)
        if len(devices) == 1 and next(iter(devices)) in ev.tax.devices:
            out.append((m.name, next(iter(devices))))
    return tuple(out)


#: Bases that bring no tests or device code of their own.
def _forbidden_calls(ctx: Context, cls: ClassInfo, generic: Classification) -> str | None:
    """HWC004's advice when a guarded class calls what the generic classification forbids."""
    if generic.availability_checks != "forbidden" or not cls.availability_checks:
        return None
    site = cls.availability_checks[0]
    return (
        f"{generic.name} code with a call {generic.name} forbids (`{site.text}`, line {site.line}): move the "
        "tests that need it to a class for their device"
    )


def _infer_without_tests(ctx: Context, ev: _Evidence) -> Inference:
    """A class that defines no test and is not instantiated (HWC005): its device attribute decides."""
    tax, cls = ctx.taxonomy, ev.cls
    setattr_line = next(added_by_setattr(ctx.model, cls), None)
    if cls.device_attribute is None and (cls.assigned_tests or setattr_line is not None):
        # `test_x = helper`, or `setattr(TestFoo, "test_x", ...)` in module code: the tests' code is
        # elsewhere; only the class's own code is evidence here
        bound = (
            f"{_names(cls.assigned_tests)} are bound by assignment"
            if cls.assigned_tests
            else f"are added by `setattr` (line {setattr_line})"
        )
        hard = next((u for u in ev.shared if u.kind == UseKind.HARD), None)
        generic = tax.generic_classification()
        if hard is not None or generic is None:
            return _no_fix(
                cls,
                f"its tests {bound}, and the class uses {_use(hard)}"
                if hard is not None
                else "the taxonomy has no generic classification",
            )
        return _fix(
            cls,
            generic.name,
            False,
            BOUND_TESTS,
            f"its tests {bound}: their code is not read",
            by_absence=True,
        )
    if cls.device_attribute is None:
        return _no_fix(cls, "no test method and no class-level device")
    text = cls.device_attribute.text
    value = cls.device_value
    if value is None:
        accel = instantiated_classification(tax)
        if accel is None:
            return _no_fix(cls, f"`{text}`, and the taxonomy has no classification for every device")
        return _fix(cls, accel.name, False, DEVICE_ATTRIBUTE, f"`{text}` sets the device from a variable")
    device = next((d for d in tax.devices if value.split(":")[0] in tax.device_aliases(d)), None)
    c = tax.classification_for_device(device) if device else None
    if c is None:
        return _no_fix(cls, f"`{text}`, and the taxonomy has no classification for {value!r}")
    return _fix(cls, c.name, False, DEVICE_ATTRIBUTE, f"`{text}`")


def infer_collected(ctx: Context, cls: ClassInfo, holder: ClassInfo | None) -> Inference:
    """HWC005's answer for *cls*, which collects tests without defining one: *holder* is the base in
    the file that holds them (None when the tests come from elsewhere)."""
    if holder is None or ctx.model.instantiations_of(cls):
        return inference(ctx, cls)
    found = inference(ctx, holder)
    if not found.fixable:
        return _no_fix(cls, f"its tests come from `{holder.name}`: {found.describe()}")
    return replace(
        found,
        cls=cls,
        rule=BASE_TESTS,
        evidence=(
            f"its tests come from `{holder.name}`, whose answer is {found.classification} ({found.rule})",
        ),
        mixed=None,
    )
