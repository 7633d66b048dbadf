"""Device-neutral tests: which device uses of a class hard-code one device, how each can be spelled
for every device, and whether a whole one-device class can become device-generic.

Rules HWC301 / HWC302 and the fixer read this module; the facts come from the file model (the hard
uses of each test, their syntax and the text a rewrite replaces), the spellings from the taxonomy's
``device_neutral`` section.

A rewrite of one use:

* ``torch.cuda.X(...)`` with a counterpart in ``device_neutral.calls``, called without keyword
  arguments (or referenced without a call): the counterpart's name (safe: the same behaviour on CUDA);
* ``"cuda"``: the test's ``device`` where the literal is a device (``.to("cuda")``, ``device="cuda"``,
  ``torch.device("cuda")``) and the test takes ``device``; ``self.device_type`` otherwise (the
  generated class's device type: ``"cuda"`` on CUDA). ``"cuda:0"``: the test's ``device``
  (unsafe: the code runs on other devices from then on);
* ``x.cuda()``, ``x.cuda(0)``, ``x.cuda(non_blocking=...)``: ``x.to(device[, non_blocking=...])``
  (unsafe).

Anything else (``"cuda:1"``, ``torch.cuda.Stream()``, a module-level helper that uses CUDA, a use in a
decorator or a default argument, ``self.device_type`` in a nested function or class, whose ``self``
may be another object) has no rewrite: it blocks the conversion of its class.
"""

from __future__ import annotations

from dataclasses import dataclass

from .collection import DISTRIBUTED_BASES, SETUP_CLASS_MODULES, device_parameters, origin
from .context import Context
from .edits import Applicability
from .infer import (
    decorator_device,
    device_pinning_decorators,
    inference,
    instantiated_classification,
)
from .model import (
    ANY_ACCELERATOR,
    ROLE_DEVICE,
    SCOPE_DEFAULT,
    SCOPE_NESTED,
    ClassInfo,
    DeviceUse,
    Method,
    UseForm,
    UseKind,
    mro,
)
from .taxonomy import Classification, Taxonomy

#: Forms of a use that hard-codes a device (identifiers such as ``TEST_CUDA`` never do).
_CODE_FORMS = frozenset(UseForm) - {UseForm.IDENTIFIER}


@dataclass(frozen=True)
class Rewrite:
    """The replacement of ``use.target`` by ``text``."""

    use: DeviceUse
    text: str
    applicability: Applicability  # SAFE or UNSAFE


@dataclass(frozen=True)
class HardUse:
    """A hard-coded device in a class: the use, the method it sits in (None: the class body), and
    its rewrite when it has one."""

    use: DeviceUse
    method: Method | None
    rewrite: Rewrite | None


def _owner(chain: list[ClassInfo], use: DeviceUse) -> Method | None:
    for c in chain:
        for m in c.methods:
            if m.site.line <= use.site.line <= (m.end_line or m.site.line):
                return m
    return None


def rewrite_use(
    ctx: Context, use: DeviceUse, method: Method | None, takes_device: bool, device_type: bool = True
) -> Rewrite | None:
    """How *use* is spelled for every device inside *method* (which takes, or will take, ``device``
    when *takes_device*), or None. ``self.device_type`` is written only with *device_type*: the
    instantiation sets it on the classes it generates, a class that is not instantiated has none."""
    tax = ctx.taxonomy
    if use.decorator or use.scope == SCOPE_DEFAULT:  # evaluated before any test runs: no `device` yet
        return None
    if use.form == UseForm.CHAIN:
        target = tax.device_neutral.counterpart(use.detail)
        return Rewrite(use, target, Applicability.SAFE) if target else None
    # in a nested function or class `self` may be another object (an nn.Module's forward)
    has_self = (
        device_type and method is not None and method.params[:1] == ("self",) and use.scope != SCOPE_NESTED
    )
    param = tax.device_params[0] if tax.device_params else "device"
    if use.form == UseForm.LITERAL:
        value = use.site.text.strip("'\"")
        head, _, index = value.partition(":")
        if head != use.device:  # "nccl" and the like: a library, not a device
            return None
        if use.detail == ROLE_DEVICE and takes_device and index in ("", "0"):
            return Rewrite(use, param, Applicability.UNSAFE)
        if not index and has_self:
            return Rewrite(use, "self.device_type", Applicability.UNSAFE)
        if index == "0" and takes_device:
            return Rewrite(use, param, Applicability.UNSAFE)
        return None
    if use.form == UseForm.METHOD:
        args = use.detail.strip()
        where = param if takes_device else ("self.device_type" if has_self else None)
        if where is None:
            return None
        if args in ("", "0"):
            return Rewrite(use, f".to({where})", Applicability.UNSAFE)
        if args.startswith("non_blocking=") and "," not in args:
            return Rewrite(use, f".to({where}, {args})", Applicability.UNSAFE)
        return None
    return None


def hard_uses(ctx: Context, cls: ClassInfo, converting: bool = False) -> list[HardUse]:
    """The uses in *cls* (its tests, the helpers they call, setUp and the class body) that hard-code
    one accelerator, in source order. Uses under a device guard are guards, not hard uses (the
    model's walk); uses of the device a test is pinned to (``@onlyCUDA``, which HWC203 reports) and
    uses in decorators are left out. With *converting*, every test is taken to gain ``device``."""
    tax = ctx.taxonomy
    skip = tax.generic_runner_devices() | {ANY_ACCELERATOR}
    pinning = device_pinning_decorators(tax)
    class_pins = {decorator_device(tax, d.name) for d in cls.decorators if d.name in pinning}
    chain = mro(ctx.model, cls, ctx.resolver)
    methods = {m.name: m for c in reversed(chain) for m in c.methods}
    out: dict[tuple[int, int], HardUse] = {}
    instantiated = converting or ctx.instantiated(cls)
    uses: list[DeviceUse] = list(cls.shared_uses)
    for name, found in cls.test_uses:
        test = methods.get(name)
        pins = set(class_pins)
        if test is not None:
            pins |= {decorator_device(tax, d.name) for d in test.decorators if d.name in pinning}
        uses += [u for u in found if u.device not in pins]
    for u in uses:
        if u.kind != UseKind.HARD or u.device in skip or u.form not in _CODE_FORMS or u.decorator:
            continue
        key = (u.site.line, u.site.col)
        if key in out:
            continue
        owner = _owner(chain, u)
        takes = owner is not None and owner.is_test and (converting or bool(device_parameters(tax, owner)))
        out[key] = HardUse(u, owner, rewrite_use(ctx, u, owner, takes, instantiated))
    return sorted(out.values(), key=lambda h: (h.use.site.line, h.use.site.col))


def shown(use: DeviceUse) -> str:
    """The text of *use* for a message: ``.cuda()`` rather than the whole chain before it."""
    return use.target.text if use.form == UseForm.METHOD and use.target is not None else use.site.text


def is_every_device_class(ctx: Context, cls: ClassInfo) -> bool:
    """Whether *cls* is classified (own or inherited) for every device: ACCELERATOR by default."""
    accel = instantiated_classification(ctx.taxonomy)
    c = ctx.classification(cls)
    return accel is not None and c is not None and c.name == accel.name


# ---------------------------------------------------------------------------------------------
# Whole classes


@dataclass(frozen=True)
class Conversion:
    """Whether a one-device class can become device-generic, and what the conversion does."""

    cls: ClassInfo
    classification: str  # what it is (or would be declared) now: CUDA
    target: str  # what it becomes: ACCELERATOR
    rewrites: tuple[Rewrite, ...]
    tests: tuple[Method, ...]  # tests that gain the device parameter
    blocker: str | None  # why it cannot be converted, naming the line

    @property
    def convertible(self) -> bool:
        return self.blocker is None


def one_device_classification(ctx: Context, cls: ClassInfo) -> Classification | None:
    """The one-accelerator classification *cls* has (declared or, undeclared, inferred), if any."""
    tax = ctx.taxonomy
    generic_devices = tax.generic_runner_devices()
    c = ctx.classification(cls)
    if c is None and cls.declaration is None and ctx.effective(cls) is None:
        inferred = inference(ctx, cls)
        c = tax.classifications.get(inferred.classification or "")
    if c is None or c.device is None or c.device in generic_devices:
        return None
    return c


def conversion(ctx: Context, cls: ClassInfo) -> Conversion | None:
    """The conversion of a one-accelerator class to the every-device classification, or None when
    *cls* is no such class. Computed once per class and kept in *ctx*."""
    key = ("conversion", id(cls))
    if key not in ctx.inferred:
        ctx.inferred[key] = _conversion(ctx, cls)
    return ctx.inferred[key]


def _conversion(ctx: Context, cls: ClassInfo) -> Conversion | None:
    """What :func:`conversion` computes: the checks that may block the conversion, in order, each an
    early return naming the first thing that blocks it (inherited tests, subclasses, pinning
    decorators, parameters, the instantiation, generated names, the module), then the rewrites of its
    device uses. One list of checks, because the first that fails is the reason a user is shown."""
    tax = ctx.taxonomy
    current = one_device_classification(ctx, cls)
    accel = instantiated_classification(tax)
    if current is None or accel is None or not cls.is_test:
        return None
    tests = cls.test_methods

    def blocked(why: str) -> Conversion:
        return Conversion(cls, current.name, accel.name, (), tests, why)

    uses = hard_uses(ctx, cls, converting=True)
    if not any(h.rewrite is not None for h in uses):
        return None  # nothing says the class is one device's only by its spelling
    # a device given to one device's autocast, streams or allocator (the model's feature of the
    # call): such tests test that device, on another one something else, or fail (TestXpuAutocast
    # in test_xpu.py); said without a line, so that HWC302 does not advise a conversion one line
    # away. A `torch.cuda.*` call with a device-neutral counterpart is no such use (it converts).
    feature = next((h.use for h in uses if h.use.feature), None)
    if feature is not None:
        return blocked(f"its tests exercise {feature.device}'s {feature.feature} (line {feature.site.line})")

    chain = mro(ctx.model, cls, ctx.resolver)
    holder = next((c for c in chain[1:] if c.is_test), None)
    if holder is not None:
        return blocked(f"it inherits tests from `{holder.name}` (line {holder.site.line})")
    sub = next((c for c in ctx.model.classes if cls.name in c.bases), None)
    if sub is not None:
        return blocked(f"`{sub.name}` (line {sub.site.line}) derives from it")
    pinning = device_pinning_decorators(tax)
    for d in (*cls.decorators, *(d for m in tests for d in m.decorators)):
        if d.name in pinning:
            return blocked(f"line {d.site.line}: `@{d.name}`")
    for m in tests:
        if not m.params or m.params[0] != "self":
            return blocked(f"`{m.name}` (line {m.site.line}) takes no `self`")
        extra = [p for p in tax.device_params[1:] if p in m.params]
        if extra:
            return blocked(f"`{m.name}` (line {m.site.line}) takes `{extra[0]}`")
        plain = [p for p in tax.device_params[:1] if p in m.params and p not in device_parameters(tax, m)]
        if plain:
            return blocked(f"`{m.name}` (line {m.site.line}) takes `{plain[0]}` with a value of its own")
    calls = ctx.model.instantiations_of(cls)
    if len(calls) > 1:
        return blocked(f"it is instantiated {len(calls)} times (line {calls[1].site.line})")
    if calls:
        call = calls[0]
        aliases = tax.device_aliases(current.device or "")
        if call.dynamic or call.except_for is not None:
            return blocked(f"its instantiation (line {call.site.line}) has arguments hwlint cannot rewrite")
        if call.only_for is not None and (
            call.only_for.devices is None or not set(call.only_for.devices) <= aliases
        ):
            return blocked(f"its instantiation (line {call.site.line}) names other devices")
        if call.only_for is not None and "only_for=" not in call.site.text:
            return blocked(f"its instantiation (line {call.site.line}) passes `only_for` by position")
    for suffix in _generated_names(ctx, cls):
        clash = ctx.model.class_named(suffix)
        if clash is not None:
            return blocked(f"`{clash.name}` (line {clash.site.line}) has a name instantiation would generate")
    why = kept_by_the_module(ctx, cls, chain, calls) or _about_its_device(cls, current.device or "")
    if why is not None:
        return blocked(why)
    rewrites = []
    for h in uses:
        if h.rewrite is None:
            return blocked(f"line {h.use.site.line}: `{shown(h.use)}`")
        rewrites.append(h.rewrite)
    done = {(h.use.site.line, h.use.site.col) for h in uses}
    for u in cls.device_uses:  # guards, and uses no test reaches (a property): neutral, or blocking
        if u.device != current.device or (u.site.line, u.site.col) in done or u.kind == UseKind.NONE:
            continue
        target = tax.device_neutral.counterpart(u.detail) if u.form == UseForm.CHAIN else None
        if target is None or u.target is None:
            return blocked(f"line {u.site.line}: `{shown(u)}` is for {u.device} only")
        rewrites.append(Rewrite(u, target, Applicability.SAFE))
        done.add((u.site.line, u.site.col))
    return Conversion(cls, current.name, accel.name, tuple(rewrites), tests, None)


def kept_by_the_module(ctx: Context, cls: ClassInfo, chain: list[ClassInfo], calls: list) -> str | None:
    """Why instantiating *cls* would break its module, or its tests would not run per device: the
    instantiation deletes the class from the module, so anything else naming it fails (a later
    ``instantiate_parametrized_tests(X)``, its own ``X.Helper``); a base bound at run time
    (``TestCase = NoTest``) is no device base's partner; a distributed base sets up its own
    processes and devices; tests bound by assignment take no ``device``."""
    model = ctx.model
    if cls.assigned_tests:
        return f"its tests {', '.join(f'`{t}`' for t in cls.assigned_tests[:2])} are bound by assignment"
    own = {line for call in calls for line in range(call.site.line, call.site.end_line + 1)}
    for site in cls.mentions:
        if site.line not in own:
            return f"line {site.line} names `{cls.name}`, which instantiation deletes from the module"
    for c in chain:
        for base in c.bases:
            name = base.rpartition(".")[2]
            if name in DISTRIBUTED_BASES:
                return f"its base `{name}` runs its own processes: it is not instantiated per device"
            line = model.runtime_bound(base.partition(".")[0], before=c.site.line)
            if line:
                return f"its base `{base}` is bound at run time (line {line})"
    return None


def own_class_setup(ctx: Context, chain: list[ClassInfo]) -> str | None:
    """Why the class whose MRO is *chain* depends on which torch instantiates it: it sets up in
    ``setUpClass`` (or tears down in ``tearDownClass``), a method of the class or of a base in the
    file, or a base from a module whose ``TestCase`` does (:data:`SETUP_CLASS_MODULES`). torch
    2.6's instantiation calls the device base's ``setUpClass`` alone (it calls no ``super()``, and
    dynamo's ``tearDownClass`` then fails); torch 2.13's calls both, and both teardowns."""
    for c in chain:
        own = next((m for m in c.methods if m.name in ("setUpClass", "tearDownClass")), None)
        if own is not None:
            where = f"`{c.name}.{own.name}` (line {own.site.line})"
            break
        # `from torch._inductor.test_case import TestCase`, or the dotted name itself
        modules = [b.rpartition(".")[0] if "." in b else origin(ctx.model, b, c.site.line) for b in c.bases]
        module = next((m for m in modules if m in SETUP_CLASS_MODULES), None)
        if module is not None:
            where = f"the `setUpClass` of its base from `{module}`"
            break
    else:
        return None
    return (
        f"{where} runs in the generated classes only where torch's instantiation calls it (2.13's "
        "does; 2.6's calls the device base's alone)"
    )


def _about_its_device(cls: ClassInfo, device: str) -> str | None:
    """A class named after one device, as PyTorch names the classes for one device
    (``TestAutocastMPS``, ``TestCudaMallocAsyncCUDA``...: the device in capitals at the end), asserts
    that device's behaviour: it is not made to run on every other one."""
    if device and cls.name.endswith(device.upper()) and len(cls.name) > len(device):
        return f"its name says it tests {device}"
    return None


def _generated_names(ctx: Context, cls: ClassInfo) -> list[str]:
    tax = ctx.taxonomy
    names = []
    for device in tax.devices:
        names.append(cls.name + device.upper())
        if device == "privateuse1":
            names += [cls.name + b.upper() for b in tax.backends()]
    return names


def neutral_except_for(tax: Taxonomy) -> tuple[str, ...]:
    """The devices the device-generic instantiation leaves out (cpu by default)."""
    found = tax.device_neutral.except_for
    return found if found is not None else tuple(sorted(tax.generic_runner_devices()))
